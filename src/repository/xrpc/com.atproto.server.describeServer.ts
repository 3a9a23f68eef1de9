/**
 * com.atproto.server.describeServer: the town as an AT Protocol server, its repository's did,
 * the domain its guests' handles end in, and whether an invite is needed to arrive.
 */
import { hostName } from '../../identity/names.js';
import type { XrpcMethod } from './method.js';
import { lexiconParams } from './params.js';
import { townRepoDid } from './shared.js';

const nsid = 'com.atproto.server.describeServer';

export const describeServer: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    await lexiconParams(nsid, q);
    return {
      did: await townRepoDid(deps),
      availableUserDomains: [`.${hostName(deps.config.host)}`],
      inviteCodeRequired: !deps.config.open,
      links: {},
    };
  },
};

/**
 * com.atproto.identity.resolveHandle: the town's own handle to its did, and a guest's handle
 * (`<name>.<host without port>`) to the guest's did:web; any other handle is HandleNotFound.
 */
import { isValidHandle } from '@atproto/syntax';
import { didOf, hostName, isGuestName } from '../../identity/names.js';
import type { XrpcMethod } from './method.js';
import { fail, lexiconParams, required } from './params.js';
import { townRepoDid, townRepoHandle } from './shared.js';

const nsid = 'com.atproto.identity.resolveHandle';

export const resolveHandle: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    await lexiconParams(nsid, q);
    const asked = required(q, 'handle').toLowerCase();
    if (!isValidHandle(asked)) fail('InvalidRequest', 'handle is not a handle');
    if (asked === townRepoHandle(deps)) return { did: await townRepoDid(deps) };
    const suffix = `.${hostName(deps.config.host).toLowerCase()}`;
    if (asked.endsWith(suffix)) {
      const name = asked.slice(0, -suffix.length);
      if (isGuestName(name) && (await deps.events.streamRevision(`guest-${name}`)) !== undefined) return { did: didOf(deps.config.host, name) };
    }
    return fail('HandleNotFound', `this town resolves its own handle and its guests'; not ${asked.slice(0, 120)}`);
  },
};

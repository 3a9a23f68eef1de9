/** com.atproto.sync.getRepoStatus: whether the repository is active and its rev, the town's or a hosted account's. */
import type { XrpcMethod } from './method.js';
import { lexiconParams } from './params.js';
import { byDid, repoOwner, townRepo } from './shared.js';

const nsid = 'com.atproto.sync.getRepoStatus';

export const getRepoStatus: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    const owner = await repoOwner(deps, q, 'did');
    await lexiconParams(nsid, byDid(q, 'did', owner));
    if ('account' in owner) return deps.hosted.status(owner.account);
    const head = deps.keys ? await townRepo(deps).head() : undefined;
    return { did: owner.town, active: true, ...(head?.rev ? { rev: head.rev } : {}) };
  },
};

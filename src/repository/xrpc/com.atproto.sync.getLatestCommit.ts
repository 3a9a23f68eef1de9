/** com.atproto.sync.getLatestCommit: the signed head's cid and rev, the town's or a hosted account's. */
import type { XrpcMethod } from './method.js';
import { lexiconParams } from './params.js';
import { byDid, repoOwner, signedHead } from './shared.js';

const nsid = 'com.atproto.sync.getLatestCommit';

export const getLatestCommit: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    const owner = await repoOwner(deps, q, 'did');
    await lexiconParams(nsid, byDid(q, 'did', owner));
    if ('account' in owner) {
      const head = await deps.hosted.signedHead(owner.account);
      return { cid: head.commit, rev: head.rev };
    }
    const head = await signedHead(deps);
    return { cid: head.commit!, rev: head.rev! };
  },
};

/**
 * com.atproto.sync.getRepo: the repository as a CAR, the whole of it or what changed since rev
 * `since`, of the town's repository or of a hosted account's. A box without a signing key
 * keeps no signed repository (RepoNotServed).
 */
import { isValidTid } from '@atproto/syntax';
import type { XrpcMethod } from './method.js';
import { fail, lexiconParams } from './params.js';
import { byDid, repoOwner, signedHead, townRepo } from './shared.js';

const nsid = 'com.atproto.sync.getRepo';

export const getRepo: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    const owner = await repoOwner(deps, q, 'did');
    await lexiconParams(nsid, byDid(q, 'did', owner));
    // An empty since is no value to the lexicon and no rev to the town.
    if (q.since !== undefined && !isValidTid(q.since)) fail('InvalidRequest', 'since is a rev (a TID)');
    if ('account' in owner) {
      await deps.hosted.signedHead(owner.account);
      return deps.hosted.repoCar(owner.account, q.since);
    }
    await signedHead(deps);
    const repo = townRepo(deps);
    const car = q.since !== undefined ? await repo.carSince(q.since) : await repo.fullCar();
    return car ? { car } : fail('RepoNotFound', 'the repository has no signed commit yet');
  },
};

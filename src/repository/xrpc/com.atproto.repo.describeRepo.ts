/**
 * com.atproto.repo.describeRepo: the repository's handle, did, DID document and collections,
 * the town's or a hosted account's.
 */
import { isValidHandle } from '@atproto/syntax';
import { feedCollection, hasFeedRecords } from '../feed-records.js';
import { didDocument } from '../identity.js';
import { recordCollections } from '../records.js';
import type { XrpcMethod } from './method.js';
import { lexiconParams } from './params.js';
import { byDid, repoOwner, townRepo, townRepoHandle } from './shared.js';

const nsid = 'com.atproto.repo.describeRepo';

export const describeRepo: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    const owner = await repoOwner(deps, q, 'repo');
    await lexiconParams(nsid, byDid(q, 'repo', owner));
    if ('account' in owner) return deps.hosted.describeRepo(owner.account);
    const h = townRepoHandle(deps);
    return {
      handle: h,
      did: owner.town,
      didDoc: didDocument(owner.town, h, deps.config.origin, deps.keys),
      collections: [...(await townRepo(deps).collections(recordCollections)), ...((await hasFeedRecords(deps.reads)) ? [feedCollection] : [])],
      handleIsCorrect: isValidHandle(h) && h !== 'handle.invalid',
    };
  },
};

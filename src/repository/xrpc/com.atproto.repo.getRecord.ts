/**
 * com.atproto.repo.getRecord: one record, of the town's repository (an entry's record, a feed
 * post, or the pointer of a receipt from before a carry) or of a hosted account's.
 */
import { feedCollection, feedRecord } from '../feed-records.js';
import type { XrpcMethod } from './method.js';
import { fail, lexiconParams } from './params.js';
import { byDid, repoOwner } from './shared.js';
import { townRecord } from './town-record.js';

const nsid = 'com.atproto.repo.getRecord';

export const getRecord: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    const owner = await repoOwner(deps, q, 'repo');
    // The town compares a cid as text: one that is no CID names no record (RecordNotFound),
    // where the lexicon's format would refuse it.
    await lexiconParams(nsid, byDid(q, 'repo', owner), ['cid']);
    const { collection, rkey, cid } = q as { collection: string; rkey: string; cid?: string };
    if ('account' in owner) return deps.hosted.record(owner.account, collection, rkey, cid);
    if (collection === feedCollection) {
      const found = await feedRecord(deps.reads, deps.config.host, rkey);
      if (!found || (cid !== undefined && cid !== found.cid)) fail('RecordNotFound', `no record ${feedCollection}/${rkey} in ${owner.town}`);
      return found!;
    }
    const found = await townRecord(deps, owner.town, collection, rkey, cid);
    return 'carried' in found ? found.carried : found.view;
  },
};

/**
 * com.atproto.repo.listRecords: a page of one collection, newest first unless `reverse` (as AT
 * Protocol's own servers list), of the town's repository or of a hosted account's.
 */
import { isValidRecordKey } from '@atproto/syntax';
import { carriedCollection, carriedPage } from '../carried-records.js';
import { feedCollection, feedRecords } from '../feed-records.js';
import { recordView } from '../reads.js';
import { heightOfRkey } from '../records.js';
import type { XrpcMethod } from './method.js';
import { fail, flag, lexiconParams, limitOf } from './params.js';
import { byDid, entryRkey, repoOwner, townRepo } from './shared.js';

const nsid = 'com.atproto.repo.listRecords';

export const listRecords: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    const owner = await repoOwner(deps, q, 'repo');
    await lexiconParams(nsid, byDid(q, 'repo', owner));
    const collection = q.collection!;
    const limit = limitOf(q);
    const newestFirst = !flag(q, 'reverse');
    if (q.cursor !== undefined && !isValidRecordKey(q.cursor)) fail('InvalidRequest', 'cursor is a record key from the page before');
    if ('account' in owner) return deps.hosted.records(owner.account, collection, limit, newestFirst, q.cursor);
    // A height given without its zeros is the record key it names.
    const cursor = q.cursor === undefined ? undefined : entryRkey(collection, q.cursor);
    if (collection === feedCollection) return feedRecords(deps.reads, deps.config.host, limit, cursor, newestFirst);
    if (collection === carriedCollection) {
      if (cursor !== undefined && heightOfRkey(cursor) === undefined) fail('InvalidRequest', 'cursor is a record key (twelve digits) from the page before');
      return carriedPage(deps.past?.(), owner.town, limit, cursor, newestFirst);
    }
    const page = await townRepo(deps).list(collection, limit, cursor, newestFirst);
    return { records: page.records.map((d) => recordView(owner.town, d)), ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) };
  },
};

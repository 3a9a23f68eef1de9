/**
 * The feed's posts as records of the town's repository, collection `town.feed.post`, keyed by the
 * post's TID: what a post's `uri` names. They are read from the feed projection's posts and
 * served by getRecord and listRecords with the content id of their record value; they are not
 * (yet) in the signed tree, so sync.getRecord and getRepo do not prove them.
 */
import { ipldToJson } from '@atproto/common-web';
import { cidForRecord } from '@atproto/repo';
import { feedCollection, postUri } from '../events/feed.js';
import { type FeedPostDoc, feedPosts } from '../projections/feed.js';
import type { ReadStore } from '../stores/read-store.js';

export { feedCollection };

export interface FeedRecordView {
  uri: string;
  cid: string;
  value: Record<string, unknown>;
}

/** A post's record value: the post in the shape of an AT Protocol record of this collection. */
function recordOf(host: string, p: FeedPostDoc): Record<string, unknown> {
  return {
    $type: feedCollection,
    text: p.text,
    createdAt: new Date(p.at).toISOString(),
    town: p.town,
    ...(p.author ? { author: p.author.did } : {}),
    ...(p.replyTo ? { reply: { root: postUri(host, p.root), parent: postUri(host, p.replyTo) } } : {}),
    ...(p.receipt ? { receipt: p.receipt } : {}),
  };
}

async function view(host: string, p: FeedPostDoc): Promise<FeedRecordView> {
  const value = recordOf(host, p);
  const cid = await cidForRecord(value as never);
  return { uri: postUri(host, p.rkey), cid: cid.toString(), value: ipldToJson(value as never) as Record<string, unknown> };
}

export async function feedRecord(reads: ReadStore, host: string, rkey: string): Promise<FeedRecordView | undefined> {
  const doc = await feedPosts.in(reads).findOne({ _id: rkey });
  return doc ? view(host, doc) : undefined;
}

/** A page of posts by key, newest first unless `oldestFirst`, after `cursor` (a key of the page before). */
export async function feedRecords(
  reads: ReadStore,
  host: string,
  limit: number,
  cursor: string | undefined,
  newestFirst: boolean,
): Promise<{ records: FeedRecordView[]; cursor?: string }> {
  const filter = cursor === undefined ? {} : { _id: newestFirst ? { $lt: cursor } : { $gt: cursor } };
  const docs = await feedPosts.in(reads).find(filter, { sort: { _id: newestFirst ? -1 : 1 }, limit: limit + 1 });
  const page = docs.slice(0, limit);
  const records = await Promise.all(page.map((d) => view(host, d)));
  return { records, ...(docs.length > limit ? { cursor: page[page.length - 1]!._id } : {}) };
}

export async function hasFeedRecords(reads: ReadStore): Promise<boolean> {
  return (await feedPosts.in(reads).findOne({}, { projection: { _id: 1 } })) !== null;
}

/**
 * The feed read reply of spec 2.9: threads newest activity first, each its root post and its
 * replies in order; one thread by its root's URI; or the page of threads older than a given one.
 */
import { TownError } from '../contract/town-error.js';
import { postKey, postUri } from '../events/feed.js';
import { townDid, townHandle } from '../contract/names.js';
import { type FeedPostDoc, type FeedThreadDoc, feedThreads } from '../projections/feed.js';
import type { ReadStore } from '../stores/read-store.js';

export const threadsPerPage = 20;

export interface FeedPost {
  uri: string;
  author: { did: string; handle: string };
  createdAt: string;
  text: string;
  replyTo?: string;
  root: string;
  town: boolean;
  receipt?: { slug: string; cid: string; height: number };
}

export interface FeedThread {
  post: FeedPost;
  replies: FeedPost[];
}

export function feedPost(host: string, p: FeedPostDoc): FeedPost {
  return {
    uri: postUri(host, p.rkey),
    author: p.author ? { did: p.author.did, handle: p.author.handle } : { did: townDid(host), handle: townHandle(host) },
    createdAt: new Date(p.at).toISOString(),
    text: p.text,
    ...(p.replyTo ? { replyTo: postUri(host, p.replyTo) } : {}),
    root: postUri(host, p.root),
    town: p.town,
    ...(p.receipt ? { receipt: p.receipt } : {}),
  };
}

const threadOf = (host: string, d: FeedThreadDoc): FeedThread => ({ post: feedPost(host, d.post), replies: d.replies.map((r) => feedPost(host, r)) });

async function rootThread(reads: ReadStore, host: string, uri: string, what: string): Promise<FeedThreadDoc> {
  const rkey = postKey(host, uri);
  const doc = rkey === undefined ? null : await feedThreads.in(reads).findOne({ _id: rkey });
  if (!doc) throw new TownError('unknown', `${what} names no thread of this feed: ${JSON.stringify(uri.slice(0, 200))}`, { hintHref: '/AGENTS.md/feed' });
  return doc;
}

export async function readFeed(reads: ReadStore, host: string, q: { thread?: string; before?: string }): Promise<{ threads: FeedThread[]; next?: string }> {
  if (q.thread !== undefined) return { threads: [threadOf(host, await rootThread(reads, host, q.thread, 'thread'))] };
  const filter = q.before !== undefined ? { last: { $lt: (await rootThread(reads, host, q.before, 'before')).last } } : {};
  const docs = await feedThreads.in(reads).find(filter, { sort: { last: -1 }, limit: threadsPerPage + 1 });
  const page = docs.slice(0, threadsPerPage);
  return { threads: page.map((d) => threadOf(host, d)), ...(docs.length > threadsPerPage ? { next: postUri(host, page[page.length - 1]!._id) } : {}) };
}

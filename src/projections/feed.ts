/**
 * The feed projection: one document per thread, its root post and its replies (the town's answer
 * among them) in order, and the record key of its newest post, by which threads sort newest
 * activity first (TIDs sort by time and never repeat).
 *
 *   feed.threads  _id `<root rkey>`
 *   feed.posts    _id `<rkey>`: each post alone, for the repository's `town.feed.post` records
 *
 * Idempotent: a post already in its thread is not added again; a post is written by its key.
 */
import { decodeFeedEvent } from '../events/feed.js';
import type { RecordedEvent } from '../stores/event-store.js';
import type { Doc, Unit } from '../stores/read-store.js';
import type { Projection } from './projection.js';
import { readModel } from './read-model.js';

export interface FeedPostDoc {
  rkey: string;
  /** Absent on the town's answers. */
  author?: { did: string; handle: string; principal: string };
  at: number;
  text: string;
  replyTo?: string;
  root: string;
  town: boolean;
  receipt?: { slug: string; cid: string; height: number };
}

export interface FeedThreadDoc extends Doc {
  post: FeedPostDoc;
  replies: FeedPostDoc[];
  /** Record key of the newest post of the thread. */
  last: string;
}

function postOf(event: RecordedEvent): FeedPostDoc {
  const e = decodeFeedEvent(event);
  if (e.type === 'FeedPosted') {
    const d = e.data;
    return { rkey: d.rkey, author: d.author, at: d.at, text: d.text, root: d.root, town: false, ...(d.replyTo ? { replyTo: d.replyTo } : {}) };
  }
  const d = e.data;
  return { rkey: d.rkey, at: d.at, text: d.text, replyTo: d.to, root: d.to, town: true, ...(d.receipt ? { receipt: d.receipt } : {}) };
}

export const feedModel = readModel('feed');
export const feedThreads = feedModel.collection<FeedThreadDoc>('threads');
export const feedPosts = feedModel.collection<FeedPostDoc & Doc>('posts');

export function feedProjection(): Projection {
  return {
    name: feedModel.name,
    // Bump when the fold changes what it writes: a start with read models of another version rebuilds them.
    // 2: each post also alone in feed.posts.
    version: 2,
    collections: [feedThreads.name, feedPosts.name],
    indexes: [{ collection: feedThreads.name, spec: { keys: { last: -1 }, name: 'newest' } }],
    handles: (type) => type === 'FeedPosted' || type === 'FeedAnswered',
    async apply(event: RecordedEvent, unit: Unit): Promise<void> {
      const post = postOf(event);
      await feedPosts.in(unit).replaceOne({ _id: post.rkey }, { _id: post.rkey, ...post }, { upsert: true });
      const threads = feedThreads.in(unit);
      if (post.rkey === post.root) {
        if (await threads.findOne({ _id: post.rkey })) return;
        await threads.insertOne({ _id: post.rkey, post, replies: [], last: post.rkey } satisfies FeedThreadDoc);
        return;
      }
      const thread = await threads.findOne({ _id: post.root });
      if (!thread || thread.replies.some((r) => r.rkey === post.rkey)) return;
      // Keys grow along the stream (the decider makes each after the last), so this post is the newest.
      await threads.replaceOne({ _id: post.root }, { ...thread, replies: [...thread.replies, post], last: post.rkey });
    },
  };
}

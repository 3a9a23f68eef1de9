/**
 * Decider of the town feed (`feed-town`). A post is refused when its reply_to names no post of
 * the feed, or when its author has used the hour's feed quota; the town answers a top-level post
 * of a guest once, and only once: a second answer to the same post decides nothing, which is
 * what makes the feed reactor safe to repeat after a crash or on several fronts at once.
 *
 * Record keys are TIDs of the clock passed in, made strictly increasing from the state, so the
 * same journal always names the same posts.
 *
 * The state is owned by one FeedService and changed in place by evolve (as the world's is), so
 * folding a feed of n posts costs O(n), not O(n²).
 */
import { TID } from '@atproto/common-web';
import type { Decider, Decision } from '../contract/decider.js';
import type { FeedAnswered, FeedEvent, FeedPosted } from '../events/feed.js';

export interface Author {
  principal: string;
  did: string;
  handle: string;
}

interface PostFacts {
  root: string;
  author: string;
  town: boolean;
  answered: boolean;
}

export interface FeedState {
  posts: Map<string, PostFacts>;
  /** Per author: the clock hour of their latest post and how many they made in it. */
  hours: Map<string, { hour: number; count: number }>;
  /** Microseconds of the newest record key, so the next one sorts after it. */
  lastMicros: number;
  /** Top-level guest posts the town has not answered yet, whole (what the reactor casts). */
  waiting: Map<string, FeedPosted['data']>;
}

export const initialFeed = (): FeedState => ({ posts: new Map(), hours: new Map(), lastMicros: 0, waiting: new Map() });

export type FeedCommand =
  | { kind: 'post'; author: Author; text: string; replyTo?: string; at: number; quota: number }
  | { kind: 'answer'; to: string; text: string; receipt?: { slug: string; cid: string; height: number }; at: number };

export type FeedRefusal = { reason: 'noSuchPost' } | { reason: 'quota'; quota: number; retryAfterMs: number };

export type FeedDecision = Decision<FeedEvent, FeedRefusal>;

const hourMs = 3_600_000;

function nextKey(state: FeedState, at: number): string {
  return TID.fromTime(Math.max(at * 1000, state.lastMicros + 1), 0).toString();
}

export function decideFeed(state: FeedState, command: FeedCommand): FeedDecision {
  switch (command.kind) {
    case 'post': {
      let root: string | undefined;
      if (command.replyTo !== undefined) {
        root = state.posts.get(command.replyTo)?.root;
        if (root === undefined) return { ok: false, reason: { reason: 'noSuchPost' } };
      }
      const hour = Math.floor(command.at / hourMs);
      const used = state.hours.get(command.author.principal);
      if (used && used.hour === hour && used.count >= command.quota) {
        return { ok: false, reason: { reason: 'quota', quota: command.quota, retryAfterMs: (hour + 1) * hourMs - command.at } };
      }
      const rkey = nextKey(state, command.at);
      const posted: FeedPosted = {
        type: 'FeedPosted',
        data: {
          rkey,
          author: command.author,
          text: command.text,
          at: command.at,
          root: root ?? rkey,
          ...(command.replyTo ? { replyTo: command.replyTo } : {}),
        },
      };
      return { ok: true, events: [posted] };
    }
    case 'answer': {
      const post = state.posts.get(command.to);
      // Only a guest's top-level post is said to the town, and it is answered once.
      if (!post || post.town || post.root !== command.to || post.answered) return { ok: true, events: [] };
      const answered: FeedAnswered = {
        type: 'FeedAnswered',
        data: {
          rkey: nextKey(state, command.at),
          to: command.to,
          text: command.text,
          at: command.at,
          ...(command.receipt ? { receipt: command.receipt } : {}),
        },
      };
      return { ok: true, events: [answered] };
    }
  }
}

export function evolveFeed(state: FeedState, event: FeedEvent): FeedState {
  state.lastMicros = Math.max(state.lastMicros, TID.fromStr(event.data.rkey).timestamp());
  switch (event.type) {
    case 'FeedPosted': {
      const d = event.data;
      state.posts.set(d.rkey, { root: d.root, author: d.author.principal, town: false, answered: false });
      if (d.root === d.rkey) state.waiting.set(d.rkey, d);
      const hour = Math.floor(d.at / hourMs);
      const used = state.hours.get(d.author.principal);
      state.hours.set(d.author.principal, used && used.hour === hour ? { hour, count: used.count + 1 } : { hour, count: 1 });
      return state;
    }
    case 'FeedAnswered': {
      const d = event.data;
      const post = state.posts.get(d.to);
      if (post) post.answered = true;
      state.waiting.delete(d.to);
      state.posts.set(d.rkey, { root: d.to, author: 'town', town: true, answered: true });
      return state;
    }
  }
}

/** Posts the author may still make this clock hour. */
export function feedLeft(state: FeedState, principal: string, now: number, quota: number): { remaining: number; next: number } {
  const hour = Math.floor(now / hourMs);
  const used = state.hours.get(principal);
  const count = used && used.hour === hour ? used.count : 0;
  return { remaining: Math.max(0, quota - count), next: (hour + 1) * hourMs };
}

/** The feed in the one Decider shape. */
export const feedDecider: Decider<FeedState, FeedCommand, FeedEvent, FeedDecision> = {
  decide: decideFeed,
  evolve: evolveFeed,
  initialState: initialFeed,
};

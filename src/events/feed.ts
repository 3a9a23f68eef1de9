/**
 * Events of the town feed, as io-ts codecs. The whole feed is one stream, `feed-town`: a post's
 * reply_to, the feed quota and "exactly one town answer per post" are all decided against it at
 * one expected revision, so two fronts can never both answer a post or let a guest past its quota.
 *
 * A post is named by its record key (a TID of the clock it was decided at); its `at://` URI is
 * made from the town's DID and the feed collection (`postUri` below), so the events stay valid
 * if the town moves host.
 */
import * as t from 'io-ts';
import type { RecordedEvent } from '../stores/event-store.js';
import { townDid } from '../contract/names.js';
import { decodeEvent } from './identity.js';

export const feedStream = 'feed-town';

const Author = t.type({ principal: t.string, did: t.string, handle: t.string });

export const FeedPosted = t.type({
  type: t.literal('FeedPosted'),
  data: t.intersection([
    t.type({
      rkey: t.string,
      author: Author,
      text: t.string,
      /** Milliseconds since the epoch, from the clock passed into the command. */
      at: t.number,
      /** The thread's root: the post's own key for a top-level post. */
      root: t.string,
    }),
    t.partial({ replyTo: t.string }),
  ]),
});
export type FeedPosted = t.TypeOf<typeof FeedPosted>;

/** The town's answer under a top-level post, with the receipt of the turn that made it. */
export const FeedAnswered = t.type({
  type: t.literal('FeedAnswered'),
  data: t.intersection([
    t.type({ rkey: t.string, to: t.string, text: t.string, at: t.number }),
    t.partial({ receipt: t.type({ slug: t.string, cid: t.string, height: t.number }) }),
  ]),
});
export type FeedAnswered = t.TypeOf<typeof FeedAnswered>;

export const FeedEvent = t.union([FeedPosted, FeedAnswered]);
export type FeedEvent = t.TypeOf<typeof FeedEvent>;

export const decodeFeedEvent = (recorded: RecordedEvent): FeedEvent => decodeEvent(FeedEvent, recorded);

/** The feed's collection in the town's repository: every post and answer is a record of it. */
export const feedCollection = 'town.feed.post';

export function postUri(host: string, rkey: string): string {
  return `at://${townDid(host)}/${feedCollection}/${rkey}`;
}

/** The record key a post URI of this town's feed names, or undefined for any other URI. */
export function postKey(host: string, uri: string): string | undefined {
  const prefix = `at://${townDid(host)}/${feedCollection}/`;
  if (!uri.startsWith(prefix)) return undefined;
  const rkey = uri.slice(prefix.length);
  return /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(rkey) ? rkey : undefined;
}

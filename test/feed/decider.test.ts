/** The feed's decider: given events, when a command, then events or a refusal. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type FeedCommand, feedDecider, feedLeft } from '../../src/commands/feed.js';
import type { FeedEvent } from '../../src/events/feed.js';
import { refused, specification } from '../support/given.js';

const given = specification(feedDecider);
const ann = { principal: 'guest:t:ann', did: 'did:web:t:guest:ann', handle: 'ann.t' };
const at = Date.UTC(2026, 10, 23, 12, 0, 0);
const post = (text: string, o: Partial<Extract<FeedCommand, { kind: 'post' }>> = {}): FeedCommand => ({ kind: 'post', author: ann, text, at, quota: 3, ...o });

/** The events a run of commands appends, each decided on what the ones before made. */
function history(...commands: FeedCommand[]): FeedEvent[] {
  const events: FeedEvent[] = [];
  for (const c of commands) {
    const d = given(events).when(c).outcome;
    if (!d.ok) throw new Error(`${c.kind} refused`);
    events.push(...d.events);
  }
  return events;
}

const key = (e: FeedEvent | undefined) => e?.data.rkey ?? '';

test('a top-level post is its own root; keys grow even within one millisecond', () => {
  given([])
    .when(post('one'))
    .thenMatches([{ type: 'FeedPosted', data: { text: 'one', author: ann, at } }]);
  const events = history(post('one'), post('two'));
  assert.ok(key(events[0]) < key(events[1]), 'the second key sorts after the first, at the same clock');
  assert.is((events[0]!.data as { root: string }).root, key(events[0]));
});

test('a reply takes its parent’s root; a reply_to naming no post is refused', () => {
  const events = history(post('top'));
  const top = key(events[0]);
  const withReply = history(post('top'), post('re', { replyTo: top }));
  given(withReply)
    .when(post('re re', { replyTo: key(withReply[1]) }))
    .thenMatches([{ type: 'FeedPosted', data: { root: top, replyTo: key(withReply[1]) } }]);
  given(events)
    .when(post('lost', { replyTo: '3kabcdefghijk' }))
    .then(refused({ reason: 'noSuchPost' }));
});

test('the quota counts posts per author per clock hour', () => {
  const events = history(post('1'), post('2'), post('3', { at: at + 1000 }));
  given(events)
    .when(post('4', { at: at + 60_000 }))
    .then(refused({ reason: 'quota', quota: 3, retryAfterMs: 3_600_000 - 60_000 }));
  assert.equal(feedLeft(given(events).state, ann.principal, at, 3), { remaining: 0, next: at + 3_600_000 });
  given(events)
    .when(post('next hour', { at: at + 3_600_000 }))
    .thenMatches([{ type: 'FeedPosted' }]);
  assert.is(feedLeft(given(events).state, 'guest:t:bob', at, 3).remaining, 3);
});

test('the town answers a top-level post once, and never a reply, an answer or no post', () => {
  const events = history(post('top'));
  const top = key(events[0]);
  const receipt = { slug: 'a-b-c', cid: 'bafy', height: 3 };
  given(events)
    .when({ kind: 'answer', to: top, text: 'hi', at, receipt })
    .thenMatches([{ type: 'FeedAnswered', data: { to: top, text: 'hi', receipt } }]);
  const answered = history(post('top'), { kind: 'answer', to: top, text: 'hi', at });
  given(answered).when({ kind: 'answer', to: top, text: 'again', at }).then([]);
  assert.is(given(answered).state.waiting.size, 0);
  given(answered)
    .when({ kind: 'answer', to: key(answered[1]), text: 'to an answer', at })
    .then([]);
  const replied = history(post('top'), post('re', { replyTo: top }));
  given(replied)
    .when({ kind: 'answer', to: key(replied[1]), text: 'x', at })
    .then([]);
  given(events).when({ kind: 'answer', to: '3kabcdefghijk', text: 'x', at }).then([]);
});

test.run();

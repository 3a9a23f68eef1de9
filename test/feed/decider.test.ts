/** The feed's decider, given events, when a command, then events or a refusal. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decideFeed, evolveFeed, type FeedCommand, type FeedDecision, feedLeft, initialFeed } from '../../src/commands/feed.js';
import type { FeedEvent } from '../../src/events/feed.js';

const ann = { principal: 'guest:t:ann', did: 'did:web:t:guest:ann', handle: 'ann.t' };
const at = Date.UTC(2026, 10, 23, 12, 0, 0);
const post = (text: string, o: Partial<Extract<FeedCommand, { kind: 'post' }>> = {}): FeedCommand => ({ kind: 'post', author: ann, text, at, quota: 3, ...o });

function given(...commands: FeedCommand[]) {
  const state = initialFeed();
  const events: FeedEvent[] = [];
  for (const c of commands) {
    const d = decideFeed(state, c);
    if (!d.ok) throw new Error(`given ${c.kind} refused`);
    for (const e of d.events) {
      evolveFeed(state, e);
      events.push(e);
    }
  }
  return { state, events, when: (c: FeedCommand): FeedDecision => decideFeed(state, c) };
}

test('a top-level post is its own root; keys grow even within one millisecond', () => {
  const g = given(post('one'), post('two'));
  const [a, b] = g.events.map((e) => e.data.rkey);
  assert.ok(a! < b!, 'the second key sorts after the first');
  assert.is((g.events[0]!.data as { root: string }).root, a);
});

test('a reply takes its parent’s root; a reply_to naming no post is refused', () => {
  const g = given(post('top'));
  const top = g.events[0]!.data.rkey;
  const reply = g.when(post('re', { replyTo: top }));
  assert.ok(reply.ok);
  if (reply.ok) evolveFeed(g.state, reply.events[0]!);
  const deeper = g.when(post('re re', { replyTo: reply.ok ? reply.events[0]!.data.rkey : '' }));
  assert.ok(deeper.ok && (deeper.events[0]!.data as { root: string }).root === top);
  assert.equal(g.when(post('lost', { replyTo: '3kabcdefghijk' })), { ok: false, refusal: { reason: 'noSuchPost' } });
});

test('the quota counts posts per author per clock hour', () => {
  const g = given(post('1'), post('2'), post('3', { at: at + 1000 }));
  const over = g.when(post('4', { at: at + 60_000 }));
  assert.equal(over, { ok: false, refusal: { reason: 'quota', quota: 3, retryAfterMs: 3_600_000 - 60_000 } });
  assert.equal(feedLeft(g.state, ann.principal, at, 3), { remaining: 0, next: at + 3_600_000 });
  assert.ok(g.when(post('next hour', { at: at + 3_600_000 })).ok);
  assert.equal(feedLeft(g.state, 'guest:t:bob', at, 3).remaining, 3);
});

test('the town answers a top-level post once, and never a reply or an answer', () => {
  const g = given(post('top'));
  const top = g.events[0]!.data.rkey;
  const first = g.when({ kind: 'answer', to: top, text: 'hi', at, receipt: { slug: 'a-b-c', cid: 'bafy', height: 3 } });
  assert.ok(first.ok && first.events.length === 1 && first.events[0]!.type === 'FeedAnswered');
  if (first.ok) evolveFeed(g.state, first.events[0]!);
  assert.equal(g.when({ kind: 'answer', to: top, text: 'again', at }), { ok: true, events: [] });
  assert.equal(g.state.waiting.size, 0);
  const answerKey = first.ok ? first.events[0]!.data.rkey : '';
  assert.equal(g.when({ kind: 'answer', to: answerKey, text: 'to an answer', at }), { ok: true, events: [] });
  const reply = g.when(post('re', { replyTo: top }));
  if (reply.ok) evolveFeed(g.state, reply.events[0]!);
  assert.equal(g.when({ kind: 'answer', to: reply.ok ? reply.events[0]!.data.rkey : '', text: 'x', at }), { ok: true, events: [] });
  assert.equal(g.when({ kind: 'answer', to: '3kabcdefghijk', text: 'x', at }), { ok: true, events: [] });
});

test.run();

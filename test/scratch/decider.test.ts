/**
 * The scratch registry's decider (src/commands/scratch.ts) over its events: a guest's close ends
 * a world as an expiry does, and streams written before worlds could be closed replay as before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLeft } from 'fp-ts/lib/Either.js';
import { decideScratch, evolveScratch, initialScratch, type ScratchState } from '../../src/commands/scratch.js';
import { ScratchEvent } from '../../src/events/scratch.js';
import { limits } from '../../src/contract/limits.js';

const fold = (events: unknown[]): ScratchState => {
  let state = initialScratch();
  for (const raw of events) {
    const decoded = ScratchEvent.decode(raw);
    if (isLeft(decoded)) throw new Error(`does not decode: ${JSON.stringify(raw)}`);
    state = evolveScratch(state, decoded.right);
  }
  return state;
};

// As journaled before a world could be closed: opened, expired, opened again.
const earlier = [
  { type: 'ScratchOpened', data: { name: 'a', world: 'scratch.ann.a.1', at: 0 } },
  { type: 'ScratchOpened', data: { name: 'b', world: 'scratch.ann.b.1', at: 5, from: { world: 'town', height: 3 } } },
  { type: 'ScratchExpired', data: { name: 'a', world: 'scratch.ann.a.1', at: 100, lastTurn: 0 } },
  { type: 'ScratchOpened', data: { name: 'a', world: 'scratch.ann.a.2', at: 200 } },
];

test('earlier streams replay as they did', () => {
  const s = fold(earlier);
  assert.equal([...s.open.keys()].sort(), ['a', 'b']);
  assert.is(s.open.get('a')!.world, 'scratch.ann.a.2');
  assert.equal(s.open.get('b')!.from, { world: 'town', height: 3 });
});

test('close: ends an open world at once and frees its slot; not open is refused', () => {
  const s = fold(earlier);
  const lastTurns = new Map<string, number>();
  const full = decideScratch(s, { kind: 'open', guest: 'ann', name: 'c', now: 300, lastTurns });
  assert.is(full.ok, false);
  const closed = decideScratch(s, { kind: 'close', name: 'b', now: 300, lastTurns });
  assert.ok(closed.ok);
  assert.equal(closed.ok && closed.events, [{ type: 'ScratchClosed', data: { name: 'b', world: 'scratch.ann.b.1', at: 300 } }]);
  const after = fold([...earlier, ...(closed.ok ? closed.events : [])]);
  assert.equal([...after.open.keys()], ['a']);
  const opened = decideScratch(after, { kind: 'open', guest: 'ann', name: 'c', now: 301, lastTurns });
  assert.ok(opened.ok, 'the slot is free');
  assert.equal(decideScratch(after, { kind: 'close', name: 'b', now: 301, lastTurns }), { ok: false, reason: { reason: 'notOpen', name: 'b' } });
  // A world past its time expires rather than closes.
  const late = 200 + limits.scratchLifetimeSeconds * 1000;
  const gone = decideScratch(after, { kind: 'close', name: 'a', now: late, lastTurns });
  assert.equal(gone, { ok: false, reason: { reason: 'notOpen', name: 'a' } });
});

test.run();

/**
 * The scratch registry's decider (src/commands/scratch.ts), given/when/then: each command (open,
 * expire, close) with the exact events it records and each of its refusals. A world lives six
 * hours of home-world clock after its last turn; a guest has at most two open; a guest's close
 * ends a world as an expiry does, and streams written before worlds could be closed replay as
 * before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLeft } from 'fp-ts/lib/Either.js';
import { evolveScratch, initialScratch, type LastTurns, scratchDecider, type ScratchState } from '../../src/commands/scratch.js';
import { ScratchEvent } from '../../src/events/scratch.js';
import { limits } from '../../src/contract/limits.js';
import { refused, specification } from '../support/given.js';

const scratch = specification(scratchDecider);
const life = limits.scratchLifetimeSeconds * 1000;
const none: LastTurns = new Map();

const openedA: ScratchEvent = { type: 'ScratchOpened', data: { name: 'a', world: 'scratch.ann.a.1', at: 0 } };
const openedB: ScratchEvent = { type: 'ScratchOpened', data: { name: 'b', world: 'scratch.ann.b.1', at: 5, from: { world: 'town', height: 3 } } };
const expiredA = (at: number, lastTurn = 0): ScratchEvent => ({ type: 'ScratchExpired', data: { name: 'a', world: 'scratch.ann.a.1', at, lastTurn } });
const closedA = (at: number): ScratchEvent => ({ type: 'ScratchClosed', data: { name: 'a', world: 'scratch.ann.a.1', at } });

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
const earlier: ScratchEvent[] = [
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

test('open: the first world of a name, from the town at a height or empty', () => {
  scratch([]).when({ kind: 'open', guest: 'ann', name: 'a', now: 0, lastTurns: none }).then([openedA]);
  scratch([openedA])
    .when({ kind: 'open', guest: 'ann', name: 'b', from: { world: 'town', height: 3 }, now: 5, lastTurns: none })
    .then([openedB]);
});

test('open: a name opened before gets its next world', () => {
  scratch([openedA, closedA(10)])
    .when({ kind: 'open', guest: 'ann', name: 'a', now: 20, lastTurns: none })
    .then([{ type: 'ScratchOpened', data: { name: 'a', world: 'scratch.ann.a.2', at: 20 } }]);
  scratch([openedA, expiredA(life)])
    .when({ kind: 'open', guest: 'ann', name: 'a', now: life + 1, lastTurns: none })
    .then([{ type: 'ScratchOpened', data: { name: 'a', world: 'scratch.ann.a.2', at: life + 1 } }]);
});

test('open: a world past its time is expired first, in the same decision', () => {
  // a's time is up: its expiry is recorded, and its name opens again as its second world.
  scratch([openedA])
    .when({ kind: 'open', guest: 'ann', name: 'a', now: life, lastTurns: none })
    .then([expiredA(life), { type: 'ScratchOpened', data: { name: 'a', world: 'scratch.ann.a.2', at: life } }]);
  // Two open, one past its time: its slot is free for a third name.
  scratch([openedA, openedB])
    .when({ kind: 'open', guest: 'ann', name: 'c', now: life + 1, lastTurns: new Map([['scratch.ann.b.1', life]]) })
    .then([expiredA(life + 1), { type: 'ScratchOpened', data: { name: 'c', world: 'scratch.ann.c.1', at: life + 1 } }]);
});

test('open: refused alreadyOpen while the name has a world open', () => {
  scratch([openedA])
    .when({ kind: 'open', guest: 'ann', name: 'a', now: 10, lastTurns: none })
    .then(refused({ reason: 'alreadyOpen', world: 'scratch.ann.a.1' }));
  // a later turn keeps it open past its opening's time
  scratch([openedA])
    .when({ kind: 'open', guest: 'ann', name: 'a', now: life, lastTurns: new Map([['scratch.ann.a.1', 1]]) })
    .then(refused({ reason: 'alreadyOpen', world: 'scratch.ann.a.1' }));
});

test('open: refused full at two open, naming the one whose time runs out first', () => {
  scratch([openedA, openedB])
    .when({ kind: 'open', guest: 'ann', name: 'c', now: 10, lastTurns: none })
    .then(refused({ reason: 'full', oldest: 'a', expires: life }));
  // a's later turn makes b the least recently used
  scratch([openedA, openedB])
    .when({ kind: 'open', guest: 'ann', name: 'c', now: 10, lastTurns: new Map([['scratch.ann.a.1', 8]]) })
    .then(refused({ reason: 'full', oldest: 'b', expires: 5 + life }));
  // the earlier stream: a's second world and b
  const outcome = scratch(earlier)
    .when({ kind: 'open', guest: 'ann', name: 'c', now: 300, lastTurns: none })
    .then(refused({ reason: 'full', oldest: 'b', expires: 5 + life }));
  assert.equal(outcome, { ok: false, reason: { reason: 'full', oldest: 'b', expires: 5 + life } });
});

test('expire: records each world past its time, with its last turn; nothing before', () => {
  scratch([]).when({ kind: 'expire', now: life, lastTurns: none }).then([]);
  scratch([openedA, openedB])
    .when({ kind: 'expire', now: life - 1, lastTurns: none })
    .then([]);
  scratch([openedA, openedB])
    .when({ kind: 'expire', now: life, lastTurns: none })
    .then([expiredA(life)]);
  scratch([openedA, openedB])
    .when({ kind: 'expire', now: life + 5, lastTurns: none })
    .then([expiredA(life + 5), { type: 'ScratchExpired', data: { name: 'b', world: 'scratch.ann.b.1', at: life + 5, lastTurn: 5 } }]);
  // the clock of the world's latest entry, not its opening, starts its six hours
  scratch([openedA])
    .when({ kind: 'expire', now: life + 49, lastTurns: new Map([['scratch.ann.a.1', 50]]) })
    .then([]);
  scratch([openedA])
    .when({ kind: 'expire', now: life + 50, lastTurns: new Map([['scratch.ann.a.1', 50]]) })
    .then([expiredA(life + 50, 50)]);
  // a world already ended is not ended again
  scratch([openedA, expiredA(life)])
    .when({ kind: 'expire', now: life + 1, lastTurns: none })
    .then([]);
  scratch([openedA, closedA(10)])
    .when({ kind: 'expire', now: life + 1, lastTurns: none })
    .then([]);
});

test('close: ends an open world at once and frees its slot', () => {
  scratch([openedA, openedB])
    .when({ kind: 'close', name: 'b', now: 300, lastTurns: none })
    .then([{ type: 'ScratchClosed', data: { name: 'b', world: 'scratch.ann.b.1', at: 300 } }]);
  const after = scratch([openedA, openedB, { type: 'ScratchClosed', data: { name: 'b', world: 'scratch.ann.b.1', at: 300 } }]);
  assert.equal([...after.state.open.keys()], ['a']);
  after
    .when({ kind: 'open', guest: 'ann', name: 'c', now: 301, lastTurns: none })
    .then([{ type: 'ScratchOpened', data: { name: 'c', world: 'scratch.ann.c.1', at: 301 } }]);
  after.when({ kind: 'close', name: 'b', now: 301, lastTurns: none }).then(refused({ reason: 'notOpen', name: 'b' }));
  // another world past its time is expired in the same decision
  scratch([openedA, openedB])
    .when({ kind: 'close', name: 'b', now: life + 1, lastTurns: new Map([['scratch.ann.b.1', 100]]) })
    .then([expiredA(life + 1), { type: 'ScratchClosed', data: { name: 'b', world: 'scratch.ann.b.1', at: life + 1 } }]);
});

test('close: refused notOpen for a name with no world open, or one past its time', () => {
  scratch([])
    .when({ kind: 'close', name: 'a', now: 10, lastTurns: none })
    .then(refused({ reason: 'notOpen', name: 'a' }));
  scratch([openedA, closedA(10)])
    .when({ kind: 'close', name: 'a', now: 11, lastTurns: none })
    .then(refused({ reason: 'notOpen', name: 'a' }));
  scratch([openedA, expiredA(life)])
    .when({ kind: 'close', name: 'a', now: life + 1, lastTurns: none })
    .then(refused({ reason: 'notOpen', name: 'a' }));
  // A world past its time expires rather than closes: nothing is recorded by a refusal.
  scratch([openedA])
    .when({ kind: 'close', name: 'a', now: life, lastTurns: none })
    .then(refused({ reason: 'notOpen', name: 'a' }));
});

test('evolve: an end names its world, so a stale end of an earlier world leaves the name open', () => {
  const given = scratch([openedA, expiredA(life), { type: 'ScratchOpened', data: { name: 'a', world: 'scratch.ann.a.2', at: life + 1 } }, closedA(life + 2)]);
  assert.is(given.state.open.get('a')?.world, 'scratch.ann.a.2');
  assert.is(given.state.opened.get('a'), 2);
});

test.run();

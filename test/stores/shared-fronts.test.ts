/**
 * What the fronts of one box share (src/stores/embedded/shared-fronts.ts): a rate limiter whose
 * logs two fronts both spend from means the same as one limiter in memory (the budget, the
 * refusal's wait, the window sliding); read-your-writes notes only move forward; idle logs are
 * swept. Two handles on one directory stand for two fronts (the multi-process run is
 * test/faults/embedded-fronts.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLimiter } from '../../src/contract/rate-limit.js';
import { SharedFronts } from '../../src/stores/embedded/shared-fronts.js';

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

test('two fronts spend one budget, refused with the same wait as a limiter in memory, and the window slides', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-shared-'));
  let now = 1_000_000;
  const clock = () => now;
  const a = SharedFronts.open(dir);
  const b = SharedFronts.open(dir);
  try {
    const budget = { limit: 4, windowSeconds: 60 };
    const la = a.limiter('credential', budget, clock);
    const lb = b.limiter('credential', budget, clock);
    const memory = createLimiter(budget, clock);
    const taken: boolean[] = [];
    const expected: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      taken.push((i % 2 ? lb : la).take('k').ok);
      expected.push(memory.take('k').ok);
      now += 1000;
    }
    assert.equal(taken, expected);
    assert.equal(taken, [true, true, true, true, false, false]);
    const refused = la.take('k');
    assert.equal(refused, { ...memory.take('k'), remaining: 0 });
    assert.is(la.peek('k').remaining, 0);
    assert.is(la.size, 1);
    // Another budget and another key are apart.
    assert.ok(lb.take('other').ok);
    assert.ok(b.limiter('identity', budget, clock).take('k').ok);
    // The window slides: the first call leaves it 60 s after it was made.
    now = 1_000_000 + 60_001;
    assert.ok(lb.take('k').ok);
    assert.not.ok(la.take('k').ok);
  } finally {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('notes move only forward, and a front reads the note another made', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-shared-'));
  const a = SharedFronts.open(dir);
  const b = SharedFronts.open(dir);
  try {
    assert.is(b.get('guest:t:ann'), undefined);
    a.note('guest:t:ann', 42n);
    // A read sees what was committed before the event turn it runs in (lmdb renews its read
    // snapshot between turns): a guest's next request is a turn of its own.
    await nextTurn();
    assert.is(b.get('guest:t:ann'), 42n);
    b.note('guest:t:ann', 40n);
    await nextTurn();
    assert.is(a.get('guest:t:ann'), 42n);
    b.note('guest:t:ann', 50n);
    await nextTurn();
    assert.is(a.get('guest:t:ann'), 50n);
  } finally {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('logs whose calls all left the window are swept', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-shared-'));
  let now = 5_000_000;
  const shared = SharedFronts.open(dir);
  try {
    const limiter = shared.limiter('page', { limit: 8, windowSeconds: 1 }, () => now);
    for (let i = 0; i < 50; i++) limiter.take(`addr-${i}`);
    assert.is(limiter.size, 50);
    now += 61_000;
    limiter.take('fresh');
    assert.is(limiter.size, 1);
  } finally {
    await shared.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

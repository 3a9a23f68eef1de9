import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLimiter, defaultLimiters } from '../../src/contract/rate-limit.js';

const clockAt = (start = 0) => {
  const c = { now: start, clock: () => c.now };
  return c;
};

test('admits `limit` calls in a window, then refuses with the seconds until the oldest leaves', () => {
  const c = clockAt(10_000);
  const l = createLimiter({ limit: 3, windowSeconds: 60 }, c.clock);
  assert.equal(l.take('k'), { ok: true, limit: 3, windowSeconds: 60, remaining: 2, retryAfterSeconds: 0 });
  c.now += 10_000;
  l.take('k');
  c.now += 10_000;
  assert.is(l.take('k').remaining, 0);
  const refused = l.take('k');
  assert.equal([refused.ok, refused.remaining, refused.retryAfterSeconds], [false, 0, 40]);
  c.now += 39_999;
  assert.is(l.take('k').ok, false, 'still inside the window of the first call');
  c.now += 1;
  assert.is(l.take('k').ok, true, 'the first call has left the window');
});

test('it is a sliding window: no burst of twice the limit across a window edge', () => {
  const c = clockAt();
  const l = createLimiter({ limit: 4, windowSeconds: 60 }, c.clock);
  c.now = 59_000;
  for (let i = 0; i < 4; i++) assert.ok(l.take('k').ok);
  c.now = 61_000; // a fixed window would have reset at 60 s
  assert.is(l.take('k').ok, false);
  assert.is(l.take('k').retryAfterSeconds, 58);
});

test('refused calls are not counted', () => {
  const c = clockAt();
  const l = createLimiter({ limit: 2, windowSeconds: 10 }, c.clock);
  l.take('k');
  l.take('k');
  for (let i = 0; i < 50; i++) l.take('k');
  c.now += 10_000;
  assert.is(l.take('k').remaining, 1, 'a knocking caller is back after one window');
});

test('peek reports the same counter without spending', () => {
  const c = clockAt();
  const l = createLimiter({ limit: 32, windowSeconds: 60 }, c.clock);
  assert.equal(l.peek('k'), { limit: 32, windowSeconds: 60, remaining: 32 });
  l.take('k');
  l.take('k');
  assert.equal(l.peek('k'), { limit: 32, windowSeconds: 60, remaining: 30 });
  assert.equal(l.peek('k'), { limit: 32, windowSeconds: 60, remaining: 30 });
  c.now += 60_000;
  assert.is(l.peek('k').remaining, 32);
});

test('keys are separate', () => {
  const l = createLimiter({ limit: 1, windowSeconds: 60 }, () => 0);
  assert.ok(l.take('a').ok);
  assert.not.ok(l.take('a').ok);
  assert.ok(l.take('b').ok);
});

test('memory is bounded: idle keys are swept, and at most maxKeys are held', () => {
  const c = clockAt();
  const l = createLimiter({ limit: 2, windowSeconds: 1 }, c.clock, 1000);
  for (let i = 0; i < 5000; i++) l.take(`k${i}`);
  assert.is(l.size, 1000);
  c.now += 2000;
  for (let i = 0; i < 3000; i++) l.take(`fresh${i % 10}`);
  assert.ok(l.size <= 1000);
  assert.ok(l.size < 20, `idle keys swept, ${l.size} left`);
});

test('the default budgets are those of spec 8', () => {
  const d = defaultLimiters(() => 0);
  assert.equal([d.credential.limit, d.credential.windowSeconds], [32, 60]);
  assert.equal([d.identity.limit, d.identity.windowSeconds], [16, 60]);
  assert.equal([d.page.limit, d.page.windowSeconds], [32, 60]);
  assert.equal([d.xrpc.limit, d.xrpc.windowSeconds], [32, 60]);
});

test('the log grows with use, not with the limit: a huge limit costs nothing up front and still counts exactly', () => {
  let now = 0;
  const huge = createLimiter({ limit: 1e9, windowSeconds: 60 }, () => now);
  const before = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 1000; i++) huge.take(`key-${i}`);
  assert.ok(process.memoryUsage().arrayBuffers - before < 10_000_000, 'a thousand keys with a 1e9 limit fit in a few MB');
  assert.is(huge.peek('key-1').remaining, 1e9 - 1);

  // Growth across wrap-around keeps the oldest call first: 20 calls with a limit of 20, the
  // first ten leave the window, ten more arrive (the ring wraps), and exactly one is refused.
  const small = createLimiter({ limit: 20, windowSeconds: 10 }, () => now);
  for (let i = 0; i < 10; i++) assert.ok(small.take('k').ok);
  now = 5_000;
  for (let i = 0; i < 10; i++) assert.ok(small.take('k').ok);
  now = 10_001; // the first ten have left the window
  for (let i = 0; i < 10; i++) assert.ok(small.take('k').ok);
  const refused = small.take('k');
  assert.is(refused.ok, false);
  assert.is(refused.retryAfterSeconds, 5); // the oldest (t=5000) leaves at 15000
  assert.is(small.peek('k').remaining, 0);
});

test.run();

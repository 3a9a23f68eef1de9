/** The ring of this session's newest durable frames (src/stores/embedded/recent-frames.ts). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RecentFrames } from '../../src/stores/embedded/recent-frames.js';

test('keeps the newest positions, contiguous, up to its capacity', () => {
  const r = new RecentFrames(8);
  assert.not.ok(r.has(1), 'empty');
  r.add(11, 'a', [100, 200, 300]);
  assert.ok(r.has(11) && r.has(13));
  assert.not.ok(r.has(10) || r.has(14));
  assert.is(r.streamAt(12), 'a');
  assert.is(r.offsetAt(13), 300);
  r.add(14, 'b', [400, 500, 600, 700, 800, 900, 1000]);
  assert.not.ok(r.has(12), 'the oldest fell out');
  assert.ok(r.has(13) && r.has(20));
  assert.is(r.streamAt(13), 'a');
  assert.is(r.offsetAt(13), 300);
  assert.is(r.streamAt(20), 'b');
  assert.is(r.offsetAt(20), 1000);
});

test('a gap starts it over', () => {
  const r = new RecentFrames(8);
  r.add(1, 'a', [10, 20]);
  r.add(5, 'b', [50]);
  assert.not.ok(r.has(1) || r.has(2) || r.has(4));
  assert.ok(r.has(5));
  assert.is(r.streamAt(5), 'b');
});

test.run();

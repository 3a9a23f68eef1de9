/**
 * The MongoDB read store's change stream on its checkpoints (mongo/restarting-stream.ts): one failure
 * no longer turns it off for the life of the process. A failed stream is closed and opened
 * again after a backoff that doubles up to its ceiling and starts afresh once a stream delivers,
 * each restart counted (what /metrics shows as town_read_store_change_stream_restarts_total);
 * closing stops it for good. A fake stream and a manual timer stand for the driver and time.
 */
import { EventEmitter } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RestartingStream, type StreamLike } from '../../src/stores/mongo/restarting-stream.js';

class FakeStream extends EventEmitter implements StreamLike {
  closed = false;
  async close(): Promise<void> {
    this.closed = true;
  }
}

function harness(opts: { failOpen?: () => boolean } = {}) {
  const streams: FakeStream[] = [];
  const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const changes: unknown[] = [];
  const errors: unknown[] = [];
  const stream = new RestartingStream({
    open: () => {
      if (opts.failOpen?.()) throw new Error('cannot open');
      const s = new FakeStream();
      streams.push(s);
      return s;
    },
    onChange: (c) => changes.push(c),
    onError: (e) => errors.push(e),
    firstMs: 100,
    maxMs: 1000,
    setTimer: (fn, ms) => {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return { cancel: () => void (t.cancelled = true) };
    },
  });
  /** Runs the newest timer, as its time passing would. */
  const fire = () => {
    const t = timers.at(-1)!;
    assert.not.ok(t.cancelled, 'a live timer');
    t.fn();
  };
  return { stream, streams, timers, changes, errors, fire };
}

test('a failed change stream is opened again after a doubling backoff, each restart counted', () => {
  const h = harness();
  assert.is(h.streams.length, 1);
  assert.ok(h.stream.open);
  h.streams[0]!.emit('change', { documentKey: { _id: 'cards' } });
  assert.equal(h.changes, [{ documentKey: { _id: 'cards' } }]);

  h.streams[0]!.emit('error', new Error('primary stepped down'));
  assert.ok(h.streams[0]!.closed, 'the failed stream is closed');
  assert.not.ok(h.stream.open, 'none open while waiting');
  assert.is(h.errors.length, 1);
  assert.is(h.timers.at(-1)!.ms, 100);
  assert.is(h.stream.restarts, 0);
  h.fire();
  assert.is(h.streams.length, 2, 'opened again');
  assert.is(h.stream.restarts, 1);
  // Failing again at once: the wait doubles, up to its ceiling.
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    h.streams.at(-1)!.emit('error', new Error('again'));
    waits.push(h.timers.at(-1)!.ms);
    h.fire();
  }
  assert.equal(waits, [200, 400, 800, 1000, 1000, 1000]);
  assert.is(h.stream.restarts, 7);
  // A stream that delivers resets the backoff; a late event of an old stream is not heard.
  h.streams.at(-1)!.emit('change', 'fresh');
  h.streams[0]!.emit('change', 'stale');
  assert.equal(h.changes.at(-1), 'fresh');
  h.streams.at(-1)!.emit('error', new Error('once more'));
  assert.is(h.timers.at(-1)!.ms, 100);
  h.streams[1]!.emit('error', new Error('an old stream failing again changes nothing'));
  assert.is(h.timers.filter((t) => !t.cancelled).length, h.timers.length);
  assert.is(h.errors.length, 8, "the old stream's failure is not one");
});

test('a stream that cannot be opened is retried as a failure is; close stops everything', async () => {
  let failing = true;
  const h = harness({ failOpen: () => failing });
  assert.is(h.streams.length, 0);
  assert.is(h.errors.length, 1);
  h.fire();
  assert.is(h.timers.at(-1)!.ms, 200, 'failed again: a longer wait');
  failing = false;
  h.fire();
  assert.is(h.streams.length, 1);
  assert.is(h.stream.restarts, 2);
  h.streams[0]!.emit('error', new Error('down'));
  await h.stream.close();
  assert.ok(h.timers.at(-1)!.cancelled, 'the pending restart is cancelled');
  h.timers.at(-1)!.fn();
  assert.is(h.streams.length, 1, 'nothing opens after close');
  const open = harness();
  await open.stream.close();
  assert.ok(open.streams[0]!.closed, 'close closes the open stream');
});

test.run();

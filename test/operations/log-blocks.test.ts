/**
 * The request log's blocks (src/operations/log-blocks.ts): every line reaches the destination, in
 * order and byte for byte, in blocks of at least the block size; what waits is written by the
 * timer, by flush and by flushSync; the town's request line takes its direct path through it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requestLine } from '../../src/http/front/observe.js';
import { LineBlocks } from '../../src/operations/log-blocks.js';
import { townLog } from '../../src/operations/log.js';

function sink() {
  const writes: string[] = [];
  let flushes = 0;
  let syncFlushes = 0;
  return {
    writes,
    flushes: () => flushes,
    syncFlushes: () => syncFlushes,
    write: (text: string) => writes.push(text),
    flush: (cb?: (err?: Error) => void) => {
      flushes++;
      cb?.();
    },
    flushSync: () => void syncFlushes++,
  };
}

test('lines reach the sink in order, in blocks of at least the block size', () => {
  const s = sink();
  const blocks = new LineBlocks(s, 100, 60_000);
  const lines = Array.from({ length: 25 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(i)}"}\n`);
  for (const l of lines) blocks.write(l);
  assert.ok(s.writes.length >= 2, 'several blocks were written');
  for (const w of s.writes) assert.ok(w.length >= 100, `a block of ${w.length} characters`);
  blocks.flushSync();
  assert.is(s.writes.join(''), lines.join(''), 'every line, in order, byte for byte');
  assert.is(s.syncFlushes(), 1);
  blocks.end();
});

test('flush hands over what waits and calls back; the timer writes a quiet log', async () => {
  const s = sink();
  const blocks = new LineBlocks(s, 4096, 20);
  blocks.write('{"a":1}\n');
  assert.is(s.writes.length, 0, 'a short line waits for its block');
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(s.writes, ['{"a":1}\n'], 'the timer wrote it');
  blocks.write('{"b":2}\n');
  let called = false;
  blocks.flush(() => (called = true));
  assert.equal(s.writes, ['{"a":1}\n', '{"b":2}\n']);
  assert.ok(called);
  blocks.end();
});

test("the town log's request line goes through the blocks, as pino writes it", () => {
  const s = sink();
  const blocks = new LineBlocks(s, 4096, 60_000);
  const log = townLog({ destination: blocks });
  const direct = requestLine(log);
  assert.type(direct, 'function');
  direct!('r-1', 'POST', 'turn', 200, 1.5, 'abcd');
  log.info({ req: 'r-2', method: 'GET', route: 'object', status: 200, ms: 0.25 }, 'request');
  log.flush();
  const lines = s.writes
    .join('')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(
    lines.map((l) => [l.req, l.route, l.status, l.ms, l.principal, l.msg]),
    [
      ['r-1', 'turn', 200, 1.5, 'abcd', 'request'],
      ['r-2', 'object', 200, 0.25, undefined, 'request'],
    ],
  );
  blocks.end();
});

test.run();

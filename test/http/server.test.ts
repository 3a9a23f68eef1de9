/** Graceful close: stop accepting, let requests being worked on finish, then resolve. */
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { raw, req, sleep, startTown } from './helpers.js';

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(true));
  });

test('close() lets a request in flight finish, refuses new connections, then resolves', async () => {
  let entered = false;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const t = await startTown({
    handlers: {
      health: async () => {
        entered = true;
        await gate;
        return { finished: true };
      },
    },
  });
  const inflight = raw(t.port, req('GET', '/health', { close: false }), { timeoutMs: 5000 });
  for (let i = 0; i < 100 && !entered; i++) await sleep(10);
  assert.ok(entered);
  // an idle kept-alive connection and a half-sent request do not hold the close up
  const idle = net.connect(t.port, '127.0.0.1');
  const half = net.connect(t.port, '127.0.0.1', () => half.write('GET /health HTTP/1.1\r\n'));
  for (const s of [idle, half]) s.on('error', () => {});
  await sleep(50);
  let closed = false;
  const closing = t.close().then(() => (closed = true));
  await sleep(50);
  assert.ok(await refused(t.port), 'no new connections once closing');
  assert.not.ok(closed, 'still waiting for the request in flight');
  release();
  const r = await inflight;
  assert.is(r.status, 200);
  assert.is(r.json.finished, true);
  assert.is(r.headers.connection, 'close', 'the last reply says the connection closes');
  await closing;
  assert.ok(closed);
  assert.ok(idle.destroyed || idle.readableEnded || (await new Promise((res) => idle.once('close', () => res(true)))));
});

test('close() resolves promptly when nothing is in flight', async () => {
  const t = await startTown();
  const kept = net.connect(t.port, '127.0.0.1', () => kept.write(req('GET', '/health', { close: false })));
  kept.on('error', () => {});
  await sleep(100);
  const started = Date.now();
  await t.close();
  assert.ok(Date.now() - started < 500, `closed in ${Date.now() - started} ms`);
});

test.run();

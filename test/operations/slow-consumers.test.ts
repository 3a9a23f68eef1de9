/**
 * Slow consumers: a reader of the firehose, of a live (SSE) stream or of an MCP session's stream
 * that stops reading while 10,000 events pass is dropped once what waits unsent for it passes
 * its stream's cap; the server's buffered bytes for it never pass the cap by more than one
 * message, and the drop is counted in /metrics (town_slow_consumers_dropped_total).
 *
 * The readers pause their sockets. The live and MCP readers connect over a Unix socket, whose
 * kernel buffer (about 200 KB) is small beside what 10,000 of their small events make; over
 * loopback TCP the kernel would take some 4 MB before the server held a byte.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { World } from '../../src/cards/kernel/world.js';
import type { Programs } from '../../src/cards/kernel/programs.js';
import type { TownContext } from '../../src/http/handler.js';
import { SlowConsumerDrops } from '../../src/operations/metrics.js';
import { liveChannels } from '../../src/pages/live.js';
import { Firehose } from '../../src/repository/firehose.js';
import type { FrameDoc } from '../../src/repository/projection.js';
import type { ReadStore } from '../../src/stores/read-store.js';
import { request, startTestTown } from '../world/support.js';
import { eventually } from '../mcp/support.js';

const test = suite('slow consumers');
const events = 10_000;
const tick = () => new Promise((r) => setImmediate(r));

function socketPath(name: string): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'slow-')), `${name}.sock`);
}

/** Sends `head` on a Unix socket and stops reading once the first bytes of the answer arrive. */
function pausedReader(at: string, head: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const c = net.connect(at, () => c.write(head));
    c.once('error', reject);
    c.once('data', () => {
      c.pause();
      resolve(c);
    });
  });
}

test('a live stream whose reader stops reading is ended and counted; what waits for it stays under the cap', async () => {
  const slowBytes = 32 * 1024;
  const drops = new SlowConsumerDrops();
  const listeners = new Set<(entries: readonly unknown[], position: bigint) => void>();
  const world = {
    height: 0,
    committed: {} as World,
    onCommit(listener: (entries: readonly unknown[], position: bigint) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const channels = liveChannels({ world, programs: {} as Programs, slowBytes, onSlowDrop: () => drops.drop('live') });
  let res: http.ServerResponse | undefined;
  const server = http.createServer((req, response) => {
    res = response;
    const ctx = {
      req,
      res: response,
      method: req.method,
      get: (name: string) => String(req.headers[name.toLowerCase()] ?? ''),
      state: { session: 's', address: 'a', query: {} },
    } as unknown as TownContext;
    channels.moved(ctx);
  });
  const at = socketPath('live');
  await new Promise<void>((r) => server.listen(at, r));
  const reader = await pausedReader(at, 'GET /live HTTP/1.1\r\nHost: town.test\r\n\r\n');
  let most = 0;
  for (let i = 1; i <= events; i++) {
    world.height = i;
    for (const l of listeners) l([], BigInt(i));
    await tick();
    if (i % 50 === 0) most = Math.max(most, res?.writableLength ?? 0);
  }
  await tick();
  assert.is(drops.count('live'), 1, 'the reader is dropped once');
  assert.is(channels.open, 0, 'its stream no longer counts as open');
  assert.is(listeners.size, 0, 'nor listens to commits');
  assert.ok(most <= slowBytes + 256, `at most the cap and one frame waited: ${most} bytes`);
  assert.ok(res!.destroyed, 'its socket is cut');
  reader.destroy();
  server.close();
});

test('a firehose subscriber that stops reading gets 1008 and is cut off; its unsent bytes stay under the cap', async () => {
  const slowBytes = 256 * 1024;
  const did = 'did:web:town.test';
  const commit = CID.create(1, 0x71, await sha256.digest(new Uint8Array([1]))).toString();
  const blocks = Buffer.alloc(4096, 7).toString('base64');
  const frames: FrameDoc[] = [];
  const byId = (a: FrameDoc, b: FrameDoc) => (a._id < b._id ? -1 : 1);
  const reads = {
    collection: (name: string) => ({
      async findOne() {
        return name === 'head' || name.endsWith('head') ? { _id: 'head', did } : { _id: 'head', did };
      },
      async find(filter: { _id?: { $gt: string } }, options: { sort: { _id: number }; limit: number }) {
        const after = filter._id?.$gt;
        const kept = frames.filter((f) => after === undefined || f._id > after).sort(byId);
        if (options.sort._id < 0) kept.reverse();
        return kept.slice(0, options.limit);
      },
    }),
  } as unknown as ReadStore;
  const listeners = new Set<() => void>();
  const drops = new SlowConsumerDrops();
  const hose = new Firehose({
    reads,
    port: 0,
    host: '127.0.0.1',
    slowBytes,
    onSlowDrop: () => drops.drop('firehose'),
    onAdvance(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  });
  const port = await hose.start();
  const ws = new WebSocket(`ws://127.0.0.1:${port}/xrpc/com.atproto.sync.subscribeRepos`);
  await new Promise((r) => ws.once('open', r));
  (ws as unknown as { _socket: net.Socket })._socket.pause();
  await eventually(() => (hose.subscribed === 1 ? true : undefined), 2000, 'the subscription');
  const subscriber = [...(hose as unknown as { subscribers: Set<{ socket: WebSocket }> }).subscribers][0]!;
  let most = 0;
  for (let seq = 1; seq <= events; seq++) {
    frames.push({
      _id: String(seq).padStart(16, '0'),
      seq,
      commit,
      rev: `rev${seq}`,
      since: null,
      ops: [],
      blocks,
      time: new Date(0).toISOString(),
      height: seq,
    });
    if (frames.length > 64) frames.shift();
    for (const l of listeners) l();
    if (seq % 16 === 0) {
      await tick();
      most = Math.max(most, subscriber.socket.bufferedAmount);
    }
  }
  assert.is(drops.count('firehose'), 1, 'the subscriber is dropped once');
  assert.is(hose.subscribed, 0);
  assert.ok(most <= slowBytes + 8 * 1024, `at most the cap and one frame waited: ${most} bytes`);
  await eventually(() => (subscriber.socket.readyState === WebSocket.CLOSED ? true : undefined), 3000, 'the cut');
  ws.terminate();
  await hose.close();
});

test('an MCP stream whose reader stops reading is ended, the session kept, the drop in /metrics', async () => {
  const t = await startTestTown({ mcp: { slowBytes: 32 * 1024 } });
  const at = socketPath('mcp');
  const server = http.createServer(t.town.app.callback());
  const opened: http.ServerResponse[] = [];
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.method === 'GET') opened.push(res);
  });
  await new Promise<void>((r) => server.listen(at, r));
  try {
    const ann = await t.guest('ann');
    const init = await request(t.base, 'POST', '/mcp', {
      token: ann.token,
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'slow', version: '1' } },
      },
      headers: { accept: 'application/json, text/event-stream' },
    });
    const id = String(init.headers['mcp-session-id']);
    assert.ok(id.length > 8, init.text);
    const reader = await pausedReader(
      at,
      `GET /mcp HTTP/1.1\r\nHost: town.test\r\nAuthorization: Bearer ${ann.token}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${id}\r\n\r\n`,
    );
    const session = t.town.mcp.sessions.list()[0]!;
    await eventually(() => (session.streaming ? true : undefined), 2000, 'the stream');
    let most = 0;
    for (let i = 0; i < events; i++) {
      session.moved('lamp');
      if (i % 50 === 0) {
        await tick();
        most = Math.max(most, ...opened.map((r) => (r.destroyed ? 0 : r.writableLength)));
      }
    }
    await eventually(() => (!session.streaming ? true : undefined), 2000, 'the stream ended');
    assert.ok(most <= 32 * 1024 + 1024, `at most the cap and one message waited: ${most} bytes`);
    assert.is(t.town.mcp.sessions.size, 1, 'the session is kept: its client reconnects');
    const metrics = (await t.request('GET', '/metrics')).text;
    assert.match(metrics, /town_slow_consumers_dropped_total\{stream="mcp"\} 1/);
    reader.destroy();
  } finally {
    server.close();
    await t.close();
  }
});

test.run();

/**
 * A body announced over the route's limit is refused at once (413 `bodyTooLarge`, the spec's
 * envelope), before a byte of it is read, and the connection closes: a client that sends only
 * the head holds no worker and no connection. Found from outside: co-body truncated the length
 * to 32 bits, so 2^31 and more waited 30 s for the body and answered 408; 2^64 and more were
 * Node's parser's `badRequest`. A chunked body that passes the limit is refused as it arrives.
 */
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { declaredOver } from '../../src/http/request-body.js';
import { largestBody } from '../../src/http/request-scanner.js';
import { routesFor } from '../../src/http/routes.js';
import type { SomeHandlers } from '../../src/http/route-types.js';
import { assertServing, parseReply, raw, req, startTown, type Town } from './helpers.js';

const handlers: SomeHandlers = {
  accept: async () => ({ accepted: true }),
  turn: async () => ({ turned: true }),
};

let town: Town;
test.before(async () => {
  // One worker, and a request clock far longer than any wait below: a refusal that waited for
  // the body, or a connection that held the worker, would show.
  town = await startTown({ handlers, workers: 1, serve: { requestSeconds: 20 } });
});
test.after(async () => {
  await town.close();
});

interface HeadOnly {
  status: number;
  json: any;
  headers: Record<string, string>;
  /** Milliseconds from sending the head to the whole reply. */
  answeredMs: number;
  /** Milliseconds from sending the head to the server's close (undefined: still open). */
  closedMs?: number;
}

/** Sends only the head of a POST declaring `length` bytes, and keeps the socket open. */
function headOnly(path: string, length: string, headers: Record<string, string> = {}): Promise<HeadOnly> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(town.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const started = Date.now();
    let answered: { status: number; json: any; headers: Record<string, string>; answeredMs: number } | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      if (answered) resolve(answered);
      else reject(new Error(`no answer to Content-Length ${length} in 3 s`));
    }, 3000);
    socket.on('error', () => {});
    socket.on('data', (d) => {
      chunks.push(d);
      const r = parseReply(Buffer.concat(chunks));
      if (r && !answered) answered = { status: r.status, json: r.json, headers: r.headers, answeredMs: Date.now() - started };
    });
    socket.on('end', () => {
      clearTimeout(timer);
      socket.destroy();
      if (!answered) return reject(new Error('closed without an answer'));
      resolve({ ...answered, closedMs: Date.now() - started });
    });
    const extra = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST ${path} HTTP/1.1\r\nHost: town.test\r\nContent-Type: application/json\r\n${extra}Content-Length: ${length}\r\n\r\n`);
  });
}

const assertRefusedAtOnce = (r: HeadOnly, what: string) => {
  assert.is(r.status, 413, what);
  assert.is(r.json?.class, 'bodyTooLarge', what);
  assert.is(r.json?.status, 'error', what);
  assert.type(r.json?.message, 'string');
  assert.ok(r.json?._links?.self, `${what}: the envelope has _links`);
  // The wire's refusal (no route reads that much) and the route's carry the same security headers.
  assert.match(r.headers['content-security-policy'] ?? '', "frame-ancestors 'none'", what);
  assert.is(r.headers['x-content-type-options'], 'nosniff', what);
  assert.is(r.headers['x-frame-options'], 'DENY', what);
  assert.ok(r.answeredMs < 1000, `${what}: answered in ${r.answeredMs} ms, not after a wait for the body`);
  assert.ok(r.closedMs !== undefined && r.closedMs < 1500, `${what}: the connection closed (${r.closedMs} ms)`);
};

const declarations = [
  String(limits.bodyBytesUnauthenticated + 1),
  '2147483647',
  '2147483648',
  '4294967296',
  '4294967297',
  '9007199254740993',
  '18446744073709551615',
  '18446744073709551616',
  '99999999999999999999',
  `000${limits.bodyBytes + 1}`,
];

test('a declared length over the route limit is 413 bodyTooLarge at once, before the body, from 65537 to 99999999999999999999', async () => {
  for (const length of declarations) {
    assertRefusedAtOnce(await headOnly('/AGENTS.md/accept', length), `accept, Content-Length ${length}`);
  }
  // A bearer route reads 262144: one byte more is refused as soon as the route is known.
  for (const length of [String(limits.bodyBytes + 1), '2147483648', '99999999999999999999']) {
    assertRefusedAtOnce(await headOnly('/AGENTS.md/world/lamp/light', length, { Authorization: 'Bearer ada-credential' }), `turn, Content-Length ${length}`);
  }
  await assertServing(town.port);
});

test('a client that sends only an oversize head holds no worker: the one worker serves the next request at once', async () => {
  // Several heads at once, each left open by its client; with one worker, a refusal that held it
  // would make the request after them `busy`.
  const refused = await Promise.all(['2147483648', '4294967296', String(limits.bodyBytes + 1)].map((l) => headOnly('/AGENTS.md/accept', l)));
  for (const r of refused) assert.is(r.status, 413);
  const next = await raw(town.port, req('POST', '/AGENTS.md/accept', { headers: { 'Content-Type': 'application/json' }, body: '{"code":"abc"}' }));
  assert.is(next.status, 200);
  assert.is(next.json.accepted, true);
});

test('a body within the limit is still read, whatever zeros lead its length', async () => {
  const body = '{"code":"abc"}';
  const r = await raw(town.port, [
    `POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nContent-Type: application/json\r\nContent-Length: 000${body.length}\r\nConnection: close\r\n\r\n`,
    body,
  ]);
  assert.is(r.status, 200);
  assert.is(r.json.accepted, true);
});

test('a chunked body that never ends is refused 413 as soon as it passes the limit, and the connection closes', async () => {
  const started = Date.now();
  const r = await new Promise<{ status: number; cls: string; ms: number; closed: boolean }>((resolve, reject) => {
    const socket = net.connect(town.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let stop = false;
    let result: { status: number; cls: string; ms: number } | undefined;
    socket.on('error', () => {});
    socket.on('data', (d) => {
      chunks.push(d);
      const p = parseReply(Buffer.concat(chunks));
      if (p && !result) result = { status: p.status, cls: p.json?.class, ms: Date.now() - started };
    });
    socket.on('end', () => {
      stop = true;
      socket.destroy();
      if (result) resolve({ ...result, closed: true });
      else reject(new Error('closed without an answer'));
    });
    setTimeout(() => {
      stop = true;
      socket.destroy();
      if (result) resolve({ ...result, closed: false });
      else reject(new Error('no answer in 4 s'));
    }, 4000);
    socket.write('POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = `{"code":"${'x'.repeat(8000)}`;
    const piece = `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`;
    // 8 KB every 10 ms, with no last chunk: the limit (65536) passes after about 80 ms.
    const pump = () => {
      if (stop || socket.destroyed) return;
      socket.write(piece);
      setTimeout(pump, 10);
    };
    pump();
  });
  assert.is(r.status, 413);
  assert.is(r.cls, 'bodyTooLarge');
  assert.ok(r.ms < 2000, `refused after ${r.ms} ms`);
  assert.ok(r.closed, 'the server closed the connection rather than drain a body without end');
  await assertServing(town.port);
});

test('the length check reads the declaration as text, not as a 32-bit number', () => {
  assert.is(declaredOver('65536', 65536), false);
  assert.is(declaredOver('65537', 65536), true);
  assert.is(declaredOver('0000065536', 65536), false);
  assert.is(declaredOver('2147483648', 65536), true);
  assert.is(declaredOver('4294967296', 65536), true, '2^32 truncates to 0 in 32 bits');
  assert.is(declaredOver('99999999999999999999', 65536), true);
  assert.is(declaredOver('0', 65536), false);
});

test('the wire refuses only what no route reads: every route limit is within the largest', () => {
  for (const r of routesFor(true)) assert.ok(r.bodyLimit <= largestBody, `${r.name} reads ${r.bodyLimit}, over the wire's ${largestBody}`);
});

test.run();

/**
 * The front's koa-level answers over raw sockets: body limits, JSON depth, 404/405/501, busy,
 * replyTooLarge and internal. Each checks status, class, and that the next connection is served.
 */
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import type { TownContext } from '../../src/http/handler.js';
import type { SomeHandlers } from '../../src/http/route-types.js';
import { assertEnvelope, assertServing, raw, req, sleep, startTown, type Town } from './helpers.js';

const bearer = { Authorization: 'Bearer ada-credential' };
const json = { 'Content-Type': 'application/json' };

/** Test handlers that report what reached them. */
const echo: SomeHandlers = {
  accept: async (ctx) => ({ bytes: (ctx.state.body as { code: string }).code.length }),
  turn: async (ctx) => ({ object: ctx.params.object, method: ctx.params.method, scratch: ctx.state.scratch ?? null, body: ctx.state.body }),
  deliver: async (ctx) => ({ received: ctx.state.body !== undefined }),
  static: async (ctx) => {
    ctx.type = 'application/octet-stream';
    ctx.body = Buffer.alloc(Number(ctx.params.file));
  },
};

let town: Town;
test.before(async () => {
  town = await startTown({ handlers: echo });
});
test.after(async () => {
  await town.close();
});

const expectError = async (bytes: Buffer | string, status: number, cls: string) => {
  const r = await raw(town.port, bytes);
  assertEnvelope(r, status, cls);
  await assertServing(town.port);
  return r;
};

/** A JSON object of exactly `n` bytes: {"code":"xxxx"}. */
const objectOfBytes = (n: number) => `{"code":"${'x'.repeat(n - '{"code":""}'.length)}"}`;

test('accept (unauthenticated identity call) reads 65536 bytes; 65537 is 413 bodyTooLarge', async () => {
  const ok = await raw(town.port, req('POST', '/AGENTS.md/accept', { headers: json, body: objectOfBytes(limits.bodyBytesUnauthenticated) }));
  assert.is(ok.status, 200);
  assert.is(ok.json.bytes, limits.bodyBytesUnauthenticated - 11);
  const r = await expectError(
    req('POST', '/AGENTS.md/accept', { headers: json, body: objectOfBytes(limits.bodyBytesUnauthenticated + 1) }),
    413,
    'bodyTooLarge',
  );
  assert.match(r.json.message, String(limits.bodyBytesUnauthenticated));
});

test('a turn reads 262144 bytes; 262145 is 413 bodyTooLarge', async () => {
  const body = (n: number) => `{"intent":"i","fields":{"t":"${'x'.repeat(n - '{"intent":"i","fields":{"t":""}}'.length)}"}}`;
  const ok = await raw(town.port, req('POST', '/AGENTS.md/world/box/open', { headers: { ...bearer, ...json }, body: body(limits.bodyBytes) }));
  assert.is(ok.status, 200);
  assert.is(ok.json.method, 'open');
  await expectError(req('POST', '/AGENTS.md/world/box/open', { headers: { ...bearer, ...json }, body: body(limits.bodyBytes + 1) }), 413, 'bodyTooLarge');
});

test('a chunked body over the limit is 413 bodyTooLarge too', async () => {
  const big = objectOfBytes(limits.bodyBytesUnauthenticated + 10);
  const chunked = Buffer.concat([
    Buffer.from(
      'POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    ),
    Buffer.from(`${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`),
  ]);
  await expectError(chunked, 413, 'bodyTooLarge');
});

const nested = (containers: number) => `{"a":${'['.repeat(containers - 1)}${']'.repeat(containers - 1)}}`;

test('a body nested 256 containers deep is read; 257 is 400 badJson', async () => {
  const ok = await raw(town.port, req('POST', '/AGENTS.md/deliver', { headers: { ...bearer, ...json }, body: nested(limits.bodyDepth) }));
  assert.is(ok.status, 200);
  assert.is(ok.json.received, true);
  const r = await expectError(req('POST', '/AGENTS.md/deliver', { headers: { ...bearer, ...json }, body: nested(limits.bodyDepth + 1) }), 400, 'badJson');
  assert.match(r.json.message, '256');
});

test('a body of a hundred thousand nested brackets is badJson, not a crash', async () => {
  await expectError(req('POST', '/AGENTS.md/deliver', { headers: { ...bearer, ...json }, body: nested(100_000) }), 400, 'badJson');
  await expectError(req('POST', '/AGENTS.md/deliver', { headers: { ...bearer, ...json }, body: '['.repeat(130_000) }), 400, 'badJson');
});

test('a body that is not a JSON object is 400 badJson', async () => {
  for (const body of ['[1,2]', '"text"', '42', 'null', 'true', '{"code":', 'code=abc', '\u0000']) {
    await expectError(req('POST', '/AGENTS.md/accept', { headers: json, body }), 400, 'badJson');
  }
});

test('a body its Content-Encoding does not decode is 400 badJson, not a failure of the front', async () => {
  const plain = '{"code":"abc"}';
  const truncated = gzipSync(Buffer.from(`{"code":"${'x'.repeat(200)}"}`)).subarray(0, 30);
  for (const [encoding, body] of [
    ['gzip', plain],
    ['deflate', plain],
    ['br', plain],
    ['gzip', truncated],
  ] as const) {
    const r = await expectError(req('POST', '/AGENTS.md/accept', { headers: { ...json, 'Content-Encoding': encoding }, body }), 400, 'badJson');
    assert.match(r.json.message, 'Content-Encoding');
  }
  const ok = await raw(town.port, req('POST', '/AGENTS.md/accept', { headers: { ...json, 'Content-Encoding': 'gzip' }, body: gzipSync(Buffer.from(plain)) }));
  assert.is(ok.status, 200, 'a body that does decode is read');
  assert.is(ok.json.bytes, 3);
});

test('a JSON object with the wrong fields is 400 hostRequest naming the field', async () => {
  const r = await expectError(req('POST', '/AGENTS.md/accept', { headers: json, body: '{"code": 7}' }), 400, 'hostRequest');
  assert.match(r.json.message, '`code`');
});

test('a path that exists under another method is 405 methodNotAllowed with Allow', async () => {
  const r = await expectError(req('GET', '/AGENTS.md/accept'), 405, 'methodNotAllowed');
  assert.is(r.headers.allow, 'POST');
  const api = await expectError(req('POST', '/AGENTS.md/api', { headers: json, body: '{}' }), 405, 'methodNotAllowed');
  assert.ok(api.headers.allow.split(', ').includes('GET'));
  const turn = await expectError(req('GET', '/AGENTS.md/world/box/open', { headers: bearer }), 405, 'methodNotAllowed');
  assert.is(turn.headers.allow, 'POST');
});

test('a method no route takes is 501 notImplemented, on any path', async () => {
  for (const method of ['PUT', 'PATCH', 'OPTIONS', 'PROPFIND']) {
    for (const path of ['/AGENTS.md/api', '/AGENTS.md/world/box', '/nowhere']) {
      const r = await expectError(req(method, path), 501, 'notImplemented');
      assert.match(r.json.message, method);
    }
  }
});

test('DELETE, which some routes take, is 405 naming the methods a known path takes, 404 elsewhere', async () => {
  const api = await expectError(req('DELETE', '/AGENTS.md/api'), 405, 'methodNotAllowed');
  assert.ok(api.headers.allow.split(', ').includes('GET'));
  await expectError(req('DELETE', '/AGENTS.md/world/box', { headers: bearer }), 405, 'methodNotAllowed');
  await expectError(req('DELETE', '/nowhere'), 404, 'unknownRoute');
});

test('a route with no handler yet is 501 notImplemented naming the route', async () => {
  const r = await expectError(req('GET', '/AGENTS.md/pending', { headers: bearer }), 501, 'notImplemented');
  assert.is(r.json.message, 'route pending is not built yet');
});

test('no such route is 404 unknownRoute', async () => {
  for (const path of ['/nowhere', '/AGENTS.md/nope', '/AGENTS.md/world/a/b/c/d', '/xrpc']) {
    await expectError(req('GET', path), 404, 'unknownRoute');
  }
});

test('a reply of exactly 8388608 bytes is sent; one byte more is 502 replyTooLarge', async () => {
  const ok = await raw(town.port, req('GET', `/static/${limits.replyBytes}`), { timeoutMs: 10_000 });
  assert.is(ok.status, 200);
  assert.is(Number(ok.headers['content-length']), limits.replyBytes);
  await expectError(req('GET', `/static/${limits.replyBytes + 1}`), 502, 'replyTooLarge');
});

test('a JSON reply over the limit is 502 replyTooLarge', async () => {
  const t = await startTown({ handlers: { health: async () => ({ big: 'x'.repeat(limits.replyBytes) }) } });
  try {
    const r = await raw(t.port, req('GET', '/health'));
    assertEnvelope(r, 502, 'replyTooLarge');
    const api = await raw(t.port, req('GET', '/AGENTS.md/api'));
    assert.is(api.status, 200, 'the next connection is served');
  } finally {
    await t.close();
  }
});

test('a handler that throws is 500 internal: logged with the request id, no stack to the caller', async () => {
  const t = await startTown({
    handlers: {
      health: async () => {
        throw new Error('secret detail of the failure');
      },
    },
  });
  try {
    const r = await raw(t.port, req('GET', '/health'));
    assertEnvelope(r, 500, 'internal');
    assert.is(r.json.message, 'the front failed; nothing was decided');
    assert.not.match(r.body, 'secret');
    assert.not.match(r.body, '.js:');
    assert.is(t.logged.length, 1);
    assert.is(t.logged[0].fields.requestId, r.headers['x-request-id']);
    assert.match(String(t.logged[0].fields.error), 'secret detail of the failure');
    const api = await raw(t.port, req('GET', '/AGENTS.md/api'));
    assert.is(api.status, 200, 'the next connection is served');
  } finally {
    await t.close();
  }
});

test('more than 48 requests in flight: the 49th is 503 busy with Retry-After', async () => {
  let entered = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow = async (_ctx: TownContext) => {
    entered++;
    await gate;
    return { slow: true };
  };
  const t = await startTown({ handlers: { health: slow } });
  try {
    const held = Array.from({ length: limits.workers }, () => raw(t.port, req('GET', '/health'), { timeoutMs: 10_000 }));
    for (let i = 0; i < 200 && entered < limits.workers; i++) await sleep(10);
    assert.is(entered, limits.workers);
    const r = await raw(t.port, req('GET', '/AGENTS.md/api'));
    assertEnvelope(r, 503, 'busy');
    assert.ok(Number(r.headers['retry-after']) >= 1);
    release();
    const done = await Promise.all(held);
    assert.ok(done.every((d) => d.status === 200));
    const api = await raw(t.port, req('GET', '/AGENTS.md/api'));
    assert.is(api.status, 200, 'the next connection is served');
  } finally {
    release();
    await t.close();
  }
});

test.run();

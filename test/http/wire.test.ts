/**
 * The limits below koa (spec 7.1, 8), over raw sockets: each answer is the JSON envelope, the
 * connection then closes, and the server keeps serving the next connection.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { assertEnvelope, assertServing, raw, req, sleep, startTown, statuses, type Town } from './helpers.js';

let town: Town;
test.before(async () => {
  town = await startTown({ serve: { requestSeconds: 0.5 } });
});
test.after(async () => {
  await town.close();
});

const wireError = async (bytes: string | Buffer | (string | Buffer)[], status: number, cls: string, o: { gapMs?: number; timeoutMs?: number } = {}) => {
  const r = await raw(town.port, bytes, o);
  assertEnvelope(r, status, cls);
  assert.is(r.headers.connection, 'close');
  assert.ok(r.closed, 'the connection closes after the answer');
  await assertServing(town.port);
  return r;
};

test('a request line of exactly 65536 bytes is read; one byte more is 414 uriTooLong', async () => {
  const pad = (n: number) => `/health?${'a'.repeat(n - 'GET /health? HTTP/1.1'.length)}`;
  const ok = await raw(town.port, req('GET', pad(limits.requestLineBytes)));
  assert.is(ok.status, 200);
  const r = await wireError(req('GET', pad(limits.requestLineBytes + 1)), 414, 'uriTooLong');
  assert.match(r.json.message, '65536');
  assert.is(r.json._links.self.href, '/health', 'self: the path, without the query that made the line too long');
});

test('a request line far over the limit, still being sent, is answered 414 without waiting for its end', async () => {
  await wireError([`GET /${'a'.repeat(100_000)}`, 'b'.repeat(50_000)], 414, 'uriTooLong', { gapMs: 50 });
});

test('a header line of 65536 bytes is read; one byte more is 431 headersTooLarge', async () => {
  const header = (n: number) => ({ 'X-Pad': 'v'.repeat(n - 'X-Pad: '.length) });
  const ok = await raw(town.port, req('GET', '/health', { headers: header(limits.headerLineBytes) }));
  assert.is(ok.status, 200);
  await wireError(req('GET', '/health', { headers: header(limits.headerLineBytes + 1) }), 431, 'headersTooLarge');
});

test('100 headers are read; 101 are 431 headersTooLarge', async () => {
  const many = (n: number) => Object.fromEntries(Array.from({ length: n - 2 }, (_, i) => [`X-H${i}`, 'v']));
  // req adds Host and Connection: 98 + 2 = 100
  const ok = await raw(town.port, req('GET', '/health', { headers: many(limits.headers) }));
  assert.is(ok.status, 200);
  await wireError(req('GET', '/health', { headers: many(limits.headers + 1) }), 431, 'headersTooLarge');
});

test('a request whose head does not all arrive in time is 408 requestTimeout', async () => {
  await wireError(['GET /health HTTP/1.1\r\nHost: town.test\r\n'], 408, 'requestTimeout', { timeoutMs: 4000 });
});

test('a connection that sends nothing is 408 requestTimeout, timed from connecting', async () => {
  const started = Date.now();
  await wireError([], 408, 'requestTimeout', { timeoutMs: 4000 });
  assert.ok(Date.now() - started >= 450, 'not before the limit');
});

test('a body that does not all arrive in time is 408 requestTimeout', async () => {
  await wireError(['POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nContent-Length: 20\r\n\r\n{"code":'], 408, 'requestTimeout', { timeoutMs: 4000 });
});

test('a request trickling in byte by byte still counts from its start', async () => {
  const bytes = req('GET', '/health').toString('latin1');
  // 16 bytes 50 ms apart: every byte is prompt, the whole is not.
  const parts = [...bytes.slice(0, 16)];
  await wireError(parts, 408, 'requestTimeout', { gapMs: 50, timeoutMs: 5000 });
});

test('HTTP versions other than 1.0 and 1.1 are 505 httpVersion', async () => {
  for (const v of ['HTTP/2.0', 'HTTP/0.9', 'HTTP/1.2', 'HTTP/3.0', 'HTTP/2']) {
    const r = await wireError(`GET /health ${v}\r\nHost: town.test\r\n\r\n`, 505, 'httpVersion');
    assert.is(r.json._links.self.href, '/health');
  }
  const ten = await raw(town.port, 'GET /health HTTP/1.0\r\n\r\n');
  assert.is(ten.status, 200);
});

test('an expectation other than 100-continue is 400 badRequest in the envelope, not a bare 417', async () => {
  const r = await wireError('GET /health HTTP/1.1\r\nHost: town.test\r\nExpect: foo\r\n\r\n', 400, 'badRequest');
  assert.match(r.json.message, 'Expect');
  assert.is(r.json._links.self.href, '/health');
});

test('malformed request lines and headers are 400 badRequest', async () => {
  const cases = [
    'GET /health\r\nHost: town.test\r\n\r\n',
    'GET  /health HTTP/1.1\r\nHost: town.test\r\n\r\n',
    'GET /health HTTP/1.1\nHost: town.test\n\n',
    'GET /health HTTP/1.1\r\nHost: town.test\r\nBad Header: x\r\n\r\n',
    'GET /health HTTP/1.1\r\nHost: town.test\r\n folded\r\n\r\n',
    'GET /health HTTP/1.1\r\nHost: town.test\r\nX: a\u0001b\r\n\r\n',
    'GET /health HTTP/1.1\r\nHost: town.test\r\nno colon here\r\n\r\n',
    'GET /health HTTP/1.1\r\n\r\n',
    Buffer.from('GET /h\xe9alth HTTP/1.1\r\nHost: town.test\r\n\r\n', 'latin1'),
    'POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
    'POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nTransfer-Encoding: gzip\r\n\r\n{}',
    'POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}',
  ];
  for (const c of cases) await wireError(c, 400, 'badRequest');
});

test('a Content-Length that is not a number is 400 badRequest', async () => {
  for (const cl of ['abc', '-1', '1.5', '0x10', '']) {
    const r = await wireError(`POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nContent-Length: ${cl}\r\n\r\n{}`, 400, 'badRequest');
    if (cl === 'abc') assert.match(r.json.message, 'Content-Length');
  }
});

test('a method Node cannot even parse (BREW, CONNECT) is 501 notImplemented on the wire', async () => {
  await wireError('BREW /pot HTTP/1.1\r\nHost: town.test\r\n\r\n', 501, 'notImplemented');
  await wireError('CONNECT town.test:443 HTTP/1.1\r\nHost: town.test\r\n\r\n', 501, 'notImplemented');
});

test('garbage that is no request at all is 400 badRequest', async () => {
  await wireError(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x0d, 0x0a]), 400, 'badRequest');
});

test('requests pipelined before a refused one are served first, then the refusal, then close', async () => {
  const good = req('GET', '/health', { close: false });
  const r = await raw(town.port, Buffer.concat([good, good, Buffer.from('BREW / HTTP/1.1\r\nHost: town.test\r\n\r\n')]), { all: true });
  assert.equal(statuses(r), [200, 200, 501]);
  assert.ok(r.closed);
  await assertServing(town.port);
});

test('keep-alive: a refused second request closes the connection after it', async () => {
  const good = req('GET', '/health', { close: false });
  const r = await raw(town.port, [good, `GET /${'a'.repeat(70_000)} HTTP/1.1\r\n`], { gapMs: 100, all: true });
  assert.equal(statuses(r), [200, 414]);
  assert.ok(r.closed);
});

test('a chunked body is framed: the next request on the connection is read', async () => {
  const chunked =
    'POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n' +
    '5\r\n{"cod\r\n9;ext=1\r\ne":"abc"}\r\n0\r\n\r\n';
  const r = await raw(town.port, [chunked, req('GET', '/health')], { gapMs: 100, all: true });
  // accept is not built here: its body decoded, the route answers 501 "not built"; then /health.
  assert.equal(statuses(r), [501, 200]);
});

test('the clock restarts for each request on a kept-alive connection', async () => {
  const good = req('GET', '/health', { close: false });
  // Three requests 400 ms apart: 0.8 s in all, each well within its own half second.
  const r = await raw(town.port, [good, good, req('GET', '/health')], { gapMs: 400, timeoutMs: 4000, all: true });
  assert.equal(statuses(r), [200, 200, 200]);
});

test("ordinary requests keep Node's parser on its native path (no JS data listener)", async () => {
  const { connect } = await import('node:net');
  const accepted = new Promise<import('node:net').Socket>((resolve) => town.server.server.once('connection', resolve));
  const s = connect(town.port, '127.0.0.1');
  s.on('error', () => {});
  const server = await accepted;
  const replies: Buffer[] = [];
  s.on('data', (d) => replies.push(d));
  s.write(req('GET', '/health', { close: false }));
  await sleep(100);
  s.write(req('POST', '/AGENTS.md/accept', { close: false, body: '{"code":"svc_invite_x","name":"ada"}', headers: { 'Content-Type': 'application/json' } }));
  await sleep(100);
  assert.equal(statuses({ raw: Buffer.concat(replies) } as never), [200, 501]);
  assert.is((server as unknown as { parser?: { _consumed?: boolean } }).parser?._consumed, true);
  assert.is(server.listenerCount('data'), 1, "only Node's own listener");
  s.destroy();
});

test('the server survives a client that resets mid-request', async () => {
  const { connect } = await import('node:net');
  for (let i = 0; i < 5; i++) {
    const s = connect(town.port, '127.0.0.1');
    s.on('error', () => {});
    s.write('POST /AGENTS.md/accept HTTP/1.1\r\nHost: town.test\r\nContent-Length: 1000\r\n\r\n{"a');
    await sleep(20);
    s.resetAndDestroy();
  }
  await assertServing(town.port);
});

test.run();

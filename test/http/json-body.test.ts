/**
 * The plain JSON body read directly (src/http/json-body.ts) answers exactly as koa-body does: the
 * same bodies, sent with a Content-Length (read directly) and chunked (read by koa-body), get the
 * same status, class, message and echoed value. Then what only the direct path meets: a body cut
 * off before its declared length.
 */
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseJsonText, plainJsonBody } from '../../src/http/json-body.js';
import type { SomeHandlers } from '../../src/http/route-types.js';
import { assertServing, raw, req, sleep, startTown, type Town } from './helpers.js';

const bearer = { Authorization: 'Bearer ada-credential', 'Content-Type': 'application/json' };
const echo: SomeHandlers = {
  turn: async (ctx) => ({ body: ctx.state.body ?? null }),
};

let town: Town;
test.before(async () => {
  town = await startTown({ handlers: echo });
});
test.after(async () => {
  await town.close();
});

const chunked = (body: Buffer) => Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);

const bodies: (string | Buffer)[] = [
  '{"intent":"a","fields":{"n":1}}',
  '\ufeff{"intent":"bom"}',
  '  {"intent":"spaced"}  ',
  '{"intent":"é ✓ 🜁"}',
  Buffer.from([0x7b, 0x22, 0x69, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  '{"intent":"p","fields":{"__proto__":{"x":1}}}',
  '{"intent":"p","fields":{"\\u005f_proto__":{"x":1}}}',
  '{"intent":"p","fields":{"a":[{"__proto__ ":1}]}}',
  '{"intent":',
  '[1,2]',
  '"text"',
  'null',
  '',
  '{"intent":"lone","fields":{"t":"\\ud800"}}',
];

test('the same bodies, read directly and by koa-body, get the same answers', async () => {
  for (const b of bodies) {
    const bytes = Buffer.isBuffer(b) ? b : Buffer.from(b);
    const direct = await raw(town.port, req('POST', '/AGENTS.md/world/box/open', { headers: bearer, body: bytes }));
    const viaKoaBody = await raw(
      town.port,
      req('POST', '/AGENTS.md/world/box/open', {
        headers: { ...bearer, 'Transfer-Encoding': 'chunked' },
        body: bytes.length ? chunked(bytes) : Buffer.from('0\r\n\r\n'),
      }),
    );
    const what = JSON.stringify(bytes.toString('latin1'));
    assert.is(direct.status, viaKoaBody.status, `status of ${what}: ${direct.body} / ${viaKoaBody.body}`);
    assert.is(direct.json?.class, viaKoaBody.json?.class, `class of ${what}`);
    assert.is(direct.json?.message, viaKoaBody.json?.message, `message of ${what}`);
    assert.equal(direct.json?.body, viaKoaBody.json?.body, `value of ${what}`);
  }
});

test('a body cut off before its declared length is answered or dropped, never held; the front keeps serving', async () => {
  const socket = net.connect(town.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  socket.write(req('POST', '/AGENTS.md/world/box/open', { headers: { ...bearer, 'Content-Length': '40' } }));
  socket.write('{"intent":"half');
  await sleep(30);
  socket.destroy();
  await sleep(30);
  await assertServing(town.port);
});

test('only a declared, unencoded, unchunked body is read directly; empty text is no body; __proto__ is refused', () => {
  const at = (headers: Record<string, string>) => plainJsonBody({ headers } as never);
  assert.ok(at({ 'content-length': '10' }));
  assert.ok(at({ 'content-length': '10', 'content-encoding': 'identity' }));
  assert.not.ok(at({ 'content-length': '10', 'content-encoding': 'gzip' }));
  assert.not.ok(at({ 'transfer-encoding': 'chunked' }));
  assert.not.ok(at({}));
  assert.is(parseJsonText(''), '');
  assert.equal(parseJsonText('{"a":{"b":[1]}}'), { a: { b: [1] } });
  assert.throws(() => parseJsonText('{"a":[{"__proto__":{}}]}'), /forbidden prototype property/);
  assert.throws(
    () => parseJsonText('{"a":'),
    (e: { status?: number }) => e.status === 400,
  );
});

test.run();

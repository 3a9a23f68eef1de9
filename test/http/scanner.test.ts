/** The request scanner of the wire guard, on its own: framing and limits, fed in any slicing. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { RequestScanner, type Verdict } from '../../src/http/request-scanner.js';

/** Feed `text` in slices of `size` bytes; the first verdict, and the scanner. */
function scan(text: string | Buffer, size = Infinity) {
  const buf = Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1');
  const s = new RequestScanner();
  let verdict: Verdict | undefined;
  for (let i = 0; i < buf.length && !verdict; i += Math.min(size, buf.length)) verdict = s.feed(buf.subarray(i, Math.min(buf.length, i + size)));
  return { s, verdict };
}

const get = 'GET / HTTP/1.1\r\nHost: h\r\n\r\n';
const post = (body: string) => `POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const chunked = 'POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nA;ext\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n';

test('counts whole requests, however the bytes are sliced', () => {
  const all = get + post('{"a":1}') + chunked + get;
  for (const size of [1, 2, 3, 7, 64, Infinity]) {
    const { s, verdict } = scan(all, size);
    assert.is(verdict, undefined);
    assert.is(s.completed, 4, `slices of ${size}`);
    assert.is(s.started, false);
  }
});

test('a request half sent is started and not complete', () => {
  const { s } = scan(post('{"a":1}').slice(0, -2));
  assert.equal([s.completed, s.started, s.state], [0, true, 'body']);
  const head = scan('GET / HTTP/1.1\r\nHo').s;
  assert.ok(head.inHead);
});

test('leading empty lines before a request are ignored', () => {
  const { s, verdict } = scan(`\r\n\r\n${get}`);
  assert.equal([verdict, s.completed], [undefined, 1]);
});

test('request line: 65536 bytes pass, 65537 are uriTooLong, known at byte 65538', () => {
  const line = (n: number) => `GET /${'a'.repeat(n - 'GET / HTTP/1.1'.length)} HTTP/1.1`;
  assert.is(scan(`${line(limits.requestLineBytes)}\r\nHost: h\r\n\r\n`, 1000).verdict, undefined);
  assert.is(scan(`${line(limits.requestLineBytes + 1)}\r\nHost: h\r\n\r\n`, 1000).verdict?.cls, 'uriTooLong');
  // no end of line yet: refused as soon as the line cannot end within the limit
  assert.is(scan(`GET /${'a'.repeat(limits.requestLineBytes + 2)}`).verdict?.cls, 'uriTooLong');
  assert.is(scan(`GET /${'a'.repeat(limits.requestLineBytes - 10)}`).verdict, undefined);
});

test('header lines: 65536 bytes pass, 65537 are headersTooLarge; 100 headers pass, 101 do not', () => {
  const h = (n: number) => `X: ${'v'.repeat(n - 3)}`;
  assert.is(scan(`GET / HTTP/1.1\r\nHost: h\r\n${h(limits.headerLineBytes)}\r\n\r\n`, 999).verdict, undefined);
  assert.is(scan(`GET / HTTP/1.1\r\nHost: h\r\n${h(limits.headerLineBytes + 1)}\r\n\r\n`, 999).verdict?.cls, 'headersTooLarge');
  const many = (n: number) => `GET / HTTP/1.1\r\nHost: h\r\n${'X: y\r\n'.repeat(n - 1)}\r\n`;
  assert.is(scan(many(limits.headers)).verdict, undefined);
  assert.is(scan(many(limits.headers + 1)).verdict?.cls, 'headersTooLarge');
});

test('versions, methods and malformed heads', () => {
  const cls = (t: string) => scan(t).verdict?.cls;
  assert.is(cls('GET / HTTP/1.0\r\n\r\n'), undefined, 'HTTP/1.0 needs no Host');
  assert.is(cls('GET / HTTP/2.0\r\nHost: h\r\n\r\n'), 'httpVersion');
  assert.is(cls('GET / HTTP/1.9\r\nHost: h\r\n\r\n'), 'httpVersion');
  assert.is(cls('GET / HTTX/1.1\r\nHost: h\r\n\r\n'), 'badRequest');
  assert.is(cls('BREW / HTTP/1.1\r\nHost: h\r\n\r\n'), 'notImplemented');
  assert.is(cls('PUT / HTTP/1.1\r\nHost: h\r\n\r\n'), undefined, 'a method Node parses is left to the router');
  assert.is(cls('GET / HTTP/1.1\r\n\r\n'), 'badRequest');
  assert.is(cls('GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n'), 'badRequest');
  assert.is(cls('GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n'), 'badRequest');
  assert.is(cls('GET / HTTP/1.1\r\nHost: h\r\n\tfolded\r\n\r\n'), 'badRequest');
  assert.is(cls('GET / HTTP/1.1\nHost: h\n\n'), 'badRequest');
});

test('a header line longer than what is kept is still read to its end', () => {
  const { s, verdict } = scan(`GET / HTTP/1.1\r\nHost: h\r\nX-Long: ${'v'.repeat(5000)}\r\n\r\n`, 100);
  assert.equal([verdict, s.completed], [undefined, 1]);
});

test('a broken chunk is left to the parser: the scanner stops following', () => {
  const { s, verdict } = scan('POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
  assert.equal([verdict, s.state], [undefined, 'lost']);
});

test.run();

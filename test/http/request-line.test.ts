/**
 * The front's request line (front/observe.ts requestLine) is what pino writes for
 * `log.info({req, method, route, status, ms, principal}, 'request')`, byte for byte, on the town's
 * logger and its children; a logger that would write the line otherwise is left to pino.
 */
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import { requestLine } from '../../src/http/front/observe.js';
import { townLog } from '../../src/operations/log.js';

const line = suite('request line');

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, lines };
}

/** Time is the one field that differs between two lines written a moment apart. */
const timeless = (text: string) => text.replace(/"time":\d+/, '"time":0');

const rows: [string, string, string, number, number, string | undefined][] = [
  ['a1b2c3-1', 'GET', 'object', 200, 0.53, '0123456789abcdef'],
  ['trace-0af7.651916cd:43dd', 'POST', 'scratch.turn', 409, 12, undefined],
  ['x', 'DELETE', 'unmatched', 501, 0, 'ffff'],
];

line('the same bytes as pino writes, on the town log and a child of it', async () => {
  const out = capture();
  const root = townLog({ destination: out.stream, base: { worker: 'w1' } });
  for (const log of [root, root.child({ part: 'front' })]) {
    const direct = requestLine(log);
    assert.type(direct, 'function', 'the town log takes the direct line');
    for (const [req, method, route, status, ms, principal] of rows) {
      out.lines.length = 0;
      log.info(principal === undefined ? { req, method, route, status, ms } : { req, method, route, status, ms, principal }, 'request');
      direct!(req, method, route, status, ms, principal);
      await new Promise((r) => setImmediate(r));
      assert.is(out.lines.length, 2);
      assert.is(timeless(out.lines[1]!), timeless(out.lines[0]!));
      assert.ok(out.lines[1]!.endsWith('}\n'));
      assert.equal(JSON.parse(out.lines[1]!).req, req);
    }
  }
});

line('a logger that would change the line is left to pino', () => {
  const out = capture();
  assert.is(requestLine(pino({ mixin: () => ({ extra: 1 }) }, out.stream)), undefined, 'a mixin');
  assert.is(requestLine(pino({ serializers: { req: (v: unknown) => v } }, out.stream)), undefined, 'a serializer of a field');
  assert.is(requestLine(pino({ formatters: { log: (o: Record<string, unknown>) => o } }, out.stream)), undefined, 'a log formatter');
  assert.is(requestLine(pino({ redact: ['principal'] }, out.stream)), undefined, 'a redacted field');
  assert.is(requestLine(pino({ nestedKey: 'payload' }, out.stream)), undefined, 'a nested key');
  assert.is(requestLine(pino({ msgPrefix: '[front] ' }, out.stream)), undefined, 'a message prefix');
  assert.type(requestLine(pino({}, out.stream)), 'function', 'a plain pino logger takes it');
});

line.run();

/**
 * The embedded journal's frame format: what is written reads back, the quick read of a frame's
 * start (used to re-index a whole journal) agrees with the full parse, and damage is reported.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeFrame, encodeAppend, FRAME_HEADER_BYTES, parseHead, parsePayload } from '../../src/stores/embedded/frames.js';
import type { CheckedEvent } from '../../src/stores/event-store-checks.js';

function checked(type: string, data: unknown, metadata?: object): CheckedEvent {
  return { id: randomUUID(), type, data, metadata, json: JSON.stringify(data), metadataJson: metadata && JSON.stringify(metadata) };
}

const streams = ['plain', 'quote"d', 'back\\slash', 'ünï✓code', 'x\u0001y', '😀 emoji', 'a'.repeat(1000)];

test('every frame of an append reads back whole, in order, with its place in the append', () => {
  for (const stream of streams) {
    const events = [checked('A', { n: 1 }), checked('B"x', 'text', { m: [1, 2] }), checked('C', null)];
    const { bytes, starts } = encodeAppend(41, 7, stream, events, 1_700_000_000_000);
    assert.is(starts.length, 3);
    starts.forEach((start, i) => {
      const full = decodeFrame(bytes, start, bytes.length, parsePayload);
      const quick = decodeFrame(bytes, start, bytes.length, parseHead);
      if (!('payload' in full) || !('payload' in quick)) throw new Error(`frame ${i} of ${stream} did not decode`);
      const p = full.payload;
      assert.equal([p.p, p.r, p.n, p.s, p.i, p.t, p.c], [41 + i, 7 + i, 2 - i, stream, events[i]!.id, events[i]!.type, 1_700_000_000_000]);
      assert.equal(p.d, events[i]!.data);
      assert.equal(p.m, events[i]!.metadata);
      assert.equal([quick.payload.p, quick.payload.r, quick.payload.n, quick.payload.s], [p.p, p.r, p.n, p.s]);
      assert.is(full.next, i + 1 < starts.length ? starts[i + 1] : bytes.length);
    });
  }
});

test('a short, torn or altered frame is refused, never misread', () => {
  const { bytes } = encodeAppend(1, 0, 's', [checked('A', { text: 'hello' })], 1);
  const whole = decodeFrame(bytes, 0, bytes.length, parsePayload);
  assert.ok('payload' in whole);
  const short = decodeFrame(bytes, 0, bytes.length - 1, parsePayload);
  assert.equal(short, { bad: 'short body', need: bytes.length });
  assert.equal(decodeFrame(bytes, 0, 5, parsePayload), { bad: 'short header', need: FRAME_HEADER_BYTES });
  const altered = Buffer.from(bytes);
  altered[FRAME_HEADER_BYTES + 3] = altered[FRAME_HEADER_BYTES + 3]! ^ 1;
  assert.equal(decodeFrame(altered, 0, altered.length, parseHead), { bad: 'checksum mismatch' });
  const zeroLength = Buffer.alloc(16);
  assert.ok('bad' in decodeFrame(zeroLength, 0, zeroLength.length, parsePayload));
});

test.run();

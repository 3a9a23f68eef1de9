/**
 * An entry's event id (events/world.ts, uuidOf): read off the one-shot hash's hex text, it is the
 * very id the byte-wise construction gave (the store recognises a retried append by it, so an
 * entry appended before this change and retried after must get the same id), and a UUID of the
 * version-5 layout the event stores accept.
 */
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { uuidOf } from '../../src/events/world.js';

function byBytes(text: string): string {
  const h = createHash('sha256').update(text).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

test('the same id as the byte-wise construction, for every variant nibble', async () => {
  const seen = new Set<string>();
  for (let i = 0; i < 5_000; i++) {
    const text = `town\n${i}\nbafyrei${i * 7919}${i % 7 === 0 ? 'é☃' : ''}`;
    const id = uuidOf(text);
    assert.is(id, byBytes(text));
    seen.add(id[19]!);
  }
  assert.equal([...seen].sort(), ['8', '9', 'a', 'b']);
});

test('a version-5 UUID', () => {
  assert.match(uuidOf('town\n1\nbafy'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test.run();

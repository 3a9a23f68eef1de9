/**
 * Content ids against the AT Protocol's public data-model fixtures (test/fixtures/atproto, CC0):
 * each fixture's JSON, read with the protocol's conventions (`$link` a CID, `$bytes` bytes),
 * must encode to the fixture's DAG-CBOR bytes and hash to its CID, through the kernel's own
 * encoder (src/cards/kernel/dag-cbor.ts, with @ipld/dag-cbor for what it hands over).
 */
import fs from 'node:fs';
import { CID } from 'multiformats/cid';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalBytes, contentId } from '../../../src/cards/kernel/content-id.js';
import { fixture } from '../../fixtures/path.js';

const vectors = fixture('atproto', 'data-model', 'data-model-fixtures.json');

/** The protocol's JSON form to data-model values. */
function fromJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromJson);
  if (typeof value !== 'object' || value === null) return value;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && typeof o.$link === 'string') return CID.parse(o.$link);
  if (keys.length === 1 && typeof o.$bytes === 'string') return new Uint8Array(Buffer.from(o.$bytes, 'base64'));
  return Object.fromEntries(keys.map((k) => [k, fromJson(o[k])]));
}

test('the data-model fixtures: same DAG-CBOR bytes, same CID', () => {
  assert.ok(fs.existsSync(vectors), `the AT Protocol vectors are not at ${vectors}`);
  const fixtures = JSON.parse(fs.readFileSync(vectors, 'utf8')) as { json: unknown; cbor_base64: string; cid: string }[];
  assert.ok(fixtures.length >= 3);
  for (const f of fixtures) {
    const value = fromJson(f.json);
    assert.is(Buffer.from(canonicalBytes(value)).toString('base64').replace(/=+$/, ''), f.cbor_base64.replace(/=+$/, ''), `bytes of ${f.cid}`);
    assert.is(contentId(value).cid, f.cid);
  }
});

test.run();

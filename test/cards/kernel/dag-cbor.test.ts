/**
 * The hand-written canonical encoder and content ids against the references they replace:
 * @ipld/dag-cbor for the bytes, multiformats for the CID text, node:crypto's createHash for the
 * digests. Every value must give the same bytes (or, where the reference refuses it, the same
 * refusal), every entry the same content id and slug.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { canonicalBytes, cidText, contentId, fingerprint, fingerprintOfText, slugOfCid, slugWords, stableJson } from '../../../src/cards/kernel/content-id.js';
import { requestFingerprint } from '../../../src/cards/kernel/turn/request.js';
import { copied } from '../../../src/cards/kernel/copy.js';
import { Harness, ann, bob } from './harness.js';
import { rng } from './random.js';

type R = ReturnType<typeof rng>;

/** What the kernel encoded before the hand-written writer: undefined fields dropped, then @ipld/dag-cbor. */
function referenceDefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(referenceDefined);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = referenceDefined(v);
    }
    return out;
  }
  return value;
}

function reference(value: unknown): { bytes: Uint8Array } | { error: true } {
  try {
    return { bytes: dagCbor.encode(referenceDefined(value)) };
  } catch {
    return { error: true };
  }
}

function referenceId(bytes: Uint8Array): { cid: string; slug: string } {
  const digest = createHash('sha256').update(bytes).digest();
  const cid = CID.createV1(dagCbor.code, Digest.create(0x12, digest)).toString();
  const bits = (digest[0]! << 16) | (digest[1]! << 8) | digest[2]!;
  const w = (shift: number) => slugWords[(bits >> shift) & 0x7f];
  return { cid, slug: `${w(17)}-${w(10)}-${w(3)}` };
}

/** Same bytes and the same content id as the references, or a refusal where they refuse. */
function same(value: unknown, what: string): void {
  const want = reference(value);
  if ('error' in want) {
    assert.throws(() => canonicalBytes(value), what);
    assert.throws(() => contentId(value), what);
    return;
  }
  const got = canonicalBytes(value);
  assert.ok(got instanceof Uint8Array, what);
  assert.is(Buffer.from(got).toString('hex'), Buffer.from(want.bytes).toString('hex'), what);
  assert.equal(contentId(value), referenceId(want.bytes), what);
}

const boundaries = [0, 1, 23, 24, 25, 255, 256, 257, 65535, 65536, 65537, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 53 - 1];
const integers = [...boundaries, ...boundaries.map((n) => -n - 1), -1, -24, -25, -256, -257];

function randomText(r: R): string {
  const length = r.pick([0, 1, 5, 12, 13, 19, 20, 23, 24, 25, 63, 64, 255, 256, 300]);
  let s = '';
  for (let i = 0; i < length; i++) {
    const roll = r.next();
    if (roll < 0.8) s += String.fromCharCode(0x20 + r.int(0x5f));
    else if (roll < 0.85) s += String.fromCharCode(r.int(0x20));
    else if (roll < 0.9) s += String.fromCharCode(0x80 + r.int(0x780));
    else if (roll < 0.94) s += String.fromCharCode(0x800 + r.int(0xd000));
    else if (roll < 0.97) s += '😀';
    else s += String.fromCharCode(0xd800 + r.int(0x800)); // a lone surrogate
  }
  return s;
}

function randomKey(r: R): string {
  const roll = r.next();
  if (roll < 0.6)
    return r.pick(['a', 'b', 'tag', 'value', 'fields', 'name', 'id', 'version', 'z', 'aa', 'ab', 'ba', 'items', 'label', 'payload', 'receipt', 'height']);
  // any ASCII (a lone surrogate would make keys that the reference writes twice over: U+FFFD)
  if (roll < 0.9) return Array.from({ length: 1 + r.int(12) }, () => String.fromCharCode(0x20 + r.int(0x5f))).join('');
  if (roll < 0.95) return r.pick(['é', 'ñandú', 'κλειδί', '鍵', '😀x']);
  return r.pick(['', '0', '1', '10', '__proto__', 'constructor']);
}

/** A random value of at most a few hundred nodes: lists and maps get smaller the deeper they lie. */
function randomValue(r: R, depth: number): unknown {
  const roll = r.next();
  if (depth > 3 || roll < 0.3) {
    const leaf = r.next();
    if (leaf < 0.4) return randomText(r);
    if (leaf < 0.7) return r.pick(integers);
    if (leaf < 0.8) return r.int(1_000_000);
    if (leaf < 0.9) return r.pick([true, false, null]);
    return r.pick([1.5, -0, 0.1, 1e300, Number.MAX_SAFE_INTEGER + 2, -(2 ** 60)]);
  }
  const sizes = depth === 0 ? [0, 1, 2, 3, 23, 24, 25] : [0, 1, 2, 3, 5];
  if (roll < 0.55) return Array.from({ length: r.pick(sizes) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  const n = r.pick(depth === 0 ? [0, 1, 2, 3, 5, 8, 24] : [0, 1, 2, 3, 5]);
  for (let i = 0; i < n; i++) {
    // defineProperty, so that a key named __proto__ is data, as JSON.parse would make it
    Object.defineProperty(o, randomKey(r), {
      value: r.chance(0.1) ? undefined : randomValue(r, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return o;
}

test('random values: the same bytes and content id as @ipld/dag-cbor and multiformats', () => {
  const r = rng(20261123);
  for (let i = 0; i < 3000; i++) same(randomValue(r, 0), `value ${i}`);
});

test('integers at every head-size boundary, text at every length boundary, in maps and arrays', () => {
  for (const n of integers) same({ n, list: [n, n], nested: { deeper: { n } } }, `integer ${n}`);
  for (const length of [0, 19, 20, 23, 24, 255, 256, 65535, 65536]) {
    same({ ascii: 'x'.repeat(length) }, `ascii of ${length}`);
    same({ wide: 'é'.repeat(length) }, `two-byte of ${length}`);
    same({ astral: '😀'.repeat(length >> 1) }, `surrogate pairs of ${length}`);
  }
  same(['\ud800', 'a\udc00b', '\udbff\udfff', `${'x'.repeat(30)}\ud800`], 'lone and paired surrogates, short and long');
});

test('map keys: length first, then bytewise, whatever the insertion order; absent values left out', () => {
  same({ bb: 1, a: 2, b: 3, aaa: 4, ab: 5 }, 'mixed lengths');
  assert.equal(canonicalBytes({ b: 1, a: 2 }), canonicalBytes({ a: 2, b: 1 }));
  assert.equal(canonicalBytes({ a: 1, gone: undefined }), canonicalBytes({ a: 1 }));
  same({ é: 1, z: 2, zz: 3 }, 'a non-ASCII key');
  same(JSON.parse('{"__proto__": {"x": 1}, "a": 2}'), 'an own __proto__ key');
  same({ 10: 'a', 2: 'b', x: 'c' }, 'integer-like keys');
});

test('what DAG-CBOR cannot hold is refused as the reference refuses it, or encoded as it encodes it', () => {
  same({ a: [1, undefined] }, 'undefined in a list');
  same({ a: NaN }, 'NaN');
  same({ a: Infinity }, 'Infinity');
  same({ a: 1.25 }, 'a float');
  same({ a: -0 }, 'negative zero');
  same({ a: 2 ** 53 }, 'an integer past the safe range');
  same({ a: new Uint8Array([1, 2, 3]) }, 'bytes');
  same({ a: () => 1 }, 'a function');
  same({ a: Symbol('s') }, 'a symbol');
  same({ a: 10n }, 'a bigint');
  same({ when: new Date(0) }, 'a Date');
  same({ m: new Map([['a', 1]]) }, 'a Map');
  const cid = CID.parse('bafyreihxd6uzztyhcxrclc7boxxbp7nsu5wxki3qiizdjhrgw2bbcrb3hu');
  same({ link: cid }, 'a CID');
  same({ link: { '/': 'x', bytes: 'x' } }, 'a map that looks like a link');
  let deep: unknown = 'bottom';
  for (let i = 0; i < 600; i++) deep = { d: deep };
  same(deep, 'nesting past the writer’s depth');
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  assert.throws(() => contentId(cycle));
});

test('an object whose getter asks for a content id while it is being encoded', () => {
  const inner = { x: 'inner' };
  const outer = {
    a: 1,
    get b() {
      return contentId(inner).cid;
    },
  };
  same(outer, 'a re-entrant getter');
});

test('more object shapes than the writer keeps still encode right', () => {
  const r = rng(7);
  for (let i = 0; i < 5000; i++) {
    const o: Record<string, unknown> = {};
    o[`k${i}`] = i;
    o[randomKey(r)] = randomText(r);
    if (i % 500 === 0) same(o, `shape ${i}`);
    else canonicalBytes(o);
  }
  same({ tag: 'label', value: 'still right' }, 'a common shape after many');
});

test('journal entries of real turns: byte for byte and content id for content id', () => {
  const h = Harness.town();
  h.arrive(ann);
  h.arrive(bob);
  const r = rng(99);
  const texts = ['hello', 'naïve café', 'ελληνικά', '日本語のメモ', 'emoji 😀 here', 'x'.repeat(70), ''];
  for (let i = 0; i < 120; i++) {
    const who = r.pick([ann, bob]);
    const roll = r.next();
    if (roll < 0.25) h.turn(who, 'lamp', r.pick(['light', 'douse']));
    else if (roll < 0.4) h.turn(who, 'lamp', 'fill', { fields: { measures: r.int(12) } });
    else if (roll < 0.55) h.turn(who, 'lamp', 'receive', { spell: `make note` });
    else if (roll < 0.8) {
      const notes = [...h.world.cards.keys()].filter((id) => id.startsWith('note-'));
      if (notes.length) h.turn(who, r.pick(notes), 'write', { fields: { text: r.pick(texts) } });
    } else if (roll < 0.9) h.turn(who, 'notice-board', 'receive', { spell: `pin key=k${i} text="${r.pick(texts).replace(/"/g, '')}"` });
    else h.deliver();
  }
  assert.ok(h.journal.length > 100, `${h.journal.length} entries`);
  for (const entry of h.journal) {
    const { cid, slug, ...body } = entry;
    same(body, `entry ${entry.height}`);
    assert.equal(contentId(body), { cid, slug });
    assert.is(slugOfCid(cid), slug);
  }
});

test('the CID text matches multiformats for any digest, and only a sha-256 digest is taken', () => {
  const r = rng(3);
  for (let i = 0; i < 200; i++) {
    const digest = Uint8Array.from({ length: 32 }, () => r.int(256));
    assert.is(cidText(digest), CID.createV1(dagCbor.code, Digest.create(0x12, digest)).toString());
  }
  assert.throws(() => cidText(new Uint8Array(20)), /32 bytes/);
});

test('fingerprints: the one-shot hash gives what createHash gave, lone surrogates included', () => {
  const r = rng(5);
  for (let i = 0; i < 300; i++) {
    const v = randomValue(r, 1);
    assert.is(fingerprint(v), createHash('sha256').update(stableJson(v)).digest('base64url'));
  }
  assert.is(fingerprintOfText('\ud800x'), createHash('sha256').update('\ud800x').digest('base64url'));
});

test('requestFingerprint writes the same stable JSON as fingerprinting the request object', () => {
  const r = rng(11);
  const pick = <T>(xs: T[]) => r.pick(xs);
  for (let i = 0; i < 500; i++) {
    const cmd = {
      object: pick(['lamp', 'note-3', '', 'é']),
      method: pick(['light', 'fill', 'receive']),
      fields: pick([undefined, { measures: r.int(9) }, { text: randomText(r) }, null, [1, 2], 'text']),
      spell: pick([undefined, 'fill 3', randomText(r)]),
      argument: pick([undefined, { tag: 'record', fields: [] }, 7]),
      if: pick([undefined, [], [{ object: 'lamp', version: r.int(5) }]]),
    };
    assert.is(
      requestFingerprint(cmd),
      fingerprint({ object: cmd.object, method: cmd.method, fields: cmd.fields, spell: cmd.spell, argument: cmd.argument, if: cmd.if }),
      JSON.stringify(cmd),
    );
  }
});

test('copied: the own keys in order, as a spread gives them', () => {
  const o = JSON.parse('{"z": 1, "a": [2], "__proto__": {"p": 3}, "m": null}');
  const c = copied(o);
  assert.is(JSON.stringify(c), JSON.stringify({ ...o }));
  assert.is.not(c, o);
  assert.is(Object.getPrototypeOf(c), Object.prototype);
});

test.run();

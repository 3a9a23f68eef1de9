/**
 * Content ids and spoken slugs of entries, and fingerprints of requests.
 *
 * The content id is a CIDv1 (DAG-CBOR, sha2-256), as AT Protocol uses, of the canonical entry:
 * the entry without its own cid and slug, with absent fields left out (DAG-CBOR sorts map keys,
 * so the encoding is canonical by construction). The slug is three words taken from the digest;
 * with 128 words that is 2^21 names, so two receipts of a busy town will sometimes share one and
 * the reader must answer `ambiguous`.
 */
import { createHash } from 'node:crypto';
import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';

const SHA2_256 = 0x12;

/** 128 short words, easy to say and to type; fixed forever (slugs of old receipts depend on it). */
export const slugWords = [
  'acorn', 'amber', 'anchor', 'apple', 'arrow', 'ash', 'aspen', 'badger',
  'barley', 'basil', 'beacon', 'bell', 'berry', 'birch', 'bison', 'bloom',
  'bramble', 'brook', 'cabin', 'candle', 'canyon', 'cedar', 'chalk', 'cherry',
  'cider', 'clay', 'clover', 'cobalt', 'comet', 'copper', 'coral', 'crane',
  'cricket', 'crow', 'daisy', 'dawn', 'delta', 'dove', 'dune', 'eagle',
  'ember', 'fable', 'falcon', 'fern', 'fig', 'finch', 'flint', 'fog',
  'forest', 'fox', 'frost', 'garnet', 'ginger', 'glade', 'granite', 'gull',
  'harbor', 'hazel', 'heron', 'hill', 'holly', 'honey', 'iris', 'ivory',
  'ivy', 'jade', 'juniper', 'kettle', 'lake', 'lantern', 'lark', 'laurel',
  'lemon', 'lily', 'linen', 'lotus', 'maple', 'marsh', 'meadow', 'mint',
  'moss', 'moth', 'nectar', 'nutmeg', 'oak', 'oat', 'olive', 'onyx',
  'orchid', 'otter', 'owl', 'pebble', 'pepper', 'pine', 'plum', 'pond',
  'poppy', 'quail', 'quartz', 'quill', 'rain', 'raven', 'reed', 'river',
  'robin', 'rose', 'rye', 'sage', 'salt', 'sand', 'shell', 'sparrow',
  'spruce', 'star', 'stone', 'storm', 'swan', 'thistle', 'thyme', 'tide',
  'tulip', 'violet', 'walnut', 'willow', 'wren', 'yarrow', 'yew', 'zephyr',
] as const;

/** Drops absent (undefined) fields, which the IPLD data model cannot hold. */
function defined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(defined);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = defined(v);
    }
    return out;
  }
  return value;
}

export function canonicalBytes(body: unknown): Uint8Array {
  return dagCbor.encode(defined(body));
}

export interface ContentId {
  cid: string;
  slug: string;
}

export function contentId(body: unknown): ContentId {
  const digest = createHash('sha256').update(canonicalBytes(body)).digest();
  const cid = CID.createV1(dagCbor.code, Digest.create(SHA2_256, digest));
  return { cid: cid.toString(), slug: slugOfDigest(digest) };
}

/** Three words from the first 21 bits of the digest. */
export function slugOfDigest(digest: Uint8Array): string {
  const bits = (digest[0]! << 16) | (digest[1]! << 8) | digest[2]!;
  const w = (shift: number) => slugWords[(bits >> shift) & 0x7f];
  return `${w(17)}-${w(10)}-${w(3)}`;
}

/** The slug of a content id given as text (for readers that hold only the cid). */
export function slugOfCid(cid: string): string {
  return slugOfDigest(CID.parse(cid).multihash.digest);
}

/**
 * JSON text with object keys sorted, built by hand so that a key such as `__proto__` stays
 * data. Numbers are written as JSON writes them; values JSON cannot hold are written as null.
 */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const s = JSON.stringify(value);
    return s === undefined ? 'null' : s;
  }
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const key of keys) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${stableJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

export function fingerprint(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('base64url');
}

/**
 * Content ids and spoken slugs of entries, and fingerprints of requests.
 *
 * The content id is a CIDv1 (DAG-CBOR, sha2-256), as AT Protocol uses, of the canonical entry:
 * the entry without its own cid and slug, with absent fields left out (DAG-CBOR sorts map keys,
 * so the encoding is canonical by construction). The slug is three words taken from the digest;
 * with 128 words that is 2^21 names, so two receipts of a busy town will sometimes share one and
 * the reader must answer `ambiguous`.
 */
import { hash } from 'node:crypto';
import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import { withEncoded } from './dag-cbor.js';

/** 128 short words, easy to say and to type; fixed forever (slugs of old receipts depend on it). */
export const slugWords = [
  'acorn',
  'amber',
  'anchor',
  'apple',
  'arrow',
  'ash',
  'aspen',
  'badger',
  'barley',
  'basil',
  'beacon',
  'bell',
  'berry',
  'birch',
  'bison',
  'bloom',
  'bramble',
  'brook',
  'cabin',
  'candle',
  'canyon',
  'cedar',
  'chalk',
  'cherry',
  'cider',
  'clay',
  'clover',
  'cobalt',
  'comet',
  'copper',
  'coral',
  'crane',
  'cricket',
  'crow',
  'daisy',
  'dawn',
  'delta',
  'dove',
  'dune',
  'eagle',
  'ember',
  'fable',
  'falcon',
  'fern',
  'fig',
  'finch',
  'flint',
  'fog',
  'forest',
  'fox',
  'frost',
  'garnet',
  'ginger',
  'glade',
  'granite',
  'gull',
  'harbor',
  'hazel',
  'heron',
  'hill',
  'holly',
  'honey',
  'iris',
  'ivory',
  'ivy',
  'jade',
  'juniper',
  'kettle',
  'lake',
  'lantern',
  'lark',
  'laurel',
  'lemon',
  'lily',
  'linen',
  'lotus',
  'maple',
  'marsh',
  'meadow',
  'mint',
  'moss',
  'moth',
  'nectar',
  'nutmeg',
  'oak',
  'oat',
  'olive',
  'onyx',
  'orchid',
  'otter',
  'owl',
  'pebble',
  'pepper',
  'pine',
  'plum',
  'pond',
  'poppy',
  'quail',
  'quartz',
  'quill',
  'rain',
  'raven',
  'reed',
  'river',
  'robin',
  'rose',
  'rye',
  'sage',
  'salt',
  'sand',
  'shell',
  'sparrow',
  'spruce',
  'star',
  'stone',
  'storm',
  'swan',
  'thistle',
  'thyme',
  'tide',
  'tulip',
  'violet',
  'walnut',
  'willow',
  'wren',
  'yarrow',
  'yew',
  'zephyr',
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

/** The reference encoding, for what the fast writer gives up on (it never differs from it). */
const referenceBytes = (body: unknown): Uint8Array => dagCbor.encode(defined(body));

export function canonicalBytes(body: unknown): Uint8Array {
  return withEncoded(body, (bytes) => new Uint8Array(bytes)) ?? referenceBytes(body);
}

export interface ContentId {
  cid: string;
  slug: string;
}

/**
 * SHA-256 into a reused 32-byte array. Node's one-shot hash answers hex text several times
 * faster than a Buffer (making a Buffer from native code is the slow part), so the hex is read
 * back by hand.
 */
const digestBytes = new Uint8Array(32);
const hexValue = new Uint8Array(128);
for (let i = 0; i < 16; i++) hexValue['0123456789abcdef'.charCodeAt(i)] = i;
function sha256(bytes: Uint8Array): Uint8Array {
  const hex = hash('sha256', bytes, 'hex');
  for (let i = 0; i < 32; i++) digestBytes[i] = (hexValue[hex.charCodeAt(2 * i)]! << 4) | hexValue[hex.charCodeAt(2 * i + 1)]!;
  return digestBytes;
}

export function contentId(body: unknown): ContentId {
  const digest = withEncoded(body, sha256) ?? sha256(referenceBytes(body));
  return { cid: cidText(digest), slug: slugOfDigest(digest) };
}

/** CIDv1 prefix: version 1, codec dag-cbor (0x71), multihash sha2-256 (0x12) of 32 bytes. */
const cidPrefix = [0x01, dagCbor.code, 0x12, 0x20];
const base32 = Buffer.from('abcdefghijklmnopqrstuvwxyz234567', 'latin1');
const cidChars = Buffer.alloc(64);

/**
 * The CID as multiformats writes it (`b` + RFC 4648 base32, lower case, unpadded), built by hand:
 * multiformats' CID object and base encoder cost more than the hashing they wrap, and the text
 * they build by appending is a chain of ~50 string pieces that a world keeping the cid as a key
 * holds on to (about 1.5 KB a receipt). One native slice gives a flat string.
 */
export function cidText(digest: Uint8Array): string {
  if (digest.length !== 32) throw new RangeError('a sha2-256 digest is 32 bytes');
  let n = 0;
  cidChars[n++] = 0x62; // 'b'
  let bits = 0;
  let acc = 0;
  const bytes = cidPrefix.length + digest.length;
  for (let i = 0; i < bytes; i++) {
    acc = ((acc << 8) | (i < 4 ? cidPrefix[i]! : digest[i - 4]!)) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      cidChars[n++] = base32[(acc >> bits) & 31]!;
    }
  }
  if (bits > 0) cidChars[n++] = base32[(acc << (5 - bits)) & 31]!;
  return cidChars.toString('latin1', 0, n);
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
  return fingerprintOfText(stableJson(value));
}

/** The fingerprint of a value whose stable JSON is `text`. */
export const fingerprintOfText = (text: string): string => hash('sha256', text, 'base64url');

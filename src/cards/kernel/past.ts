/**
 * The carried past: what a world keeps of the epochs before a carry so it still keeps its
 * promises (a used intent stays used, a slug stays unambiguous, a content id still names its
 * receipt) without holding a record per receipt. Three flat tables, built from the past epoch's
 * entries (a pure function of its archive), about 60 bytes an entry in all:
 *
 * - `digests`: the sha2-256 digest of every past entry, indexed by height (cid and slug are both
 *   functions of it);
 * - `slugs`: (21-bit slug number, height) pairs, sorted;
 * - `intents`: 20-byte records, sorted: 8 bytes of SHA-256(principal, intent), 7 bytes of
 *   SHA-256(request fingerprint), 1 byte of status, 4 bytes of height.
 *
 * Truncated hashes: docs/decisions/carries-and-epochs.md gives the false-positive argument.
 */
import { createHash } from 'node:crypto';
import { cidText, slugOfDigest, slugWords } from './content-id.js';
import type { Entry } from './entry.js';

/** One archived epoch: heights [from, to) lie in `archive`, a file whose bytes hash to `sha256`. */
export interface PastEpoch {
  epoch: number;
  from: number;
  to: number;
  archive: string;
  sha256: string;
}

export interface Past {
  /** Oldest first, contiguous from height 0. */
  epochs: PastEpoch[];
  digests: Buffer;
  slugs: Uint32Array;
  intents: Buffer;
}

/** Where a receipt from before a carry lives: all a pre-carry receipt is answered with. */
export interface CarriedPointer {
  archive: string;
  epoch: number;
  height: number;
  cid: string;
}

export interface PastReceipt {
  cid: string;
  slug: string;
  height: number;
  pointer: CarriedPointer;
}

const intentBytes = 20;
const digestBytes = 32;

const sha = (text: string) => createHash('sha256').update(text).digest();
const keyHash = (principal: string, intent: string) => sha(`${principal}\n${intent}`).subarray(0, 8);
const fingerprintHash = (fp: string) => sha(fp).subarray(0, 7);

/** The 21-bit number three slug words spell, or undefined for text that is not a slug. */
export function slugNumber(slug: string): number | undefined {
  const words = slug.split('-');
  if (words.length !== 3) return undefined;
  let n = 0;
  for (const w of words) {
    const i = slugIndex.get(w);
    if (i === undefined) return undefined;
    n = (n << 7) | i;
  }
  return n;
}
const slugIndex = new Map<string, number>(slugWords.map((w, i) => [w, i]));

/** The 32-byte digest of a content id as text (`b` + base32 of the 36-byte CIDv1). */
export function digestOfCid(cid: string): Buffer | undefined {
  if (cid.length !== 59 || cid[0] !== 'b') return undefined;
  const out = Buffer.alloc(36);
  let acc = 0;
  let bits = 0;
  let n = 0;
  for (let i = 1; i < cid.length; i++) {
    const v = base32Index[cid.charCodeAt(i)] ?? -1;
    if (v < 0) return undefined;
    acc = ((acc << 5) | v) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  if (n !== 36 || out[0] !== 0x01 || out[2] !== 0x12 || out[3] !== 0x20) return undefined;
  return out.subarray(4);
}
const base32Index: number[] = [];
for (const [i, c] of [...'abcdefghijklmnopqrstuvwxyz234567'].entries()) base32Index[c.charCodeAt(0)] = i;

/**
 * The past of one epoch from its entries (heights `from` upwards, consecutive), laid over an
 * older past when there is one. Throws on a gap: a past with a hole would misname heights.
 */
export function pastOfEntries(entries: Iterable<Entry>, epoch: Omit<PastEpoch, 'to'>, older?: Past): Past {
  const builder = new PastBuilder(epoch, older);
  for (const entry of entries) builder.add(entry);
  return builder.finish();
}

/** The same, one entry at a time (an archive is read as a stream, never held whole). */
export class PastBuilder {
  private readonly digests: Buffer[] = [];
  private readonly slugPairs: number[] = [];
  private readonly intents: Buffer[] = [];
  private height: number;

  constructor(
    private readonly epoch: Omit<PastEpoch, 'to'>,
    private readonly older?: Past,
  ) {
    const from = older ? pastEnd(older) : 0;
    if (epoch.from !== from) throw new Error(`epoch ${epoch.epoch} starts at height ${epoch.from}, the past ends at ${from}`);
    if (older) this.digests.push(older.digests);
    this.height = from;
  }

  add(entry: Entry): void {
    const height = this.height;
    if (entry.height !== height) throw new Error(`the past of epoch ${this.epoch.epoch} has entry ${entry.height} where ${height} was due`);
    const digest = digestOfCid(entry.cid);
    if (!digest) throw new Error(`entry ${entry.height} has no sha2-256 content id: ${entry.cid}`);
    this.digests.push(digest);
    this.slugPairs.push(slugNumberOfDigest(digest), height);
    if (entry.intent) {
      const rec = Buffer.alloc(intentBytes);
      keyHash(entry.principal, entry.intent.intent).copy(rec, 0);
      fingerprintHash(entry.intent.fingerprint).copy(rec, 8);
      rec[15] = entry.receipt.status === 'refused' ? 1 : 0;
      rec.writeUInt32BE(height, 16);
      this.intents.push(rec);
    }
    this.height++;
  }

  finish(): Past {
    const { older } = this;
    const slugs = sortedPairs(this.slugPairs);
    this.intents.sort((a, b) => a.compare(b, 0, 8, 0, 8));
    const intents = Buffer.concat(this.intents);
    return {
      epochs: [...(older?.epochs ?? []), { ...this.epoch, to: this.height }],
      digests: Buffer.concat(this.digests),
      slugs: older ? mergePairs(older.slugs, slugs) : slugs,
      intents: older ? mergeIntents(older.intents, intents) : intents,
    };
  }
}

const slugNumberOfDigest = (d: Uint8Array) => (d[0]! << 13) | (d[1]! << 5) | (d[2]! >> 3);

function sortedPairs(flat: number[]): Uint32Array {
  const n = flat.length / 2;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => flat[2 * a]! - flat[2 * b]! || flat[2 * a + 1]! - flat[2 * b + 1]!);
  const out = new Uint32Array(flat.length);
  order.forEach((i, k) => {
    out[2 * k] = flat[2 * i]!;
    out[2 * k + 1] = flat[2 * i + 1]!;
  });
  return out;
}

function mergePairs(a: Uint32Array, b: Uint32Array): Uint32Array {
  const flat = [...a, ...b];
  return sortedPairs(flat);
}

function mergeIntents(a: Buffer, b: Buffer): Buffer {
  const recs: Buffer[] = [];
  for (let i = 0; i < a.length; i += intentBytes) recs.push(a.subarray(i, i + intentBytes));
  for (let i = 0; i < b.length; i += intentBytes) recs.push(b.subarray(i, i + intentBytes));
  recs.sort((x, y) => x.compare(y, 0, 8, 0, 8));
  return Buffer.concat(recs);
}

/** The height past ends at (the first height of the current epoch). */
export const pastEnd = (past: Past) => past.epochs[past.epochs.length - 1]!.to;

/** The receipt at a past height, as a pointer into its archive. */
export function pastAt(past: Past, height: number): PastReceipt | undefined {
  if (!Number.isInteger(height) || height < 0 || height >= pastEnd(past)) return undefined;
  const digest = past.digests.subarray(height * digestBytes, (height + 1) * digestBytes);
  const epoch = past.epochs.find((e) => height >= e.from && height < e.to)!;
  const cid = cidText(digest);
  return { cid, slug: slugOfDigest(digest), height, pointer: { archive: epoch.archive, epoch: epoch.epoch, height, cid } };
}

/** Past receipts whose slug reads `slug`, oldest first. */
export function pastBySlug(past: Past, slug: string): PastReceipt[] {
  const n = slugNumber(slug);
  if (n === undefined) return [];
  const s = past.slugs;
  let lo = 0;
  let hi = s.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (s[2 * mid]! < n) lo = mid + 1;
    else hi = mid;
  }
  const out: PastReceipt[] = [];
  for (let i = lo; i < s.length / 2 && s[2 * i] === n; i++) out.push(pastAt(past, s[2 * i + 1]!)!);
  return out;
}

/** The past receipt a content id names. */
export function pastByCid(past: Past, cid: string): PastReceipt | undefined {
  const digest = digestOfCid(cid);
  if (!digest) return undefined;
  for (const r of pastBySlug(past, slugOfDigest(digest))) if (r.cid === cid) return r;
  return undefined;
}

/** A past use of `intent` by `principal`: its receipt, status, and whether `fp` is the same request. */
export function pastIntent(
  past: Past,
  principal: string,
  intent: string,
  fp: string,
): { receipt: PastReceipt; status: 'done' | 'refused'; same: boolean } | undefined {
  const key = keyHash(principal, intent);
  const t = past.intents;
  let lo = 0;
  let hi = t.length / intentBytes;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t.compare(key, 0, 8, mid * intentBytes, mid * intentBytes + 8) < 0) lo = mid + 1;
    else hi = mid;
  }
  const at = lo * intentBytes;
  if (at >= t.length || t.compare(key, 0, 8, at, at + 8) !== 0) return undefined;
  const receipt = pastAt(past, t.readUInt32BE(at + 16))!;
  const same = t.compare(fingerprintHash(fp), 0, 7, at + 8, at + 15) === 0;
  return { receipt, status: t[at + 15] === 1 ? 'refused' : 'done', same };
}

/** The past as plain JSON (for the carry entry's sidecar and the snapshot). */
export function encodePast(past: Past): { epochs: PastEpoch[]; digests: string; slugs: string; intents: string } {
  return {
    epochs: past.epochs,
    digests: past.digests.toString('base64'),
    slugs: Buffer.from(past.slugs.buffer, past.slugs.byteOffset, past.slugs.byteLength).toString('base64'),
    intents: past.intents.toString('base64'),
  };
}

export function decodePast(o: ReturnType<typeof encodePast>): Past {
  return pastOfTables(o.epochs, Buffer.from(o.digests, 'base64'), Buffer.from(o.slugs, 'base64'), Buffer.from(o.intents, 'base64'));
}

/** The past from its three tables as bytes (the slug pairs as the platform's 32-bit words), checked. */
export function pastOfTables(epochs: PastEpoch[], digests: Buffer, slugBytes: Buffer, intents: Buffer): Past {
  const slugs = new Uint32Array(slugBytes.length / 4);
  Buffer.from(slugs.buffer).set(slugBytes);
  const past = { epochs, digests, slugs, intents };
  if (past.digests.length !== pastEnd(past) * digestBytes || past.intents.length % intentBytes !== 0 || slugs.length !== 2 * pastEnd(past)) {
    throw new Error('the carried past does not add up: its tables and its epochs disagree');
  }
  return past;
}

/** Bytes the past holds (for the bench). */
export const pastBytes = (p: Past) => p.digests.length + p.slugs.byteLength + p.intents.length;

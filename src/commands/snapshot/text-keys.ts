/**
 * The keys of a snapshot's lazy Map, left where they lie in the snapshot's bytes: a hash table
 * of typed arrays over the lines `<key as JSON>\t<value as JSON>`, so that loading a snapshot
 * makes no string and no Map entry per key. A town of 200,000 entries has ~700,000 such keys;
 * making them into a Map's keys (a string each, a Map that grows by rehashing) was most of a
 * snapshot start's load (docs/decisions/world-snapshots.md).
 *
 * A key is hashed as the string it stands for (its JSON escapes undone), so a lookup hashes the
 * string it is given, allocating nothing, and decodes a line's key only when the hashes match.
 * Entries are only ever added at load and removed later (decoded, replaced or deleted): removal
 * marks an entry dead, and lookups pass over it.
 */

const DEAD = 1;
/** A key the byte-level hash does not read (not ASCII): hashed from its decoded string instead. */
const SLOW = 2;

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 16777619;

/** FNV-1a over the string's UTF-16 code units. */
export function hashKey(key: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), FNV_PRIME);
  return h;
}

export class TextKeys<K> {
  /** Per entry, in the order added: where its line starts, where its tab is, its key's hash, flags. */
  private starts = new Uint32Array(64);
  private tabs = new Uint32Array(64);
  private hashes = new Int32Array(64);
  private flags = new Uint8Array(64);
  /** Open addressing, linear probing: entry + 1, 0 for an empty slot. */
  private table = new Int32Array(128);
  private count = 0;
  /** Entries not removed. */
  live = 0;
  /** Keys that are not strings (no World Map has them; kept for any Map the format may hold). */
  private odd: Map<K, number> | undefined;

  constructor(readonly source: Buffer) {}

  /**
   * Adds the line `source[start..end)`, a key's JSON text and a tab before its value's; false when
   * it holds no tab. Throws when the key is no JSON.
   */
  add(start: number, end: number): boolean {
    const b = this.source;
    let tab = -1;
    let h = FNV_OFFSET;
    /** The hash read off the bytes is the key's: ASCII, and no escape but the short ones. */
    let fast = false;
    if (b[start] === 0x22) {
      // The key's closing quote is the first quote not escaped, and the tab follows it at once;
      // the key's hash is read on the way (not `fast`: other escapes, bytes past ASCII).
      let i = start + 1;
      fast = true;
      for (; i < end; i++) {
        let c = b[i]!;
        if (c === 0x22) break;
        if (c === 0x5c) {
          const e = b[++i]!;
          if (e === 0x6e) c = 10;
          else if (e === 0x22 || e === 0x5c || e === 0x2f) c = e;
          else if (e === 0x74) c = 9;
          else if (e === 0x72) c = 13;
          else if (e === 0x62) c = 8;
          else if (e === 0x66) c = 12;
          else {
            fast = false; // (\u escapes too: the decoded key is hashed below)
            continue;
          }
        } else if (c < 0x20 || c >= 0x80) fast = false;
        h = Math.imul(h ^ c, FNV_PRIME);
      }
      if (i + 1 < end && b[i + 1] === 9) tab = i + 1;
      else fast = false;
    }
    if (tab < 0) {
      tab = b.indexOf(9, start);
      if (tab < 0 || tab >= end) return false;
    }
    const n = this.count;
    if (n === this.starts.length) this.grow();
    this.starts[n] = start;
    this.tabs[n] = tab;
    if (!fast) {
      const key = JSON.parse(b.toString('utf8', start, tab)) as unknown;
      if (typeof key !== 'string') {
        this.odd ??= new Map();
        const before = this.odd.get(key as K);
        if (before !== undefined) this.remove(before);
        this.odd.set(key as K, n);
        this.flags[n] = 0;
        this.count = n + 1;
        this.live++;
        return true;
      }
      h = hashKey(key);
      this.flags[n] = SLOW;
    } else this.flags[n] = 0;
    this.hashes[n] = h;
    // (the entries so far, without this one: it is placed below, as a line being loaded)
    if ((this.live + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    this.count = n + 1;
    this.place(n, h, true);
    this.live++;
    return true;
  }

  /** The entry holding `key` and not removed, or -1. */
  find(key: K): number {
    if (typeof key !== 'string') {
      if (!this.odd) return -1;
      const i = this.odd.get(key);
      return i === undefined ? -1 : i;
    }
    const h = hashKey(key);
    const mask = this.table.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const e = this.table[slot]! - 1;
      if (e < 0) return -1;
      if (this.hashes[e] === h && !(this.flags[e]! & DEAD) && this.holds(e, key)) return e;
    }
  }

  /**
   * Whether entry `e`'s key is `key`: read off the bytes as the hash was (no string made), or, for
   * a key the bytes were not read for, decoded.
   */
  private holds(e: number, key: string): boolean {
    if (this.flags[e]! & SLOW) return this.keyAt(e) === key;
    const b = this.source;
    const end = this.tabs[e]! - 1;
    let j = 0;
    for (let i = this.starts[e]! + 1; i < end; i++, j++) {
      let c = b[i]!;
      if (c === 0x5c) {
        const x = b[++i]!;
        c = x === 0x6e ? 10 : x === 0x74 ? 9 : x === 0x72 ? 13 : x === 0x62 ? 8 : x === 0x66 ? 12 : x;
      }
      if (j >= key.length || key.charCodeAt(j) !== c) return false;
    }
    return j === key.length;
  }

  /** Marks an entry removed (its key decoded into the Map proper, replaced, or deleted). */
  remove(e: number): void {
    if (this.flags[e]! & DEAD) return;
    this.flags[e]! |= DEAD;
    this.live--;
  }

  /** Removes every entry. */
  clear(): void {
    this.flags.fill(DEAD, 0, this.count);
    this.live = 0;
    this.odd = undefined;
  }

  keyAt(e: number): K {
    return JSON.parse(this.source.toString('utf8', this.starts[e]!, this.tabs[e]!)) as K;
  }

  /** The key's JSON text as it lies in the source. */
  keyTextAt(e: number): string {
    return this.source.toString('utf8', this.starts[e]!, this.tabs[e]!);
  }

  /** The value's JSON text: from after the tab to the end of the line. */
  valueTextAt(e: number): string {
    const start = this.tabs[e]! + 1;
    const end = this.source.indexOf(10, start);
    return this.source.toString('utf8', start, end < 0 ? this.source.length : end);
  }

  /** The entries not removed, in the order they were added. */
  liveEntries(): Uint32Array {
    const out = new Uint32Array(this.live);
    let j = 0;
    for (let e = 0; e < this.count; e++) if (!(this.flags[e]! & DEAD)) out[j++] = e;
    return out;
  }

  private grow(): void {
    const size = this.starts.length * 2;
    this.starts = larger(this.starts, new Uint32Array(size));
    this.tabs = larger(this.tabs, new Uint32Array(size));
    this.hashes = larger(this.hashes, new Int32Array(size));
    this.flags = larger(this.flags, new Uint8Array(size));
  }

  private rehash(size: number): void {
    this.table = new Int32Array(size);
    for (let e = 0; e < this.count; e++) if (!(this.flags[e]! & DEAD) && !this.isOdd(e)) this.place(e, this.hashes[e]!, false);
  }

  private isOdd(e: number): boolean {
    return this.odd !== undefined && this.source[this.starts[e]!] !== 0x22;
  }

  /**
   * Puts entry `e` in the table; `added`: a line being loaded, which replaces an entry of the same
   * key text (a Map written out holds each key once; a file that repeats one reads as a Map would
   * have: the later value).
   */
  private place(e: number, h: number, added: boolean): void {
    const mask = this.table.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const other = this.table[slot]! - 1;
      if (other < 0) {
        this.table[slot] = e + 1;
        return;
      }
      if (added && this.hashes[other] === h && !(this.flags[other]! & DEAD) && this.keyAt(other) === this.keyAt(e)) {
        this.remove(other);
        this.table[slot] = e + 1;
        return;
      }
    }
  }
}

/** `into` (a larger array of the same kind) holding `from`'s elements first. */
function larger<A extends Uint32Array | Int32Array | Uint8Array>(from: A, into: A): A {
  into.set(from);
  return into;
}

/**
 * A Map whose values loaded from a snapshot stay JSON text until someone asks for them. A town
 * of 200,000 entries has 200,000 receipts and intents in its World; decoding them all at start
 * is most of the start, and a turn only ever looks at a handful. Values set later (evolve) are
 * plain values, as in any Map. Iteration decodes what it yields, so code that walks the whole
 * map sees exactly what a plain Map would give.
 *
 * The text stays in the snapshot's bytes, and so do the keys: a line `<key>\t<value>` is found
 * through a hash table over the bytes (snapshot/text-keys.ts). Making a string of every value at load
 * (hundreds of thousands, most never read) was half of the load's time and most of its garbage
 * collection; making a string and a Map entry of every key was most of what remained.
 */
import { KeyedMap } from '../../cards/kernel/keyed-map.js';
import { TextKeys } from './text-keys.js';

export class LazyMap<K, V> extends KeyedMap<K, V> {
  /** Keys whose value is still text; a key is in the Map proper or here, never both. */
  private readonly raw: TextKeys<K>;

  /** `source`: lines of `<key as JSON>\t<value as JSON>`, added with `addLine`. */
  constructor(source: Buffer = Buffer.alloc(0)) {
    super();
    this.raw = new TextKeys(source);
  }

  /**
   * Adds the pair on the line `source[start..end)` (loading), its value left as text; false when
   * the line holds no tab. Throws when its key is no JSON.
   */
  addLine(start: number, end: number): boolean {
    return this.raw.add(start, end);
  }

  /** The entry still text for `key`, or -1. */
  private rawEntry(key: K): number {
    return this.raw.live === 0 ? -1 : this.raw.find(key);
  }

  /** The JSON text of a value still undecoded, for writing it back out without decoding it. */
  rawOf(key: K): string | undefined {
    const e = this.rawEntry(key);
    return e < 0 ? undefined : this.raw.valueTextAt(e);
  }

  private decode(key: K): V | undefined {
    const e = this.rawEntry(key);
    if (e < 0) return undefined;
    const value = JSON.parse(this.raw.valueTextAt(e)) as V;
    this.raw.remove(e);
    super.set(key, value);
    return value;
  }

  override get(key: K): V | undefined {
    return super.has(key) ? super.get(key) : this.decode(key);
  }

  override has(key: K): boolean {
    return super.has(key) || this.rawEntry(key) >= 0;
  }

  override set(key: K, value: V): this {
    const e = this.rawEntry(key);
    if (e >= 0) this.raw.remove(e);
    super.set(key, value);
    return this;
  }

  override delete(key: K): boolean {
    const e = this.rawEntry(key);
    if (e >= 0) this.raw.remove(e);
    return super.delete(key) || e >= 0;
  }

  override clear(): void {
    this.raw.clear();
    super.clear();
  }

  override get size(): number {
    return super.size + this.raw.live;
  }

  override *keys(): MapIterator<K> {
    yield* [...super.keys()];
    const raw = this.raw.live === 0 ? [] : this.raw.liveEntries();
    for (const e of raw) yield this.raw.keyAt(e);
  }

  /**
   * The pairs as they stand, copied out, decoding nothing: the decoded ones as keys and values,
   * the rest as the JSON text of their keys and values (read from the source, which never changes).
   */
  frozen(): { keys: K[]; values: V[]; raw: { count: number; keyText: (i: number) => string; text: (i: number) => string } } {
    const entries = this.raw.liveEntries();
    return {
      keys: [...Map.prototype.keys.call(this)] as K[],
      values: [...Map.prototype.values.call(this)] as V[],
      raw: { count: entries.length, keyText: (i) => this.raw.keyTextAt(entries[i]!), text: (i) => this.raw.valueTextAt(entries[i]!) },
    };
  }
}

/**
 * A Map whose values loaded from a snapshot stay JSON text until someone asks for them. A town
 * of 200,000 entries has 200,000 receipts and intents in its World; decoding them all at start
 * is most of the start, and a turn only ever looks at a handful. Values set later (evolve) are
 * plain values, as in any Map. Iteration decodes what it yields, so code that walks the whole
 * map sees exactly what a plain Map would give.
 *
 * The text stays in the snapshot's bytes: a key maps to where its value's line starts. Making a
 * string of every value at load (hundreds of thousands, most never read) was half of the load's
 * time and most of its garbage collection.
 */
import { KeyedMap } from '../cards/kernel/keyed-map.js';

export class LazyMap<K, V> extends KeyedMap<K, V> {
  /** Keys whose value is still text, to where it starts; a key is in the Map proper or here, never both. */
  private readonly raw = new Map<K, number>();

  /** `source`: lines of JSON text, each value running from its start to the end of its line. */
  constructor(private readonly source: Buffer = Buffer.alloc(0)) {
    super();
  }

  /** Adds a value as the JSON text starting at `start` in the source (loading). */
  setRaw(key: K, start: number): void {
    super.delete(key);
    this.raw.set(key, start);
  }

  private textAt(start: number): string {
    const end = this.source.indexOf(10, start);
    return this.source.toString('utf8', start, end < 0 ? this.source.length : end);
  }

  /** The JSON text of a value still undecoded, for writing it back out without decoding it. */
  rawOf(key: K): string | undefined {
    const start = this.raw.get(key);
    return start === undefined ? undefined : this.textAt(start);
  }

  private decode(key: K): V | undefined {
    const start = this.raw.get(key);
    if (start === undefined) return undefined;
    const value = JSON.parse(this.textAt(start)) as V;
    this.raw.delete(key);
    super.set(key, value);
    return value;
  }

  override get(key: K): V | undefined {
    return super.has(key) ? super.get(key) : this.decode(key);
  }

  override has(key: K): boolean {
    return super.has(key) || this.raw.has(key);
  }

  override set(key: K, value: V): this {
    this.raw.delete(key);
    super.set(key, value);
    return this;
  }

  override delete(key: K): boolean {
    const had = this.raw.delete(key);
    return super.delete(key) || had;
  }

  override clear(): void {
    this.raw.clear();
    super.clear();
  }

  override get size(): number {
    return super.size + this.raw.size;
  }

  override *keys(): MapIterator<K> {
    yield* [...super.keys()];
    yield* [...this.raw.keys()];
  }

  /**
   * The pairs as they stand, copied out, decoding nothing: the decoded ones as keys and values,
   * the rest as keys and their text (read from the source, which never changes).
   */
  frozen(): { keys: K[]; values: V[]; raw: { keys: K[]; text: (i: number) => string } } {
    const starts = [...this.raw.values()];
    return {
      keys: [...Map.prototype.keys.call(this)] as K[],
      values: [...Map.prototype.values.call(this)] as V[],
      raw: { keys: [...this.raw.keys()], text: (i) => this.textAt(starts[i]!) },
    };
  }
}

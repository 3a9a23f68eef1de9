/**
 * A Map whose values loaded from a snapshot stay JSON text until someone asks for them. A town
 * of 200,000 entries has 200,000 receipts and intents in its World; decoding them all at start
 * is most of the start, and a turn only ever looks at a handful. Values set later (evolve) are
 * plain values, as in any Map. Iteration decodes what it yields, so code that walks the whole
 * map sees exactly what a plain Map would give.
 */
import { KeyedMap } from '../cards/kernel/keyed-map.js';

export class LazyMap<K, V> extends KeyedMap<K, V> {
  /** Keys whose value is still text; a key is in the Map proper or here, never both. */
  private readonly raw = new Map<K, string>();

  /** Adds a value as its JSON text (loading). */
  setRaw(key: K, json: string): void {
    super.delete(key);
    this.raw.set(key, json);
  }

  /** The JSON text of a value still undecoded, for writing it back out without decoding it. */
  rawOf(key: K): string | undefined {
    return this.raw.get(key);
  }

  private decode(key: K): V | undefined {
    const text = this.raw.get(key);
    if (text === undefined) return undefined;
    const value = JSON.parse(text) as V;
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

  /** Every pair as JSON text of the value, decoding nothing that is still text. */
  *rawEntries(): Generator<[K, string]> {
    for (const [k, v] of [...Map.prototype.entries.call(this)] as [K, V][]) yield [k, JSON.stringify(v)];
    yield* [...this.raw];
  }
}

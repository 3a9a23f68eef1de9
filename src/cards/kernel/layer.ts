/**
 * A Map laid over another, read-through and copy-on-write: sets and deletes stay in the layer,
 * the map beneath is never touched. `decide` uses it to apply entries it is still deciding (a
 * run of deliveries) without mutating the world it was given.
 *
 * Iteration yields the base's live keys first, then keys new to the layer. Code that must be
 * deterministic never depends on iteration order anyway (queued sends are ordered by id).
 */
import { KeyedMap } from './keyed-map.js';

/**
 * A map that can walk its keys in order from a point on without walking them all (a fork's base,
 * history.ts, and a layer over such a map): a fork's listing pages through 100,000 cards this way.
 */
export interface Ordered {
  /** Keys in ascending order, from `from` on (after it unless `inclusive`; all when undefined). */
  keysFrom(from: string | undefined, inclusive: boolean): Iterable<string>;
}

/** The ordered walk of `map`, when it has one. */
export function orderedOf(map: ReadonlyMap<string, unknown>): Ordered | undefined {
  const o = map as Partial<Ordered>;
  return typeof o.keysFrom === 'function' && (!(map instanceof LayerMap) || map.ordered) ? (o as Ordered) : undefined;
}

export class LayerMap<K, V> extends KeyedMap<K, V> {
  private readonly gone = new Set<K>();
  /** Keys added minus keys removed, relative to the base (which never changes under a layer). */
  private delta = 0;

  constructor(private readonly base: ReadonlyMap<K, V>) {
    super();
  }

  override get(key: K): V | undefined {
    if (super.has(key)) return super.get(key);
    if (this.gone.has(key)) return undefined;
    return this.base.get(key);
  }

  override has(key: K): boolean {
    if (super.has(key)) return true;
    if (this.gone.has(key)) return false;
    return this.base.has(key);
  }

  override set(key: K, value: V): this {
    if (!this.has(key)) this.delta++;
    this.gone.delete(key);
    super.set(key, value);
    return this;
  }

  override delete(key: K): boolean {
    const had = this.has(key);
    if (had) this.delta--;
    super.delete(key);
    if (this.base.has(key)) this.gone.add(key);
    return had;
  }

  override clear(): void {
    this.delta = -this.base.size;
    super.clear();
    for (const key of this.base.keys()) this.gone.add(key);
  }

  override get size(): number {
    return this.base.size + this.delta;
  }

  override *keys(): MapIterator<K> {
    for (const key of this.base.keys()) if (this.has(key)) yield key;
    for (const key of super.keys()) if (!this.base.has(key)) yield key;
  }

  /** Whether the map beneath walks its keys in order (then so does this layer: `keysFrom`). */
  get ordered(): boolean {
    return orderedOf(this.base as ReadonlyMap<string, unknown>) !== undefined;
  }

  /** The base's ordered keys merged with this layer's own (sorted per call: a layer holds few). */
  *keysFrom(from: string | undefined, inclusive: boolean): Iterable<string> {
    const base = orderedOf(this.base as ReadonlyMap<string, unknown>);
    if (!base) throw new Error('keysFrom: the map beneath this layer has no order');
    const wanted = (k: string) => from === undefined || k > from || (inclusive && k === from);
    const own = ([...super.keys()] as unknown as string[]).filter(wanted).sort();
    let i = 0;
    for (const k of base.keysFrom(from, inclusive)) {
      while (i < own.length && own[i]! < k) yield own[i++]!;
      if (i < own.length && own[i] === k) {
        i++;
        yield k;
      } else if (!this.gone.has(k as K)) yield k;
    }
    while (i < own.length) yield own[i++]!;
  }
}

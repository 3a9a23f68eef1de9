/**
 * A Map laid over another, read-through and copy-on-write: sets and deletes stay in the layer,
 * the map beneath is never touched. `decide` uses it to apply entries it is still deciding (a
 * run of deliveries) without mutating the world it was given.
 *
 * Iteration yields the base's live keys first, then keys new to the layer. Code that must be
 * deterministic never depends on iteration order anyway (queued sends are ordered by id).
 */
import { KeyedMap } from './keyed-map.js';

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
}

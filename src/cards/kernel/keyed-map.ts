/**
 * A Map whose subclass says what it holds through `keys()` and `get()` (a layer over another
 * map, values kept as text until read): every other way of walking it follows from those two,
 * so it walks as a plain Map holding the same pairs would.
 */
export class KeyedMap<K, V> extends Map<K, V> {
  override *entries(): MapIterator<[K, V]> {
    for (const key of this.keys()) yield [key, this.get(key) as V];
  }

  override *values(): MapIterator<V> {
    for (const key of this.keys()) yield this.get(key) as V;
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  override forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
}

/**
 * A plain object's own enumerable keys copied, in order, into a fresh object: what `{...o}` gives,
 * but one that takes new keys cheaply. V8 (Node 20) builds the result of a spread followed by a
 * key the source lacks (`{...o, k: v}`) on a map of its own every time, at ~0.6 µs per added key;
 * an object filled by assignment shares its maps with every other such copy.
 */
export function copied<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) {
    const v = (o as Record<string, unknown>)[k];
    // assigning `__proto__` would set the prototype; a spread makes it an own key, as here
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out as T;
}

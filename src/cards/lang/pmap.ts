/**
 * The value of a `Map K V`: a persistent AVL tree keyed by naturals or by texts (in code point
 * order, as `<` orders texts). A put or remove copies only the path from the root to the key
 * (at most ~1.44 log2 n nodes) and shares the rest with the map it came from, so a card can
 * keep thousands of rows and every edit still makes a new value, never changing one in place.
 * Its order is the keys' order, whatever order they were put in: what `keys` lists and how the
 * map is written as typed data. It holds values of any type `V`: the language's values
 * (values.ts) hold maps of themselves, `PMap<Value>`, so this module need not know them.
 */
import { cmpText } from './text-order.js';

export type Key = number | bigint | string;

export class MapNode<V> {
  constructor(
    readonly k: Key,
    readonly v: V,
    readonly l: MapNode<V> | null,
    readonly r: MapNode<V> | null,
    readonly h: number,
    /** Entries in this subtree. */
    readonly n: number,
  ) {}
}

export class PMap<V> {
  constructor(readonly root: MapNode<V> | null) {}
  get size(): number {
    return this.root ? this.root.n : 0;
  }
  /** Height of the tree: what one operation walks (its ticks). */
  get depth(): number {
    return this.root ? this.root.h : 0;
  }
}

export const emptyMap = new PMap<never>(null);

export function cmpKey(a: Key, b: Key): number {
  if (typeof a === 'string') return cmpText(a, b as string);
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

const h = (n: MapNode<unknown> | null): number => (n ? n.h : 0);
const size = (n: MapNode<unknown> | null): number => (n ? n.n : 0);

function node<V>(k: Key, v: V, l: MapNode<V> | null, r: MapNode<V> | null): MapNode<V> {
  const hl = h(l);
  const hr = h(r);
  return new MapNode(k, v, l, r, Math.max(hl, hr) + 1, size(l) + size(r) + 1);
}

function balance<V>(k: Key, v: V, l: MapNode<V> | null, r: MapNode<V> | null): MapNode<V> {
  const hl = h(l);
  const hr = h(r);
  if (hl > hr + 1) {
    const ll = l!.l;
    const lr = l!.r;
    if (h(ll) >= h(lr)) return node(l!.k, l!.v, ll, node(k, v, lr, r));
    return node(lr!.k, lr!.v, node(l!.k, l!.v, ll, lr!.l), node(k, v, lr!.r, r));
  }
  if (hr > hl + 1) {
    const rl = r!.l;
    const rr = r!.r;
    if (h(rr) >= h(rl)) return node(r!.k, r!.v, node(k, v, l, rl), rr);
    return node(rl!.k, rl!.v, node(k, v, l, rl!.l), node(r!.k, r!.v, rl!.r, rr));
  }
  return node(k, v, l, r);
}

function insert<V>(t: MapNode<V> | null, k: Key, v: V): MapNode<V> {
  if (!t) return new MapNode(k, v, null, null, 1, 1);
  const c = cmpKey(k, t.k);
  if (c === 0) return new MapNode(t.k, v, t.l, t.r, t.h, t.n);
  if (c < 0) return balance(t.k, t.v, insert(t.l, k, v), t.r);
  return balance(t.k, t.v, t.l, insert(t.r, k, v));
}

function removeMin<V>(t: MapNode<V>): { min: MapNode<V>; rest: MapNode<V> | null } {
  if (!t.l) return { min: t, rest: t.r };
  const r = removeMin(t.l);
  return { min: r.min, rest: balance(t.k, t.v, r.rest, t.r) };
}

function del<V>(t: MapNode<V> | null, k: Key): MapNode<V> | null {
  if (!t) return null;
  const c = cmpKey(k, t.k);
  if (c < 0) return balance(t.k, t.v, del(t.l, k), t.r);
  if (c > 0) return balance(t.k, t.v, t.l, del(t.r, k));
  if (!t.l) return t.r;
  if (!t.r) return t.l;
  const { min, rest } = removeMin(t.r);
  return balance(min.k, min.v, t.l, rest);
}

function find<V>(m: PMap<V>, k: Key): MapNode<V> | null {
  let t = m.root;
  while (t) {
    const c = cmpKey(k, t.k);
    if (c === 0) return t;
    t = c < 0 ? t.l : t.r;
  }
  return null;
}

export const mapHas = <V>(m: PMap<V>, k: Key): boolean => find(m, k) !== null;
export const mapGet = <V>(m: PMap<V>, k: Key): V | undefined => find(m, k)?.v;
export const mapPut = <V>(m: PMap<V>, k: Key, v: V): PMap<V> => new PMap(insert(m.root, k, v));
export const mapRemove = <V>(m: PMap<V>, k: Key): PMap<V> => new PMap(del(m.root, k));

/** The entries in key order, without recursion (a map's tree is shallow, but walk it flat anyway). */
export function mapEach<V>(m: PMap<V>, each: (k: Key, v: V) => boolean | undefined): void {
  const stack: MapNode<V>[] = [];
  let t = m.root;
  while (t || stack.length) {
    while (t) {
      stack.push(t);
      t = t.l;
    }
    const n = stack.pop()!;
    if (each(n.k, n.v) === false) return;
    t = n.r;
  }
}

export function mapKeys<V>(m: PMap<V>): Key[] {
  const out: Key[] = [];
  mapEach(m, (k) => {
    out.push(k);
    return true;
  });
  return out;
}

export function mapValues<V>(m: PMap<V>): V[] {
  const out: V[] = [];
  mapEach(m, (_, v) => {
    out.push(v);
    return true;
  });
  return out;
}

/** A map from entries already in strictly ascending key order, balanced in one pass. */
export function mapFromSorted<V>(keys: Key[], values: V[]): PMap<V> {
  const build = (lo: number, hi: number): MapNode<V> | null => {
    if (lo >= hi) return null;
    const mid = (lo + hi) >>> 1;
    return node(keys[mid]!, values[mid]!, build(lo, mid), build(mid + 1, hi));
  };
  return new PMap(build(0, keys.length));
}

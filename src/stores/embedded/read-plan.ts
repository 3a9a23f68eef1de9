/**
 * Query planning for the embedded read store: which LMDB key ranges hold every document a
 * filter can match, and whether they come out in the requested order.
 *
 * A plan only ever narrows: every document it yields is still tested against the whole filter
 * (mingo), so a plan may yield too much but never too little. Predicates it can use: equality
 * and `$in` on scalars, `$gt/$gte/$lt/$lte` on one type (MongoDB's type bracketing), anchored
 * literal-prefix regular expressions; `$and` members count as top-level fields; an `$or`
 * whose every branch can use an index becomes a union. Everything else is left to the test.
 */
import { effectiveSort, pinnedIds } from '../read-store-documents.js';
import { isPlainObject } from '../read-store-checks.js';
import { cutString, encodeValue, MAX, STRING_CAP, type IndexDef, type KeyPart } from './read-keys.js';
import type { Filter, Sort } from '../read-store.js';

type Point = [number, KeyPart];
interface Bound {
  value: KeyPart;
  inclusive: boolean;
}
export type Pred = { kind: 'points'; points: Point[] } | { kind: 'range'; rank: number; lo?: Bound; hi?: Bound } | { kind: 'prefix'; prefix: string };

export interface ScanRange {
  start: unknown[];
  end: unknown[];
  inclusiveEnd?: boolean;
  /** Stop when the key part at `at` no longer starts with `prefix` (prefix scans without an upper key). */
  stop?: { at: number; prefix: string };
}

export type Plan =
  | { kind: 'ids'; ids: string[]; ordered: false; score: number }
  | { kind: 'primary'; ranges: ScanRange[]; reverse: boolean; ordered: boolean; score: number }
  | {
      kind: 'index';
      def: IndexDef;
      ranges: ScanRange[];
      reverse: boolean;
      ordered: boolean;
      score: number;
      /** Its entries are exactly the matching documents: counting keys counts documents. */
      exact: boolean;
    }
  | { kind: 'union'; parts: Plan[]; ordered: false; score: number };

/** At most this many equality combinations are expanded into separate index ranges. */
const MAX_RANGES = 256;

function isScalar(v: unknown): v is string | number | boolean | null {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function points(values: unknown[]): Pred {
  const seen = new Map<string, Point>();
  for (const v of values) {
    const p = encodeValue(v).parts;
    seen.set(JSON.stringify(p), p);
  }
  return { kind: 'points', points: [...seen.values()] };
}

/** The literal text every match of an anchored, case-sensitive regular expression starts with. */
export function regexPrefix(source: string, flags: string): string | undefined {
  if (/[imx]/.test(flags) || !source.startsWith('^') || source.includes('|')) return undefined;
  let out = '';
  let i = 1;
  while (i < source.length) {
    const c = source[i]!;
    let literal: string;
    let width = 1;
    if (c === '\\') {
      const n = source[i + 1];
      if (n === undefined || !/[.*+?^${}()|[\]\\/-]/.test(n)) break;
      literal = n;
      width = 2;
    } else if ('.*+?^${}()|[]'.includes(c)) break;
    else literal = c;
    const after = source[i + width];
    if (after === '*' || after === '?' || after === '{') break;
    out += literal;
    if (after === '+') break;
    i += width;
  }
  return out;
}

function rangePred(value: Record<string, unknown>): Pred | undefined {
  let rank: number | undefined;
  let lo: Bound | undefined;
  let hi: Bound | undefined;
  for (const op of ['$gt', '$gte', '$lt', '$lte'] as const) {
    if (!(op in value)) continue;
    const v = value[op];
    if (typeof v !== 'string' && typeof v !== 'number') return undefined;
    const r = typeof v === 'number' ? 2 : 3;
    if (rank !== undefined && rank !== r) return undefined;
    rank = r;
    const enc = encodeValue(v);
    // A cut bound only proves the cut prefix: widen it to inclusive.
    const bound = { value: enc.parts[1], inclusive: op.length === 4 || enc.cut };
    if (op === '$gt' || op === '$gte') lo = bound;
    else hi = bound;
  }
  return rank === undefined ? undefined : { kind: 'range', rank, lo, hi };
}

/** What a filter's value for one field lets an index do. */
export function predicate(value: unknown): Pred | undefined {
  if (value instanceof RegExp) {
    const prefix = regexPrefix(value.source, value.flags);
    return prefix === undefined ? undefined : { kind: 'prefix', prefix };
  }
  if (isPlainObject(value)) {
    if (!Object.keys(value).some((k) => k.startsWith('$'))) return undefined;
    if ('$eq' in value && isScalar(value.$eq)) return points([value.$eq]);
    if (Array.isArray(value.$in) && value.$in.every(isScalar)) return points(value.$in);
    const range = rangePred(value);
    if (range) return range;
    if ('$regex' in value) {
      const re = value.$regex;
      const options = typeof value.$options === 'string' ? value.$options : '';
      if (re instanceof RegExp) {
        const prefix = regexPrefix(re.source, re.flags + options);
        return prefix === undefined ? undefined : { kind: 'prefix', prefix };
      }
      if (typeof re === 'string') {
        const prefix = regexPrefix(re, options);
        return prefix === undefined ? undefined : { kind: 'prefix', prefix };
      }
    }
    return undefined;
  }
  return isScalar(value) ? points([value]) : undefined;
}

interface Conjunction {
  preds: Map<string, Pred[]>;
  ors: Filter[][];
}

function conjunction(filter: Filter, into: Conjunction = { preds: new Map(), ors: [] }): Conjunction {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const member of value) if (isPlainObject(member)) conjunction(member, into);
    } else if (key === '$or' && Array.isArray(value)) {
      if (value.every(isPlainObject)) into.ors.push(value as Filter[]);
    } else if (!key.startsWith('$')) {
      const p = predicate(value);
      if (p) {
        const list = into.preds.get(key) ?? [];
        list.push(p);
        into.preds.set(key, list);
      }
    }
  }
  return into;
}

/** The smallest string greater than every string starting with `prefix`, when easy to name. */
function prefixUpper(prefix: string): string | undefined {
  if (prefix.length === 0) return undefined;
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last >= 0xd7ff) return undefined;
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

/**
 * Range of the keys `[...head, rank, value, …]` (index entries) or `[...head, value]` (primary
 * keys, `primary`) that a range or prefix predicate allows.
 */
function rangeFor(head: unknown[], pred: Pred | undefined, primary: boolean): ScanRange {
  if (!pred || pred.kind === 'points') return { start: head, end: [...head, MAX] };
  const at = (rank: number): unknown[] => (primary ? head : [...head, rank]);
  if (pred.kind === 'prefix') {
    const p = cutString(pred.prefix);
    const upper = prefixUpper(p);
    if (upper === undefined) return { start: [...at(3), p], end: [...at(3), MAX], stop: { at: at(3).length, prefix: p } };
    return { start: [...at(3), p], end: [...at(3), upper] };
  }
  const base = at(pred.rank);
  // Index entries carry `_id` after the value, so a bound excludes or includes a value's
  // entries with `MAX`; primary keys end at the value, so their bounds are inclusive and the
  // filter test drops the boundary.
  const start = !pred.lo ? base : !primary && !pred.lo.inclusive ? [...base, pred.lo.value, MAX] : [...base, pred.lo.value];
  if (!pred.hi) return { start, end: [...base, MAX] };
  if (primary) return { start, end: [...base, pred.hi.value], inclusiveEnd: true };
  return { start, end: pred.hi.inclusive ? [...base, pred.hi.value, MAX] : [...base, pred.hi.value] };
}

/** Direction (1 forward, -1 reverse) in which `fields` then `_id` give the sort, or 0. */
function orderOf(fields: string[], pinned: Set<string>, sort: Sort | undefined): 0 | 1 | -1 {
  const wanted = effectiveSort(sort).filter(([path]) => !pinned.has(path));
  const have = [...fields, '_id'];
  if (wanted.length !== have.length) return 0;
  const dir = wanted[0]![1];
  for (let i = 0; i < have.length; i++) {
    if (wanted[i]![0] !== have[i] || wanted[i]![1] !== dir) return 0;
  }
  return dir;
}

function reversed(ranges: ScanRange[]): ScanRange[] {
  // Reverse scans start at the upper key; the lower key then ends the scan (inclusive).
  return ranges.map((r) => ({ start: r.end, end: r.start, inclusiveEnd: true, stop: r.stop })).reverse();
}

function primaryPlan(collection: string, c: Conjunction, sort: Sort | undefined): Plan {
  const preds = c.preds.get('_id') ?? [];
  const pts = preds.find((p) => p.kind === 'points');
  if (pts && pts.kind === 'points') {
    // _id is always a string: other types match nothing.
    const ids = pts.points.filter(([rank]) => rank === 3).map(([, v]) => v as string);
    return { kind: 'ids', ids, ordered: false, score: 1000 };
  }
  const other = preds.find((p) => p.kind !== 'points');
  const usable = other && (other.kind === 'prefix' || other.rank === 3) ? other : undefined;
  const dir = orderOf([], new Set(), sort);
  if (other && !usable) return { kind: 'ids', ids: [], ordered: false, score: 1000 }; // a number range on string ids matches nothing
  const range = rangeFor([collection], usable, true);
  const ordered = dir !== 0 && !(dir === -1 && range.stop);
  return {
    kind: 'primary',
    ranges: ordered && dir === -1 ? reversed([range]) : [range],
    reverse: ordered && dir === -1,
    ordered,
    score: (usable ? 5 : 0) + (ordered ? 2 : 0),
  };
}

/**
 * Whether the filter is nothing but single-value equalities on `fields` (strings, numbers or
 * booleans short enough not to be cut): then each matching document has exactly one entry.
 */
function onlyEqualities(filter: Filter, fields: Set<string>): boolean {
  return Object.entries(filter).every(([key, value]) => {
    if (!fields.has(key)) return false;
    const v = isPlainObject(value) && Object.keys(value).length === 1 && '$eq' in value ? value.$eq : value;
    if (typeof v === 'string') return v.length < STRING_CAP - 1;
    return typeof v === 'number' || typeof v === 'boolean';
  });
}

function indexPlan(collection: string, def: IndexDef, c: Conjunction, sort: Sort | undefined, filter: Filter): Plan | undefined {
  let heads: unknown[][] = [[collection, def.name]];
  let eq = 0;
  let next: Pred | undefined;
  const pinned = new Set<string>();
  for (const [path] of def.keys) {
    const preds = c.preds.get(path) ?? [];
    const pts = preds.find((p) => p.kind === 'points');
    if (pts && pts.kind === 'points' && heads.length * pts.points.length <= MAX_RANGES) {
      heads = heads.flatMap((h) => pts.points.map((p) => [...h, ...p]));
      eq++;
      if (pts.points.length === 1) pinned.add(path);
      continue;
    }
    next = preds.find((p) => p.kind !== 'points');
    break;
  }
  const single = heads.length === 1 && pinned.size === eq;
  const dir =
    def.plain && single
      ? orderOf(
          def.keys.slice(eq).map(([p]) => p),
          pinned,
          sort,
        )
      : 0;
  const ranges = heads.map((h) => rangeFor(h, next, false));
  const ordered = dir !== 0 && !(dir === -1 && ranges.some((r) => r.stop));
  if (eq === 0 && !next && !ordered) return undefined;
  return {
    kind: 'index',
    def,
    ranges: ordered && dir === -1 ? reversed(ranges) : ranges,
    reverse: ordered && dir === -1,
    ordered,
    score: eq * 10 + (next ? 5 : 0) + (ordered ? 2 : 0),
    exact: !next && heads.length === 1 && onlyEqualities(filter, pinned),
  };
}

/** The best plan for `filter` over a collection with these indexes. */
export function plan(collection: string, indexes: readonly IndexDef[], filter: Filter, sort: Sort | undefined): Plan {
  // The commonest lookup (by _id) needs no planning.
  const id = filter._id;
  if (typeof id === 'string') return { kind: 'ids', ids: [id], ordered: false, score: 1000 };
  // Nor does a batch load (`{_id: {$in: [...]}}`, strings only).
  if (id !== undefined && Object.keys(filter).length === 1) {
    const ids = pinnedIds(filter);
    if (ids) return { kind: 'ids', ids, ordered: false, score: 1000 };
  }
  const c = conjunction(filter);
  let best: Plan = primaryPlan(collection, c, sort);
  for (const def of indexes) {
    const candidate = indexPlan(collection, def, c, sort, filter);
    if (candidate && candidate.score > best.score) best = candidate;
  }
  if (best.score < 5 && c.ors.length > 0) {
    // An $or can narrow only if every branch can; one such $or is enough.
    for (const branches of c.ors) {
      const parts = branches.map((b) => plan(collection, indexes, b, undefined));
      if (parts.every((p) => p.score >= 5)) return { kind: 'union', parts, ordered: false, score: 4 };
    }
  }
  return best;
}

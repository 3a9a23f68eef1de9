/**
 * MongoDB's meaning for documents held in memory: matching a filter, applying an update,
 * building an upserted document, inclusion projection and sort order. Filters and update
 * operators are evaluated by `mingo`; projection and sort order are written here because mingo
 * reorders projected fields (`_id` last) and orders strings by UTF-16 code units, where MongoDB
 * keeps document order and compares strings as UTF-8 bytes (which is also the order of the
 * embedded store's indexes, so index-ordered and in-memory sorts agree).
 */
import { randomUUID } from 'node:crypto';
import { Context } from 'mingo/core';
import { Query } from 'mingo/query';
import * as queryOperators from 'mingo/operators/query';
import { $inc, $push, $set, $unset } from 'mingo/operators/update';
import type { Doc, Filter, Sort, Update } from './read-store.js';
import { checkDoc, equalityFields, isPlainObject, jsonCopy } from './read-store-checks.js';

/**
 * Only the query operators: mingo copies its context for every Query it builds, and the full
 * one (hundreds of expression operators) made compiling a filter cost ~30 µs.
 */
const QUERY_CONTEXT = Context.init({ query: queryOperators });

/**
 * A compiled filter. `$where` and other script operators are off: filters are data, never code.
 * A filter that only pins `_id` needs no test: the store looked the documents up by those ids.
 */
export function matcher(filter: Filter, idsOnly = false): (doc: Doc) => boolean {
  const keys = Object.keys(filter);
  if (keys.length === 0 || (idsOnly && keys.length === 1 && pinnedIds(filter))) return () => true;
  // Compiling costs ~10 µs; projections repeat the same filters, so recent ones are kept.
  const key = cacheKey(filter);
  let query = key === undefined ? undefined : compiled.get(key);
  if (!query) {
    query = new Query(filter, { scriptEnabled: false, context: QUERY_CONTEXT });
    if (key !== undefined) {
      if (compiled.size >= 512) compiled.delete(compiled.keys().next().value!);
      compiled.set(key, query);
    }
  }
  const q = query;
  return (doc) => q.test(doc);
}

const compiled = new Map<string, Query>();

/** JSON text of a filter, or undefined when JSON would lose something (regular expressions). */
function cacheKey(filter: Filter): string | undefined {
  let plain = true;
  const text = JSON.stringify(filter, (_k, v: unknown) => {
    if (v instanceof RegExp) plain = false;
    return v;
  });
  return plain ? text : undefined;
}

/** Ids a filter pins `_id` to (`_id: s`, `{$eq: s}`, `{$in: [...]}`), or undefined. */
export function pinnedIds(filter: Filter): string[] | undefined {
  const id = filter._id;
  if (typeof id === 'string') return [id];
  if (isPlainObject(id)) {
    const keys = Object.keys(id);
    if (keys.length === 1 && typeof id.$eq === 'string') return [id.$eq];
    if (keys.length === 1 && Array.isArray(id.$in) && id.$in.every((v) => typeof v === 'string')) return id.$in as string[];
  }
  return undefined;
}

const UPDATE_OPERATORS: Record<string, (expr: Record<string, unknown>) => (obj: Record<string, unknown>) => string[]> = {
  $set: (expr) => $set(expr),
  $unset: (expr) => $unset(expr as Record<string, ''>),
  $inc: (expr) => $inc(expr as Record<string, number>),
  $push: (expr) => $push(expr),
};

/**
 * Refuses what MongoDB refuses and mingo silently skips: creating a field inside a scalar,
 * `$inc` of a non-number, `$push` onto a non-array.
 */
function checkAgainst(doc: Doc, op: string, path: string): void {
  const parts = path.split('.');
  let current: unknown = doc;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    let next: unknown;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(part)) {
        if (op === '$unset') return;
        throw new TypeError(`cannot create field '${part}' in the array at '${parts.slice(0, i).join('.')}'`);
      }
      next = current[Number(part)];
    } else if (isPlainObject(current)) {
      next = current[part];
    } else {
      if (op === '$unset') return;
      throw new TypeError(`cannot create field '${part}' in the ${current === null ? 'null' : typeof current} at '${parts.slice(0, i).join('.')}'`);
    }
    if (i === parts.length - 1) {
      if (op === '$inc' && next !== undefined && typeof next !== 'number') throw new TypeError(`cannot apply $inc to the non-numeric ${path}`);
      if (op === '$push' && next !== undefined && !Array.isArray(next)) throw new TypeError(`cannot $push to the non-array ${path}`);
      return;
    }
    if (next === undefined) return;
    current = next;
  }
}

/**
 * Applies `update` to `doc` IN PLACE and returns it: the caller passes a document it owns (a
 * fresh read or a copy). `inserting` applies `$setOnInsert` as MongoDB does on the insert
 * branch of an upsert. On a refusal `doc` is unchanged: every check runs before any change.
 */
export function applyUpdate(doc: Doc, update: Update, inserting: boolean): Doc {
  const { $setOnInsert, ...rest } = update;
  const modifier: Record<string, Record<string, unknown>> = { ...rest } as Record<string, Record<string, unknown>>;
  if (inserting && $setOnInsert) modifier.$set = { ...(modifier.$set ?? {}), ...$setOnInsert };
  const next = doc;
  const id = doc._id;
  if (modifier.$set && '_id' in modifier.$set && modifier.$set._id !== id) {
    throw new TypeError(`an update may not change _id (${JSON.stringify(id)})`);
  }
  for (const [op, fields] of Object.entries(modifier)) {
    for (const path of Object.keys(fields)) checkAgainst(next, op, path);
  }
  // The operators are mingo's own, applied one by one (checkUpdate already refused conflicting
  // paths, so their order does not matter); values come from the caller's update, which
  // checkUpdate copied, so the document never shares objects with it.
  const apply = Object.entries(modifier).map(([op, fields]) => UPDATE_OPERATORS[op]!(fields));
  for (const f of apply) f(next);
  // checkUpdate vetted every value written into it.
  return next;
}

/** Sets a dotted path, creating objects along the way (used to seed an upserted document). */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let current = target;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (!isPlainObject(next)) current[part] = {};
    current = current[part] as Record<string, unknown>;
  }
  current[parts[parts.length - 1]!] = value;
}

/**
 * The document an upserting `updateOne` inserts: the filter's equality fields, then the
 * update (with `$setOnInsert`). `_id` comes from the filter or the update, else a new UUID
 * (MongoDB would make an ObjectId; Town's documents always have string ids).
 */
export function upsertDocument(filter: Filter, update: Update): Doc {
  const seed: Record<string, unknown> = {};
  for (const [path, value] of equalityFields(filter)) setPath(seed, path, jsonCopy(value));
  const setId = update.$set?._id ?? update.$setOnInsert?._id;
  if (setId !== undefined && seed._id !== undefined && setId !== seed._id) throw new TypeError('an upsert may not set an _id other than the filter fixes');
  const id = setId ?? seed._id ?? randomUUID();
  if (typeof id !== 'string') throw new TypeError('an upserted document needs a string _id');
  delete seed._id;
  return checkDoc(applyUpdate({ _id: id, ...seed } as Doc, update, true));
}

/** The document a replacing upsert inserts: the replacement, with the filter's `_id` if it has none. */
export function replacementDocument(filter: Filter, replacement: Record<string, unknown>, existingId?: string): Doc {
  const { _id, ...rest } = replacement;
  if (existingId !== undefined) {
    if (_id !== undefined && _id !== existingId) throw new TypeError(`a replacement may not change _id (${JSON.stringify(existingId)})`);
    return checkDoc({ _id: existingId, ...rest });
  }
  const fromFilter = equalityFields(filter).find(([k]) => k === '_id')?.[1];
  if (_id !== undefined && fromFilter !== undefined && _id !== fromFilter) throw new TypeError('a replacement may not have an _id other than the filter fixes');
  const id = _id ?? fromFilter ?? randomUUID();
  if (typeof id !== 'string') throw new TypeError('an upserted document needs a string _id');
  return checkDoc({ _id: id, ...rest });
}

type PathTree = { [key: string]: PathTree | true };

/** Inclusion projection as on MongoDB: `_id` always, selected paths in the document's own order. */
export function projector(projection: Record<string, 1 | 0 | boolean> | undefined): ((doc: Doc) => Doc) | undefined {
  if (!projection) return undefined;
  const tree: PathTree = {};
  let includeId = true;
  for (const [path, on] of Object.entries(projection)) {
    if (path === '_id') {
      includeId = Boolean(on);
      continue;
    }
    if (on !== 1 && on !== true) throw new TypeError(`only inclusion projections are supported (${path}: ${String(on)})`);
    const parts = path.split('.');
    let node = tree;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      const last = i === parts.length - 1;
      const existing = node[part];
      if (existing === true || (last && existing !== undefined)) throw new TypeError(`projection paths collide at ${path}`);
      if (last) node[part] = true;
      else node = (node[part] ??= {}) as PathTree;
    }
  }
  if (Object.keys(tree).length === 0 && includeId) return (doc) => ({ _id: doc._id });
  const pick = (value: Record<string, unknown>, node: PathTree): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const sub = node[key];
      if (sub === undefined) continue;
      if (sub === true) out[key] = item;
      else if (Array.isArray(item)) out[key] = pickArray(item, sub);
      else if (isPlainObject(item)) out[key] = pick(item, sub);
    }
    return out;
  };
  const pickArray = (items: unknown[], node: PathTree): unknown[] => {
    const out: unknown[] = [];
    for (const item of items) {
      if (Array.isArray(item)) out.push(pickArray(item, node));
      else if (isPlainObject(item)) out.push(pick(item, node));
    }
    return out;
  };
  return (doc) => (includeId ? ({ _id: doc._id, ...pick(doc, tree) } as Doc) : (pick(doc, tree) as Doc));
}

// ---- Sort order (MongoDB's BSON order for JSON values) ----

/** BSON canonical type order: null/missing, numbers, strings, objects, arrays, booleans. */
export function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 1;
  switch (typeof value) {
    case 'number':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
    default:
      return Array.isArray(value) ? 5 : 4;
  }
}

/** UTF-8 byte order (= code point order), which is how MongoDB and LMDB order strings. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (code points above U+FFFF) must sort after U+E000–U+FFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 1:
      return 0;
    case 2:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 3:
      return compareStrings(a as string, b as string);
    case 8:
      return a === b ? 0 : a ? 1 : -1;
    case 5: {
      const xs = a as unknown[];
      const ys = b as unknown[];
      for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
        const c = compareValues(xs[i], ys[i]);
        if (c) return c;
      }
      return xs.length - ys.length < 0 ? -1 : xs.length > ys.length ? 1 : 0;
    }
    default: {
      // Objects compare member by member in document order: type, then name, then value.
      const xs = Object.entries(a as object);
      const ys = Object.entries(b as object);
      for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
        const [kx, vx] = xs[i]!;
        const [ky, vy] = ys[i]!;
        const t = typeRank(vx) - typeRank(vy);
        if (t) return t < 0 ? -1 : 1;
        const k = compareStrings(kx, ky);
        if (k) return k;
        const v = compareValues(vx, vy);
        if (v) return v;
      }
      return xs.length < ys.length ? -1 : xs.length > ys.length ? 1 : 0;
    }
  }
}

/** Every value at a dotted path, arrays expanded as MongoDB does for sort keys. */
function valuesAt(value: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    if (Array.isArray(value)) {
      if (value.length === 0) out.push(EMPTY_ARRAY);
      else out.push(...value);
    } else out.push(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) if (isPlainObject(item)) valuesAt(item, parts, i, out);
    return;
  }
  if (isPlainObject(value)) valuesAt(value[parts[i]!], parts, i + 1, out);
}

/** An empty array sorts before null on MongoDB. */
const EMPTY_ARRAY = Symbol('empty array');

function sortKey(doc: Doc, path: string, direction: 1 | -1): unknown {
  const values: unknown[] = [];
  valuesAt(doc, path.split('.'), 0, values);
  if (values.length === 0) return null;
  let best = values[0];
  for (const v of values.slice(1)) {
    const c = compareKey(v, best);
    if (direction === 1 ? c < 0 : c > 0) best = v;
  }
  return best;
}

function compareKey(a: unknown, b: unknown): number {
  if (a === EMPTY_ARRAY || b === EMPTY_ARRAY) return a === b ? 0 : a === EMPTY_ARRAY ? -1 : 1;
  return compareValues(a, b);
}

/**
 * The effective order of a sort: the given keys up to `_id`, and `_id` last when absent, in the
 * direction of the first key, so ties are broken the same way by every code path.
 */
export function effectiveSort(sort: Sort | undefined): [string, 1 | -1][] {
  const keys: [string, 1 | -1][] = [];
  for (const [path, dir] of Object.entries(sort ?? {})) {
    if (dir !== 1 && dir !== -1) throw new TypeError(`sort direction must be 1 or -1, not ${String(dir)}`);
    keys.push([path, dir]);
    if (path === '_id') return keys;
  }
  keys.push(['_id', keys[0]?.[1] ?? 1]);
  return keys;
}

/** Sorts in place by `effectiveSort(sort)`. */
export function sortDocs(docs: Doc[], sort: Sort | undefined): Doc[] {
  const keys = effectiveSort(sort);
  if (keys.length === 1) {
    const dir = keys[0]![1];
    return docs.sort((a, b) => dir * compareStrings(a._id, b._id));
  }
  const decorated = docs.map((doc) => ({ doc, keys: keys.map(([path, dir]) => (path === '_id' ? doc._id : sortKey(doc, path, dir))) }));
  decorated.sort((x, y) => {
    for (let i = 0; i < keys.length; i++) {
      const c = compareKey(x.keys[i], y.keys[i]);
      if (c) return keys[i]![1] * c;
    }
    return 0;
  });
  for (let i = 0; i < docs.length; i++) docs[i] = decorated[i]!.doc;
  return docs;
}

/**
 * What both ReadStore adapters refuse before touching storage, so that a caller's bug fails the
 * same way on the embedded store and on MongoDB. Callers are projections and queries (our own
 * code), so refusals are TypeError/RangeError, not user-facing errors.
 */
import type { Doc, Filter, IndexSpec, Update } from './read-store.js';

/** Holds the checkpoints on MongoDB; the embedded store refuses the name too, for parity. */
export const CHECKPOINTS_COLLECTION = 'checkpoints';
/** Holds the projections' leases on MongoDB; refused as a collection name by both adapters. */
export const LEASES_COLLECTION = 'leases';
/**
 * Holds each projection's fence on MongoDB (the newest lease token that took it, which units
 * check and write): apart from `leases` so a lease's renewal never writes what units write.
 * Refused as a collection name by both adapters.
 */
export const FENCES_COLLECTION = 'fences';

const MAX_NAME_BYTES = 100;
/** Keeps `[collection, _id]` and index keys well inside LMDB's 1,978-byte key limit. */
export const MAX_ID_BYTES = 512;
export const MAX_INDEX_FIELDS = 4;

/**
 * MongoDB refuses a document nested deeper than 100 levels: the document is level 1 and every
 * object or array inside adds one. Both adapters refuse it the same way, before writing.
 */
export const MAX_DOC_DEPTH = 100;

const UPDATE_OPERATORS = new Set(['$set', '$unset', '$inc', '$push', '$setOnInsert']);

export function checkCollectionName(name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError('collection name must be a non-empty string');
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new RangeError(`collection name longer than ${MAX_NAME_BYTES} bytes: ${name.slice(0, 40)}…`);
  if (name.includes('$') || name.includes('\0') || name.startsWith('system.') || name.startsWith('.') || name.endsWith('.')) {
    throw new TypeError(`invalid collection name ${JSON.stringify(name)}`);
  }
  if (name === CHECKPOINTS_COLLECTION || name === LEASES_COLLECTION || name === FENCES_COLLECTION)
    throw new TypeError(`collection name ${name} is reserved for ${name}`);
  return name;
}

export function checkProjectionName(name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError('projection name must be a non-empty string');
  if (Buffer.byteLength(name) > MAX_NAME_BYTES || name.includes('\0')) throw new RangeError(`invalid projection name ${JSON.stringify(name)}`);
  return name;
}

export function checkPosition(position: bigint): bigint {
  if (typeof position !== 'bigint' || position < 0n) throw new TypeError('checkpoint position must be a non-negative bigint');
  return position;
}

export function checkToken(token: number): number {
  if (!Number.isSafeInteger(token) || token < 1) throw new TypeError('a lease token is a positive integer');
  return token;
}

/** A lease's holder and time to live. */
export function checkLeaseArgs(holder: string, ttlMs: number): void {
  if (typeof holder !== 'string' || holder.length === 0 || holder.length > 200)
    throw new TypeError('a lease holder is a non-empty string of at most 200 characters');
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 10 || ttlMs > 3_600_000) throw new RangeError('a lease lasts 10 ms to an hour');
}

/** Sorts positions as numbers when compared as text (MongoDB compares the strings): 20 digits, zero-padded. */
export const positionOrder = (position: bigint) => position.toString().padStart(20, '0');

export function checkVersion(version: number): number {
  if (!Number.isSafeInteger(version) || version < 0) throw new TypeError('a projection version must be a non-negative integer');
  return version;
}

export function checkId(id: unknown): string {
  if (typeof id !== 'string') throw new TypeError(`_id must be a string, not ${id === null ? 'null' : typeof id}`);
  if (Buffer.byteLength(id) > MAX_ID_BYTES) throw new RangeError(`_id longer than ${MAX_ID_BYTES} bytes`);
  return id;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A private copy of a document with JSON's meaning: what JSON cannot hold is dropped
 * (`undefined` members) or refused (BigInt, cycles). Both adapters store exactly this, so a
 * document reads back the same from either.
 */
export function jsonCopy<T>(value: T): T {
  // Plain data (nearly every document) is copied directly, which is several times faster than
  // a JSON round trip; anything whose JSON meaning is less obvious takes the round trip.
  const fast = plainCopy(value, 0);
  if (fast !== NOT_PLAIN) return fast as T;
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('not a JSON value');
  return JSON.parse(text) as T;
}

const NOT_PLAIN = Symbol('not plain');
/** Past this depth the round trip decides (and reports cycles as JSON.stringify does). */
const MAX_PLAIN_DEPTH = 64;

/**
 * What `JSON.parse(JSON.stringify(value))` gives, for values made only of strings, finite
 * numbers, booleans, null, arrays without holes or undefined, and plain objects (undefined
 * members dropped, as JSON does); NOT_PLAIN for anything else (toJSON, Dates, Maps, BigInt,
 * functions, NaN, `__proto__` keys, very deep or cyclic values).
 */
function plainCopy(value: unknown, depth: number, names = false): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) return NOT_PLAIN;
      return value === 0 ? 0 : value; // -0 reads back as 0
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth > MAX_PLAIN_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return NOT_PLAIN;
      const item = plainCopy(value[i], depth + 1, names);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  if ('toJSON' in value) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return NOT_PLAIN;
    // With `names`, a field name a document may not hold sends it the slow way, which says why.
    if (names && (key.charCodeAt(0) === 36 || key.includes('.') || key.includes('\0'))) return NOT_PLAIN;
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    const item = plainCopy(member, depth + 1, names);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}

/**
 * Whether a document is already exactly what checkDoc's copy of it would be (plainCopy with
 * field names checked): plain objects and arrays, strings, booleans, null and finite numbers
 * other than -0, no `undefined` member, no hole, no field name a document may not hold, no
 * deeper than the copy goes. Allocates nothing: a handed-over document (PutManyOptions) is
 * checked without being copied.
 */
function asCopied(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth > MAX_PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || !asCopied(value[i], depth + 1)) return false;
    }
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype || 'toJSON' in value) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (key === '__proto__' || key.charCodeAt(0) === 36 || key.includes('.') || key.includes('\0')) return false;
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || !asCopied(member, depth + 1)) return false;
  }
  return true;
}

/** A stored document: a JSON object whose `_id` is a string and whose field names are storable. */
export function checkDoc(doc: unknown): Doc {
  if (!isPlainObject(doc)) throw new TypeError('a document must be a plain object');
  checkId(doc._id);
  // One walk copies and checks names; anything unusual takes the round trip and the name check.
  // The fast copy gives up past MAX_PLAIN_DEPTH, well inside MongoDB's depth: only the slow way needs the count.
  const fast = plainCopy(doc, 0, true);
  if (fast !== NOT_PLAIN) return fast as Doc;
  const copy = jsonCopy(doc) as Doc;
  checkFieldNames(copy);
  checkDepth(copy, 1);
  return copy;
}

/** Levels of nesting of a JSON value as MongoDB counts them (a scalar 0, `{}` or `[]` 1). */
export function depthOf(value: unknown, limit = MAX_DOC_DEPTH + 1): number {
  if (value === null || typeof value !== 'object') return 0;
  if (limit <= 0) return 1;
  let deepest = 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  for (const item of items) {
    const d = depthOf(item, limit - 1);
    if (d > deepest) deepest = d;
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

/** Refuses a value that, placed `at` levels down a document, would nest deeper than MongoDB allows. */
function checkDepth(value: unknown, at: number, path = ''): void {
  if (at - 1 + depthOf(value, MAX_DOC_DEPTH + 2 - at) > MAX_DOC_DEPTH) {
    throw new RangeError(`a document nested deeper than ${MAX_DOC_DEPTH} levels${path ? ` (at ${path})` : ''}: MongoDB refuses it`);
  }
}

/**
 * The documents of one `putMany`, checked and copied; one `_id` twice is refused. `handOver`
 * (PutManyOptions): a document that already is what its copy would be is kept as it is.
 */
export function checkDocs(docs: unknown, handOver = false): Doc[] {
  if (!Array.isArray(docs)) throw new TypeError('putMany takes an array of documents');
  const out = handOver
    ? docs.map((doc) => (isPlainObject(doc) && typeof doc._id === 'string' && asCopied(doc, 0) ? (doc as Doc) : checkDoc(doc)))
    : docs.map(checkDoc);
  const ids = new Set<string>();
  for (const doc of out) {
    if (ids.has(doc._id)) throw new TypeError(`putMany was given two documents with _id ${JSON.stringify(doc._id)}`);
    ids.add(doc._id);
  }
  return out;
}

/** `pushModifiers`: the top level may be `{$each, $slice, $sort, $position}`. */
function checkFieldNames(value: unknown, pushModifiers = false): void {
  if (Array.isArray(value)) {
    for (const item of value) checkFieldNames(item);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value)) {
    if (pushModifiers && ['$each', '$slice', '$sort', '$position'].includes(key)) {
      if (key === '$each') checkFieldNames(item);
      continue;
    }
    // MongoDB refuses `$` field names (operators) and dotted ones (paths) in stored documents.
    if (key.startsWith('$') || key.includes('.') || key.includes('\0')) throw new TypeError(`invalid field name ${JSON.stringify(key)}`);
    checkFieldNames(item);
  }
}

/** A replacement document: no update operators, and its `_id` (when present) a string. */
export function checkReplacement(doc: unknown): Record<string, unknown> {
  if (!isPlainObject(doc)) throw new TypeError('a replacement must be a plain object');
  if (Object.keys(doc).some((k) => k.startsWith('$'))) throw new TypeError('a replacement may not contain update operators');
  if (doc._id !== undefined) checkId(doc._id);
  const copy = jsonCopy(doc);
  checkFieldNames(copy);
  checkDepth(copy, 1);
  return copy;
}

/**
 * A filter: a plain object with no `undefined` anywhere. The driver would drop such a member
 * (or send it as null), turning `{owner: undefined}` into "every document": refused instead.
 */
export function checkFilter(filter: unknown): Filter {
  if (!isPlainObject(filter)) throw new TypeError('a filter must be a plain object');
  const walk = (value: unknown, at: string): void => {
    if (value === undefined) throw new TypeError(`filter has undefined at ${at || 'top'}`);
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}[${i}]`));
    else if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) walk(v, at ? `${at}.${k}` : k);
  };
  walk(filter, '');
  return filter;
}

/**
 * An update document: only the supported operators, each with at least one path, paths that
 * neither repeat nor nest inside one another (MongoDB refuses those as conflicts), `_id` only
 * set (its value is checked against the document when applied), numeric `$inc` amounts.
 */
export function checkUpdate(update: unknown): Update {
  if (!isPlainObject(update)) throw new TypeError('an update must be a plain object');
  const operators = Object.keys(update);
  if (operators.length === 0) throw new TypeError('an update needs at least one operator');
  const paths: string[] = [];
  for (const op of operators) {
    if (!UPDATE_OPERATORS.has(op)) throw new TypeError(`unsupported update operator ${op}`);
    const fields = update[op];
    if (!isPlainObject(fields)) throw new TypeError(`${op} takes an object of paths`);
    for (const [path, value] of Object.entries(fields)) {
      checkPath(path);
      if (value === undefined) throw new TypeError(`${op} ${path} is undefined`);
      if (op === '$inc' && (typeof value !== 'number' || !Number.isFinite(value))) throw new TypeError(`$inc ${path} needs a finite number`);
      if (op === '$set' || op === '$setOnInsert' || op === '$push') {
        checkFieldNames(value, op === '$push');
        // The value lands one level below each part of its path (a pushed item, inside the array).
        const at = path.split('.').length + 1;
        if (op === '$push' && isPlainObject(value) && Array.isArray(value.$each)) for (const item of value.$each) checkDepth(item, at + 1, path);
        else checkDepth(value, op === '$push' ? at + 1 : at, path);
      }
      if (op === '$unset' && path === '_id') throw new TypeError('_id cannot be unset');
      if (op !== '$set' && op !== '$setOnInsert' && path === '_id') throw new TypeError(`_id cannot be changed with ${op}`);
      paths.push(path);
    }
  }
  if (paths.length === 0) throw new TypeError('an update needs at least one path');
  const sorted = [...paths].sort();
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (a === b || b.startsWith(a + '.')) throw new TypeError(`update paths ${a} and ${b} conflict`);
  }
  return jsonCopy(update as Update);
}

export function checkPath(path: string): void {
  if (typeof path !== 'string' || path.length === 0) throw new TypeError('a field path must be a non-empty string');
  for (const part of path.split('.')) {
    if (part.length === 0 || part.startsWith('$') || part.includes('\0')) throw new TypeError(`unsupported field path ${JSON.stringify(path)}`);
  }
}

export interface CheckedIndex {
  name: string;
  keys: [string, 1 | -1][];
  unique: boolean;
}

/** MongoDB's default index name: `field_1_other_-1`. */
export function defaultIndexName(keys: Record<string, 1 | -1>): string {
  return Object.entries(keys)
    .map(([k, d]) => `${k}_${d}`)
    .join('_');
}

export function checkIndexSpec(spec: IndexSpec): CheckedIndex {
  if (!isPlainObject(spec) || !isPlainObject(spec.keys)) throw new TypeError('an index spec needs keys');
  const keys = Object.entries(spec.keys) as [string, 1 | -1][];
  if (keys.length === 0) throw new TypeError('an index needs at least one key');
  if (keys.length > MAX_INDEX_FIELDS) throw new RangeError(`an index has at most ${MAX_INDEX_FIELDS} keys`);
  for (const [path, dir] of keys) {
    checkPath(path);
    if (path.split('.').some((p) => /^\d+$/.test(p))) throw new TypeError(`array positions in index paths are not supported: ${path}`);
    if (dir !== 1 && dir !== -1) throw new TypeError(`index direction must be 1 or -1, not ${String(dir)}`);
  }
  const name = spec.name ?? defaultIndexName(spec.keys);
  if (typeof name !== 'string' || name.length === 0 || Buffer.byteLength(name) > MAX_NAME_BYTES || name.includes('\0')) {
    throw new TypeError(`invalid index name ${JSON.stringify(name)}`);
  }
  return { name, keys, unique: spec.unique === true };
}

/** createIndexes' specs: an array of index specs, each checked as createIndex checks it. */
export function checkIndexSpecs(specs: readonly IndexSpec[]): CheckedIndex[] {
  if (!Array.isArray(specs)) throw new TypeError('createIndexes takes an array of index specs');
  return specs.map(checkIndexSpec);
}

/**
 * The fields a filter fixes by equality, as MongoDB uses them to build an upserted document:
 * `field: value` and `field: {$eq: value}` at the top level or inside `$and`. Regular
 * expressions and other operators fix nothing.
 */
export function equalityFields(filter: Filter): [string, unknown][] {
  const out: [string, unknown][] = [];
  const walk = (f: Filter): void => {
    for (const [key, value] of Object.entries(f)) {
      if (key === '$and' && Array.isArray(value)) {
        for (const member of value) if (isPlainObject(member)) walk(member);
        continue;
      }
      if (key.startsWith('$')) continue;
      if (value instanceof RegExp) continue;
      if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
        if ('$eq' in value && !(value.$eq instanceof RegExp)) out.push([key, value.$eq]);
        continue;
      }
      out.push([key, value]);
    }
  };
  walk(filter);
  return out;
}

/** The `_id` a filter fixes by equality, if it is a string. */
export function filterId(filter: Filter): string | undefined {
  const found = equalityFields(filter).find(([k]) => k === '_id');
  return found && typeof found[1] === 'string' ? found[1] : undefined;
}

export { isPlainObject };

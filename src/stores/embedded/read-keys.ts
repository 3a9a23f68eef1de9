/**
 * Index keys of the embedded read store. An index entry is the LMDB key
 * `[collection, index, rank1, value1, …, rankN, valueN, _id]` (ordered-binary), so entries sort
 * as MongoDB sorts: the rank is the BSON type order (null/missing 1, numbers 2, strings 3,
 * objects 4, arrays 5, booleans 8) and within a rank numbers compare numerically and strings
 * as UTF-8 bytes. Ending with `_id` makes every entry unique and breaks ties by `_id`.
 *
 * Arrays are indexed element by element (multikey), as on MongoDB. Strings are cut to
 * STRING_CAP code units so that keys stay under LMDB's key size limit; objects and nested
 * arrays are kept as cut JSON text (good for equality and uniqueness, not for order). An index
 * that ever held a multikey, cut or non-scalar value is marked not `plain`: it still narrows
 * lookups, but no longer serves sort order.
 */
import { typeRank } from '../read-store-documents.js';
import { isPlainObject, type CheckedIndex } from '../read-store-checks.js';

export type KeyPart = string | number;

/** The largest ordered-binary key element: bounds a range after every entry with a prefix. */
export const MAX = Buffer.from([0xff]);

export const STRING_CAP = 100;

/** A stored index definition. */
export interface IndexDef extends CheckedIndex {
  /** Never held a value that breaks index order (array, cut string, object). */
  plain: boolean;
}

export interface Entry {
  /** `rank, value` pairs, one per index field. */
  tuple: KeyPart[];
  /** The untruncated values, for exact comparison when a part was cut. */
  exact: string;
  cut: boolean;
  plain: boolean;
}

export function cutString(s: string): string {
  if (s.length <= STRING_CAP) return s;
  const code = s.charCodeAt(STRING_CAP - 1);
  // Never split a surrogate pair: a lone surrogate would not survive UTF-8 encoding.
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? STRING_CAP - 1 : STRING_CAP);
}

/** A string part that may have been cut (so equal parts do not prove equal values). */
export function maybeCut(part: KeyPart): boolean {
  return typeof part === 'string' && part.length >= STRING_CAP - 1;
}

const EMPTY = Symbol('empty array');

/** One value's `rank, value` key parts. */
export function encodeValue(value: unknown): { parts: [number, KeyPart]; cut: boolean; scalar: boolean } {
  if (value === EMPTY) return { parts: [5, '[]'], cut: false, scalar: false };
  const rank = typeRank(value);
  switch (rank) {
    case 1:
      return { parts: [1, 0], cut: false, scalar: true };
    case 2:
      return { parts: [2, (value as number) === 0 ? 0 : (value as number)], cut: false, scalar: true };
    case 3: {
      const cut = cutString(value as string);
      return { parts: [3, cut], cut: cut.length !== (value as string).length, scalar: true };
    }
    case 8:
      return { parts: [8, value ? 1 : 0], cut: false, scalar: true };
    default: {
      const json = JSON.stringify(value);
      const cut = cutString(json);
      return { parts: [rank, cut], cut: cut.length !== json.length, scalar: false };
    }
  }
}

/** Values an index holds for one path: arrays expanded as MongoDB's multikey indexes do. */
function indexValues(doc: unknown, parts: string[]): { values: unknown[]; multi: boolean } {
  const values: unknown[] = [];
  let multi = false;
  const walk = (value: unknown, i: number): void => {
    if (i === parts.length) {
      if (Array.isArray(value)) {
        multi = true;
        if (value.length === 0) values.push(EMPTY);
        else for (const item of value) values.push(item);
      } else values.push(value);
      return;
    }
    if (Array.isArray(value)) {
      multi = true;
      if (value.length === 0) values.push(undefined);
      for (const item of value) walk(isPlainObject(item) ? item : undefined, i);
      return;
    }
    walk(isPlainObject(value) ? value[parts[i]!] : undefined, i + 1);
  };
  walk(doc, 0);
  return { values, multi };
}

/** Each index's key paths, split once. */
const splitPaths = new WeakMap<CheckedIndex, string[][]>();

/** The entries a document has in an index (deduplicated). */
export function entriesFor(def: CheckedIndex, doc: unknown): Entry[] {
  let paths = splitPaths.get(def);
  if (!paths) splitPaths.set(def, (paths = def.keys.map(([path]) => path.split('.'))));
  // The common case, without the general walk: no array on any path, so one value per field.
  const tuple: KeyPart[] = [];
  const exact: unknown[] = [];
  let cut = false;
  let scalar = true;
  for (const parts of paths) {
    let value: unknown = doc;
    for (const part of parts) {
      if (Array.isArray(value)) return entriesOfArrays(def, doc);
      value = isPlainObject(value) ? value[part] : undefined;
    }
    if (Array.isArray(value)) return entriesOfArrays(def, doc);
    const enc = encodeValue(value);
    tuple.push(enc.parts[0], enc.parts[1]);
    exact.push(enc.parts[0], value ?? null);
    cut ||= enc.cut;
    scalar &&= enc.scalar;
  }
  return [{ tuple, exact: JSON.stringify(exact), cut, plain: !cut && scalar }];
}

/**
 * The one LMDB key a document has in an index, `[index, rank1, value1, …, _id]`, built directly
 * for a commit that needs no comparison (a document with no committed state, in an index that
 * is not unique): the same key entriesFor's entry makes, without its `exact` text (a JSON
 * string per entry, most of a rebuild's index cost) or the entry itself. Undefined when a path
 * meets an array (several entries: entriesFor walks those). `plain` is set to whether the key
 * keeps the index's order (no cut string, no object), as the entry's `plain`.
 */
export function indexKeyOf(def: CheckedIndex & { name: string }, doc: unknown, id: string, plain: { plain: boolean }): KeyPart[] | undefined {
  let paths = splitPaths.get(def);
  if (!paths) splitPaths.set(def, (paths = def.keys.map(([path]) => path.split('.'))));
  const key: KeyPart[] = [def.name];
  let keeps = true;
  for (const parts of paths) {
    let value: unknown = doc;
    for (const part of parts) {
      if (Array.isArray(value)) return undefined;
      value = isPlainObject(value) ? value[part] : undefined;
    }
    switch (typeof value) {
      case 'string': {
        const cut = cutString(value);
        if (cut.length !== value.length) keeps = false;
        key.push(3, cut);
        break;
      }
      case 'number':
        key.push(2, value === 0 ? 0 : value);
        break;
      case 'boolean':
        key.push(8, value ? 1 : 0);
        break;
      case 'undefined':
        key.push(1, 0);
        break;
      default: {
        if (value === null) {
          key.push(1, 0);
          break;
        }
        if (Array.isArray(value)) return undefined;
        const enc = encodeValue(value);
        key.push(enc.parts[0], enc.parts[1]);
        keeps = false;
      }
    }
  }
  key.push(id);
  plain.plain = keeps;
  return key;
}

/** The general case: arrays on some path (multikey), walked as MongoDB does. */
function entriesOfArrays(def: CheckedIndex, doc: unknown): Entry[] {
  const perField = def.keys.map(([path]) => indexValues(doc, path.split('.')));
  if (perField.every((f) => !f.multi)) {
    // The common case: one value per field, one entry.
    const tuple: KeyPart[] = [];
    const exact: unknown[] = [];
    let cut = false;
    let scalar = true;
    for (const { values } of perField) {
      const enc = encodeValue(values[0]);
      tuple.push(enc.parts[0], enc.parts[1]);
      exact.push(enc.parts[0], values[0] ?? null);
      cut ||= enc.cut;
      scalar &&= enc.scalar;
    }
    return [{ tuple, exact: JSON.stringify(exact), cut, plain: !cut && scalar }];
  }
  const multi = perField.filter((f) => f.multi).length;
  if (multi > 1) throw new TypeError(`cannot index parallel arrays in index ${def.name}`);
  let combos: { tuple: KeyPart[]; exact: unknown[]; cut: boolean; scalar: boolean }[] = [{ tuple: [], exact: [], cut: false, scalar: true }];
  for (const field of perField) {
    const next: typeof combos = [];
    for (const combo of combos) {
      for (const value of field.values) {
        const enc = encodeValue(value);
        next.push({
          tuple: [...combo.tuple, ...enc.parts],
          exact: [...combo.exact, enc.parts[0], value === EMPTY ? [] : (value ?? null)],
          cut: combo.cut || enc.cut,
          scalar: combo.scalar && enc.scalar,
        });
      }
    }
    combos = next;
  }
  const seen = new Map<string, Entry>();
  for (const c of combos) {
    const exact = JSON.stringify(c.exact);
    if (!seen.has(exact)) seen.set(exact, { tuple: c.tuple, exact, cut: c.cut, plain: multi === 0 && !c.cut && c.scalar });
  }
  return [...seen.values()];
}

/** The `{field: value}` MongoDB reports for a duplicate key. */
export function keyValue(def: CheckedIndex, doc: Record<string, unknown>): string {
  const out: Record<string, unknown> = {};
  for (const [path] of def.keys) {
    let value: unknown = doc;
    for (const part of path.split('.')) value = isPlainObject(value) ? value[part] : undefined;
    out[path] = value ?? null;
  }
  return JSON.stringify(out);
}

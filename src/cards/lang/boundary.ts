/**
 * Where typed data (spec 2.6) meets running values: typed data in, checked against a type and
 * its bounds; values out, written as typed data in the type's declared field order; plain JSON
 * (a form's `fields`, a plain seed) read by the type it should have. Field names are only
 * ever compared as data, never used as object keys.
 */
import type { TypedData } from '../../contract/typed.js';
import { natural } from '../../contract/typed.js';
import type { RecordTy, Ty } from './types.js';
import { show } from './types.js';
import { type Key, type PMap, cmpKey, mapEach, mapFromSorted, mapPut, emptyMap } from './pmap.js';
import { Tagged, items, maxValueDepth, norm, tooDeepValue, type Value } from './values.js';

export class Mismatch {
  constructor(public reason: string) {}
}

const maxDepth = maxValueDepth;
const objectId = /^[A-Za-z0-9._:/-]*$/;

function fail(path: string, why: string): never {
  throw new Mismatch(path ? `${path}: ${why}` : why);
}

/** Characters (code points) of a text, as bounds count them. */
export function textLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

export function checkNatBounds(t: Ty, v: number | bigint, path: string): void {
  if (t.k !== 'nat') return;
  if (t.min !== undefined && BigInt(v) < t.min) fail(path, `${v} is below ${t.min}; wanted ${show(t)}`);
  if (t.max !== undefined && BigInt(v) > t.max) fail(path, `${v} is above ${t.max}; wanted ${show(t)}`);
}

export function checkTextBounds(t: Ty, s: string, path: string): void {
  if (t.k !== 'text') return;
  if (t.sub === 'Object' && !objectId.test(s)) fail(path, `${JSON.stringify(s.slice(0, 40))} is not a card id (letters, digits and . _ : / - only)`);
  if (t.min === undefined && t.max === undefined) {
    if (t.sub === 'Object' && s.length > 128) fail(path, 'a card id is at most 128 characters');
    return;
  }
  const n = textLength(s);
  if (t.min !== undefined && BigInt(n) < t.min)
    fail(path, n === 0 ? `is empty; wanted ${show(t)}` : `${n} characters is fewer than ${t.min}; wanted ${show(t)}`);
  if (t.max !== undefined && BigInt(n) > t.max) fail(path, `${n} characters is more than ${t.max}; wanted ${show(t)}`);
}

/** May this field be left out of an argument? (text or object with lower bound 0) */
export function omittable(t: Ty): boolean {
  if (t.k !== 'text' || t.sub === 'Principal') return false;
  return t.min === undefined ? t.sub !== 'Object' : t.min === 0n;
}

/** Typed data to a value of type `t`; throws Mismatch naming the path and what was wanted. */
export function fromTyped(t: Ty, d: TypedData, path = '', depth = 0, lenient = false): Value {
  if (depth > maxDepth) fail(path, `nested deeper than ${maxDepth}`);
  if (d === null || typeof d !== 'object') fail(path, `not typed data; wanted ${show(t)}`);
  switch (t.k) {
    case 'nat': {
      if (d.tag !== 'natural') fail(path, `a ${d.tag} where ${show(t)} was wanted`);
      const raw = d.value;
      let v: number | bigint;
      if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) v = raw;
      else if (typeof raw === 'string' && /^(0|[1-9][0-9]*)$/.test(raw) && raw.length <= 100000) v = norm(BigInt(raw));
      else fail(path, 'a natural is a non-negative integer');
      checkNatBounds(t, v, path);
      return v;
    }
    case 'text': {
      if (d.tag !== 'label' || typeof d.value !== 'string') fail(path, `a ${d.tag} where ${show(t)} was wanted`);
      checkTextBounds(t, d.value, path);
      return d.value;
    }
    case 'bool':
      if (d.tag !== 'boolean' || typeof d.value !== 'boolean') fail(path, `a ${d.tag} where Boolean was wanted`);
      return d.value;
    case 'list': {
      if (d.tag !== 'list' || !Array.isArray(d.items)) fail(path, `a ${d.tag} where ${show(t)} was wanted`);
      const out: Value[] = new Array(d.items.length);
      for (let i = 0; i < d.items.length; i++) out[i] = fromTyped(t.of, d.items[i]!, `${path}[${i}]`, depth + 1);
      return out;
    }
    case 'map':
      if (d.tag !== 'list' || !Array.isArray(d.items)) fail(path, `a ${d.tag} where ${show(t)} (a list of {key, value}) was wanted`);
      return mapFrom(t, d.items, path, depth);
    case 'record':
      if (d.tag !== 'record' || !Array.isArray(d.fields)) fail(path, `a ${d.tag} where the record ${show(t)} was wanted`);
      return recordFrom(t, d.fields, path, depth, lenient);
    case 'variant': {
      if (d.tag === 'label' && typeof d.value === 'string') {
        // A bare tag may travel as a label (a form's `one of` field).
        const i = t.tag.get(d.value);
        if (i !== undefined && t.ctors[i]!.fields.length === 0) return new Tagged(i, null);
      }
      if (d.tag !== 'variant' || typeof d.label !== 'string')
        fail(path, `a ${d.tag} where ${t.name} (one of ${t.ctors.map((c) => c.name).join(', ')}) was wanted`);
      const i = t.tag.get(d.label);
      if (i === undefined)
        fail(path, `${JSON.stringify(d.label.slice(0, 40))} is not a tag of ${t.name}; its tags are ${t.ctors.map((c) => c.name).join(', ')}`);
      const c = t.ctors[i]!;
      if (!c.fields.length) {
        if (d.payload !== undefined && !(d.payload.tag === 'record' && Array.isArray(d.payload.fields) && d.payload.fields.length === 0)) {
          fail(path, `the tag ${c.name} carries nothing`);
        }
        return new Tagged(i, null);
      }
      const p = d.payload ?? { tag: 'record' as const, fields: [] };
      if (p.tag !== 'record' || !Array.isArray(p.fields)) fail(path, `the payload of ${c.name} is a record`);
      return new Tagged(
        i,
        recordFrom({ k: 'record', name: c.name, fields: c.fields, slot: c.slot, order: c.order }, p.fields, `${path}${path ? '.' : ''}${c.name}`, depth, false),
      );
    }
    case 'err':
      fail(path, 'no data fits an unknown type');
  }
}

/**
 * A map from typed data: a list of `{key, value}` records. Written in ascending key order (as
 * toTyped writes it) it is built in one pass; in any other order it is sorted; a key twice is
 * refused, so one map has exactly one typed form.
 */
function mapFrom(t: Extract<Ty, { k: 'map' }>, items: TypedData[], path: string, depth: number): PMap<Value> {
  const keys: Key[] = [];
  const values: Value[] = [];
  let sorted = true;
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    const where = `${path}[${i}]`;
    if (it?.tag !== 'record' || !Array.isArray(it.fields) || it.fields.length !== 2) fail(where, 'a map entry is a record {key, value}');
    const kf = it.fields.find((f) => f?.name === 'key');
    const vf = it.fields.find((f) => f?.name === 'value');
    if (!kf || !vf) fail(where, 'a map entry is a record {key, value}');
    const k = fromTyped(t.key, kf.value, `${where}.key`, depth + 1) as Key;
    const v = fromTyped(t.of, vf.value, `${where}.value`, depth + 1);
    if (keys.length) {
      const c = cmpKey(keys[keys.length - 1]!, k);
      if (c === 0) fail(`${where}.key`, 'the key is given twice');
      if (c > 0) sorted = false;
    }
    keys.push(k);
    values.push(v);
  }
  if (sorted) return mapFromSorted(keys, values);
  let m: PMap<Value> = emptyMap;
  for (let i = 0; i < keys.length; i++) {
    const before = m.size;
    m = mapPut(m, keys[i]!, values[i]!);
    if (m.size === before) fail(`${path}[${i}].key`, 'the key is given twice');
  }
  return m;
}

function recordFrom(t: RecordTy, fields: { name: string; value: TypedData }[], path: string, depth: number, lenient: boolean): Value[] {
  const out: (Value | undefined)[] = new Array(t.order.length);
  for (const f of fields) {
    if (!f || typeof f !== 'object' || typeof f.name !== 'string') fail(path, 'a record field is {name, value}');
    const s = t.slot.get(f.name);
    const where = path ? `${path}.${f.name}` : f.name;
    if (s === undefined)
      fail(
        where,
        `${t.name ?? 'the record'} has no field ${JSON.stringify(f.name.slice(0, 40))}; its fields are ${t.fields.map((x) => x.name).join(', ') || 'none'}`,
      );
    if (out[s] !== undefined) fail(where, 'named twice');
    out[s] = fromTyped(t.order[s]!.ty, f.value, where, depth + 1);
  }
  for (let i = 0; i < out.length; i++) {
    if (out[i] === undefined) {
      const ft = t.order[i]!;
      if (lenient && omittable(ft.ty)) out[i] = '';
      else fail(path ? `${path}.${ft.name}` : ft.name, `missing; wanted ${show(ft.ty)}`);
    }
  }
  return out as Value[];
}

/** A value of type `t` as typed data (no deeper than typed data may come in). */
export function toTyped(t: Ty, v: Value, depth = 0): TypedData {
  if (depth > maxDepth) tooDeepValue();
  switch (t.k) {
    case 'nat':
      return natural(v as number | bigint);
    case 'text':
      return { tag: 'label', value: v as string };
    case 'bool':
      return { tag: 'boolean', value: v as boolean };
    case 'list':
      return { tag: 'list', items: items(v).map((x) => toTyped(t.of, x, depth + 1)) };
    case 'map': {
      const items: TypedData[] = [];
      mapEach(v as PMap<Value>, (k, x) => {
        items.push({
          tag: 'record',
          fields: [
            { name: 'key', value: toTyped(t.key, k, depth + 2) },
            { name: 'value', value: toTyped(t.of, x, depth + 2) },
          ],
        });
        return true;
      });
      return { tag: 'list', items };
    }
    case 'record': {
      const arr = v as Value[];
      return { tag: 'record', fields: t.fields.map((f) => ({ name: f.name, value: toTyped(f.ty, arr[t.slot.get(f.name)!]!, depth + 1) })) };
    }
    case 'variant': {
      const g = v as Tagged;
      const c = t.ctors[g.t]!;
      if (!c.fields.length) return { tag: 'variant', label: c.name };
      return {
        tag: 'variant',
        label: c.name,
        payload: { tag: 'record', fields: c.fields.map((f) => ({ name: f.name, value: toTyped(f.ty, g.f![c.slot.get(f.name)!]!, depth + 2) })) },
      };
    }
    case 'err':
      return { tag: 'record', fields: [] };
  }
}

const own = (o: object, k: string): boolean => Object.hasOwn(o, k);

/** Plain JSON (a form's fields, a plain seed) read as typed data of type `t`. */
export function plainToTyped(t: Ty, j: unknown, path = '', depth = 0): TypedData {
  if (depth > maxDepth) fail(path, `nested deeper than ${maxDepth}`);
  switch (t.k) {
    case 'nat':
      if (typeof j === 'number' && Number.isSafeInteger(j) && j >= 0) return { tag: 'natural', value: j };
      if (typeof j === 'string' && /^(0|[1-9][0-9]*)$/.test(j.trim())) return natural(BigInt(j.trim()));
      fail(path, `${JSON.stringify(j)?.slice(0, 40)} is not a natural; wanted ${show(t)}`);
    // falls through: fail never returns
    case 'text':
      if (typeof j === 'string') return { tag: 'label', value: j };
      fail(path, `wanted text (${show(t)})`);
    // falls through
    case 'bool':
      if (typeof j === 'boolean') return { tag: 'boolean', value: j };
      if (j === 'true' || j === 'false') return { tag: 'boolean', value: j === 'true' };
      fail(path, 'wanted true or false');
    // falls through
    case 'list':
      if (!Array.isArray(j)) fail(path, `wanted a list (${show(t)})`);
      return { tag: 'list', items: j.map((x, i) => plainToTyped(t.of, x, `${path}[${i}]`, depth + 1)) };
    case 'map': {
      // plain JSON: an object of key → value (natural keys as digits), or a list of {key, value}
      const entries: [unknown, unknown][] = Array.isArray(j)
        ? j.map((x) => (x !== null && typeof x === 'object' ? [(x as { key?: unknown }).key, (x as { value?: unknown }).value] : [undefined, undefined]))
        : j !== null && typeof j === 'object'
          ? Object.keys(j).map((k) => [k, Object.getOwnPropertyDescriptor(j, k)!.value])
          : fail(path, `wanted a map (${show(t)}): an object of key to value`);
      return {
        tag: 'list',
        items: entries.map(([k, v], i) => ({
          tag: 'record',
          fields: [
            { name: 'key', value: plainToTyped(t.key, k, `${path}[${i}].key`, depth + 1) },
            { name: 'value', value: plainToTyped(t.of, v, `${path}[${i}].value`, depth + 1) },
          ],
        })),
      };
    }
    case 'record': {
      if (j === null || typeof j !== 'object' || Array.isArray(j)) fail(path, `wanted a record (${show(t)})`);
      const fields: { name: string; value: TypedData }[] = [];
      for (const name of Object.keys(j)) {
        const ft = t.slot.has(name) ? t.order[t.slot.get(name)!]!.ty : undefined;
        const where = path ? `${path}.${name}` : name;
        if (!ft)
          fail(
            where,
            `${t.name ?? 'the record'} has no field ${JSON.stringify(name.slice(0, 40))}; its fields are ${t.fields.map((x) => x.name).join(', ') || 'none'}`,
          );
        const value = Object.getOwnPropertyDescriptor(j, name)!.value as unknown;
        fields.push({ name, value: plainToTyped(ft, value, where, depth + 1) });
      }
      return { tag: 'record', fields };
    }
    case 'variant': {
      if (typeof j === 'string') {
        const i = t.tag.get(j);
        if (i === undefined) fail(path, `${JSON.stringify(j.slice(0, 40))} is not one of ${t.ctors.map((c) => c.name).join(', ')}`);
        return { tag: 'variant', label: j };
      }
      if (j !== null && typeof j === 'object' && !Array.isArray(j) && own(j, 'label')) {
        const label = (j as { label: unknown }).label;
        const i = typeof label === 'string' ? t.tag.get(label) : undefined;
        if (i === undefined) fail(path, `not one of ${t.ctors.map((c) => c.name).join(', ')}`);
        const c = t.ctors[i]!;
        const payload = own(j, 'payload') ? (j as { payload: unknown }).payload : {};
        const r = plainToTyped({ k: 'record', name: c.name, fields: c.fields, slot: c.slot, order: c.order }, payload, path, depth + 1);
        return c.fields.length ? { tag: 'variant', label: c.name, payload: r } : { tag: 'variant', label: c.name };
      }
      fail(path, `wanted one of ${t.ctors.map((c) => c.name).join(', ')}`);
    }
    // falls through
    case 'err':
      fail(path, 'no data fits an unknown type');
  }
}

/** Does any part of the type carry bounds (so values of it need checking on the way out)? */
export function hasBounds(t: Ty, seen: Set<Ty> = new Set()): boolean {
  if (seen.has(t)) return false;
  switch (t.k) {
    case 'nat':
      return t.min !== undefined;
    case 'text':
      return t.min !== undefined || t.sub === 'Object';
    case 'list':
      return hasBounds(t.of, seen);
    case 'map':
      return hasBounds(t.key, seen) || hasBounds(t.of, seen);
    case 'record':
      seen.add(t);
      return t.order.some((f) => hasBounds(f.ty, seen));
    case 'variant':
      seen.add(t);
      return t.ctors.some((c) => c.order.some((f) => hasBounds(f.ty, seen)));
    default:
      return false;
  }
}

/** Checks the bounds of a value built by the card (its new state); throws Mismatch. */
export function checkBounds(t: Ty, v: Value, path = '', depth = 0): void {
  if (depth > maxDepth) tooDeepValue();
  switch (t.k) {
    case 'nat':
      checkNatBounds(t, v as number | bigint, path);
      return;
    case 'text':
      checkTextBounds(t, v as string, path);
      return;
    case 'list': {
      const xs = items(v);
      for (let i = 0; i < xs.length; i++) checkBounds(t.of, xs[i]!, `${path}[${i}]`, depth + 1);
      return;
    }
    case 'map':
      mapEach(v as PMap<Value>, (k, x) => {
        checkBounds(t.key, k, `${path}[${JSON.stringify(String(k)).slice(0, 40)}]`, depth + 1);
        checkBounds(t.of, x, `${path}[${JSON.stringify(String(k)).slice(0, 40)}]`, depth + 1);
        return true;
      });
      return;
    case 'record': {
      const arr = v as Value[];
      t.order.forEach((f, i) => checkBounds(f.ty, arr[i]!, path ? `${path}.${f.name}` : f.name, depth + 1));
      return;
    }
    case 'variant': {
      const g = v as Tagged;
      const c = t.ctors[g.t]!;
      c.order.forEach((f, i) => checkBounds(f.ty, g.f![i]!, `${path}${path ? '.' : ''}${c.name}.${f.name}`, depth + 1));
      return;
    }
    default:
      return;
  }
}

/**
 * Seeds: a partial state laid over what `initial()` built (scratch `create`, genesis, `make`).
 * A seed is typed data or plain JSON; plain JSON is read by the shape of the initial value it
 * replaces, so a seed can only set fields the state has, with values of the kinds they hold.
 */
import { TypedDataC, type RecordData, type TypedData } from '../../contract/typed.js';
import { typeMismatch, type Refusal } from './refusal.js';

/** Deep equality of typed data (naturals compare by value, whichever way they are written). */
export function sameData(a: TypedData, b: TypedData): boolean {
  if (a === b) return true;
  switch (a.tag) {
    case 'natural':
      return b.tag === 'natural' && String(a.value) === String(b.value);
    case 'label':
      return b.tag === 'label' && a.value === b.value;
    case 'boolean':
      return b.tag === 'boolean' && a.value === b.value;
    case 'list':
      return b.tag === 'list' && a.items.length === b.items.length && a.items.every((x, i) => sameData(x, b.items[i]!));
    case 'record':
      return (
        b.tag === 'record' &&
        a.fields.length === b.fields.length &&
        a.fields.every((f, i) => f.name === b.fields[i]!.name && sameData(f.value, b.fields[i]!.value))
      );
    case 'variant': {
      if (b.tag !== 'variant' || a.label !== b.label) return false;
      const pa = a.payload ?? { tag: 'record', fields: [] };
      const pb = b.payload ?? { tag: 'record', fields: [] };
      return sameData(pa, pb);
    }
  }
}

/** Does `value` have the shape of `like` (same tags all the way down, records with the same fields)? */
function sameShape(like: TypedData, value: TypedData, depth = 0): boolean {
  if (depth > 64) return false;
  if (like.tag !== value.tag) return false;
  if (like.tag === 'record' && value.tag === 'record') {
    if (like.fields.length !== value.fields.length) return false;
    return like.fields.every((f, i) => f.name === value.fields[i]!.name && sameShape(f.value, value.fields[i]!.value, depth + 1));
  }
  if (like.tag === 'list' && value.tag === 'list') {
    const first = like.items[0];
    return first === undefined || value.items.every((x) => sameShape(first, x, depth + 1));
  }
  return true;
}

class SeedFault {
  constructor(readonly reason: string) {}
}

/** Plain JSON read by the shape of `like`. */
function plainLike(like: TypedData, j: unknown, path: string, depth: number): TypedData {
  if (depth > 64) throw new SeedFault(`${path}: nested too deep`);
  if (j !== null && typeof j === 'object' && !Array.isArray(j) && Object.hasOwn(j, 'tag') && TypedDataC.is(j)) {
    if (!sameShape(like, j)) throw new SeedFault(`${path}: typed ${j.tag} does not fit the ${like.tag} there`);
    return j;
  }
  switch (like.tag) {
    case 'natural':
      if (typeof j === 'number' && Number.isSafeInteger(j) && j >= 0) return { tag: 'natural', value: j };
      if (typeof j === 'string' && /^(0|[1-9][0-9]*)$/.test(j)) return { tag: 'natural', value: Number.isSafeInteger(Number(j)) ? Number(j) : j };
      throw new SeedFault(`${path}: wanted a natural`);
    case 'label':
      if (typeof j === 'string') return { tag: 'label', value: j };
      throw new SeedFault(`${path}: wanted text`);
    case 'boolean':
      if (typeof j === 'boolean') return { tag: 'boolean', value: j };
      throw new SeedFault(`${path}: wanted true or false`);
    case 'variant':
      if (typeof j === 'string') return { tag: 'variant', label: j };
      throw new SeedFault(`${path}: wanted a label of the variant`);
    case 'list': {
      if (!Array.isArray(j)) throw new SeedFault(`${path}: wanted a list`);
      const first = like.items[0];
      return { tag: 'list', items: j.map((x, i) => (first ? plainLike(first, x, `${path}[${i}]`, depth + 1) : inferPlain(x, `${path}[${i}]`, depth + 1))) };
    }
    case 'record':
      if (j === null || typeof j !== 'object' || Array.isArray(j)) throw new SeedFault(`${path}: wanted a record`);
      return overRecord(like, j as object, path, depth + 1);
  }
}

/** Plain JSON with nothing to read it by (items of a list that starts empty). */
function inferPlain(j: unknown, path: string, depth: number): TypedData {
  if (depth > 64) throw new SeedFault(`${path}: nested too deep`);
  if (typeof j === 'number' && Number.isSafeInteger(j) && j >= 0) return { tag: 'natural', value: j };
  if (typeof j === 'string') return { tag: 'label', value: j };
  if (typeof j === 'boolean') return { tag: 'boolean', value: j };
  if (Array.isArray(j)) return { tag: 'list', items: j.map((x, i) => inferPlain(x, `${path}[${i}]`, depth + 1)) };
  if (j !== null && typeof j === 'object') {
    if (TypedDataC.is(j)) return j;
    return {
      tag: 'record',
      fields: Object.keys(j).map((k) => ({ name: k, value: inferPlain(Object.getOwnPropertyDescriptor(j, k)!.value, `${path}.${k}`, depth + 1) })),
    };
  }
  throw new SeedFault(`${path}: ${JSON.stringify(j)} is not a value a card holds`);
}

/** Replaces fields of `base` with those named in the plain object `j`, read by their shape. */
function overRecord(base: RecordData, j: object, path: string, depth: number): RecordData {
  const fields = base.fields.map((f) => ({ ...f }));
  for (const name of Object.keys(j)) {
    const slot = fields.find((f) => f.name === name);
    const where = path ? `${path}.${name}` : name;
    if (!slot) throw new SeedFault(`${where}: the state has no such field (it has ${base.fields.map((f) => f.name).join(', ') || 'none'})`);
    slot.value = plainLike(slot.value, Object.getOwnPropertyDescriptor(j, name)!.value, where, depth);
  }
  return { tag: 'record', fields };
}

/** The initial state with the seed laid over it, or a typeMismatch naming the state's shape. */
export function applySeed(initial: TypedData, seed: unknown, stateType: string): TypedData | Refusal {
  if (seed === undefined) return initial;
  try {
    if (TypedDataC.is(seed) && (seed as { tag?: unknown }).tag !== undefined) {
      if (initial.tag === 'record' && seed.tag === 'record') {
        const fields = initial.fields.map((f) => ({ ...f }));
        for (const s of seed.fields) {
          const slot = fields.find((f) => f.name === s.name);
          if (!slot) throw new SeedFault(`${s.name}: the state has no such field`);
          if (!sameShape(slot.value, s.value)) throw new SeedFault(`${s.name}: a ${s.value.tag} does not fit the ${slot.value.tag} there`);
          slot.value = s.value;
        }
        return { tag: 'record', fields };
      }
      if (!sameShape(initial, seed)) throw new SeedFault(`a ${seed.tag} does not fit the state`);
      return seed;
    }
    if (initial.tag === 'record' && seed !== null && typeof seed === 'object' && !Array.isArray(seed)) return overRecord(initial, seed, '', 0);
    return plainLike(initial, seed, 'seed', 0);
  } catch (e) {
    if (e instanceof SeedFault) return typeMismatch(`the seed does not fit the state: ${e.reason}`, stateType);
    throw e;
  }
}

export const isRefusal = (x: TypedData | Refusal): x is Refusal => 'class' in x;

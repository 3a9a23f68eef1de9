/**
 * Values while a card runs. A natural is a JS number while it is a safe integer and a bigint
 * above that (never both for one value, so `===` is equality); text is a string; a record is
 * an array in its type's layout; a list is an array; a variant is a Tagged. Lists and records
 * are never changed in place: every edit builds a new one, so a value can be shared freely.
 */
import { shownPrincipal } from '../program.js';
import { PMap, mapEach, type Key } from './pmap.js';
import type { Ty } from './types.js';

export { cmpText } from './text-order.js';

export class Tagged {
  constructor(
    public t: number,
    public f: Value[] | null,
  ) {}
}

export type Value = number | bigint | string | boolean | Value[] | Tagged | PMap<Value> | Slice;

/**
 * A list grown by `append`: the first `len` items of a buffer it may share with the list it was
 * appended to. Appending to the newest list of a buffer pushes onto it (the lists before it see
 * only their own `len` items, so nothing they hold changes); appending to an older one copies.
 * So a loop of appends costs each one a slot, not a copy of the whole list.
 */
export class Slice {
  constructor(
    readonly buf: Value[],
    readonly len: number,
  ) {}
}

/** A list's items as an array, for reading at once (never kept: a Slice's buffer may grow later). */
export function items(v: Value): Value[] {
  if (v instanceof Slice) return v.len === v.buf.length ? v.buf : v.buf.slice(0, v.len);
  return v as Value[];
}

/** How many items a list holds. */
export const count = (v: Value): number => (v instanceof Slice ? v.len : (v as Value[]).length);

const MAX = Number.MAX_SAFE_INTEGER;
const BIG_MAX = BigInt(MAX);

/** Keeps one representation per natural: a number when it fits, a bigint otherwise. */
export function norm(b: bigint): number | bigint {
  return b <= BIG_MAX ? Number(b) : b;
}

export const big = (v: number | bigint): bigint => (typeof v === 'bigint' ? v : BigInt(v));

/** Raised for a run that cannot go on; the run boundary turns it into a refusal. */
export class Halt {
  constructor(public refusal: import('../program.js').RunRefusal) {}
}

export function belowZero(a: number | bigint, b: number | bigint): never {
  throw new Halt({ class: 'evaluation', reason: `a natural cannot go below zero: ${a} - ${b}` });
}

export function add(a: Value, b: Value): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (r <= MAX) return r;
  }
  return norm(big(a as number) + big(b as number));
}

export function sub(a: Value, b: Value): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    if (b > a) belowZero(a, b);
    return a - b;
  }
  const r = big(a as number) - big(b as number);
  if (r < 0n) belowZero(a as number, b as number);
  return norm(r);
}

export function mul(a: Value, b: Value): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    if (r <= MAX) return r;
  }
  return norm(big(a as number) * big(b as number));
}

export function div(a: Value, b: Value): number | bigint {
  if (b === 0) throw new Halt({ class: 'evaluation', reason: `division by zero: ${a} / 0` });
  if (typeof a === 'number' && typeof b === 'number') return (a - (a % b)) / b;
  return norm(big(a as number) / big(b as number));
}

export function mod(a: Value, b: Value): number | bigint {
  if (b === 0) throw new Halt({ class: 'evaluation', reason: `remainder of division by zero: ${a} % 0` });
  if (typeof a === 'number' && typeof b === 'number') return a % b;
  return norm(big(a as number) % big(b as number));
}

/** 64-bit limbs of a natural (1 for a number). */
export function limbs(v: Value): number {
  return typeof v === 'bigint' ? Math.ceil(v.toString(16).length / 16) : 1;
}

/** Order of two naturals (mixed number/bigint compare correctly in JS). */
export function lt(a: Value, b: Value): boolean {
  return (a as number) < (b as number);
}

/** How deep a value may nest where it is walked (compared, shown, written out): as deep as JSON bodies. */
export const maxValueDepth = 256;

export function tooDeepValue(): never {
  throw new Halt({ class: 'evaluation', reason: `a value nests deeper than ${maxValueDepth}` });
}

/** Structural equality; `count` is charged one tick per node compared. */
export function eq(a: Value, b: Value, count: { n: number }, depth = 0): boolean {
  count.n++;
  if (a === b) return true;
  if (a instanceof Slice) a = items(a);
  if (b instanceof Slice) b = items(b);
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (depth > maxValueDepth) tooDeepValue();
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!eq(a[i]!, b[i]!, count, depth + 1)) return false;
    return true;
  }
  if (a instanceof PMap) return b instanceof PMap && sameMap(a, b, count, depth);
  if (Array.isArray(b) || a.t !== (b as Tagged).t) return false;
  const fa = a.f;
  const fb = (b as Tagged).f;
  if (!fa || !fb) return fa === fb || (!fa && fb!.length === 0) || (!fb && fa!.length === 0);
  return eq(fa, fb, count, depth + 1);
}

/** Two maps are equal when they hold the same keys with equal values (in key order, so one walk). */
function sameMap(a: PMap<Value>, b: PMap<Value>, count: { n: number }, depth: number): boolean {
  if (a.size !== b.size) return false;
  const ks: Key[] = [];
  const vs: Value[] = [];
  mapEach(b, (k, v) => {
    ks.push(k);
    vs.push(v);
    return true;
  });
  let i = 0;
  let same = true;
  mapEach(a, (k, v) => {
    count.n++;
    same = k === ks[i] && eq(v, vs[i]!, count, depth + 1);
    i++;
    return same;
  });
  return same;
}

/**
 * How a value reads inside text: naturals in decimal, text as is (a principal as the guest's
 * handle, spec 5.2), the rest as a guest writes it.
 */
export function display(v: Value, t: Ty, nested = false, depth = 0): string {
  if (depth > maxValueDepth) tooDeepValue();
  switch (t.k) {
    case 'nat':
      return String(v);
    case 'text': {
      const s = t.sub === 'Principal' ? shownPrincipal(v as string) : (v as string);
      return nested ? JSON.stringify(s) : s;
    }
    case 'bool':
      return v ? 'true' : 'false';
    case 'list':
      return `[${items(v)
        .map((x) => display(x, t.of, true, depth + 1))
        .join(', ')}]`;
    case 'map': {
      const parts: string[] = [];
      mapEach(v as PMap<Value>, (k, x) => {
        parts.push(`${display(k, t.key, true, depth + 1)}: ${display(x, t.of, true, depth + 1)}`);
        return true;
      });
      return parts.length ? `{ ${parts.join(', ')} }` : '{}';
    }
    case 'record': {
      const arr = v as Value[];
      return `{ ${t.fields.map((f) => `${f.name}: ${display(arr[t.slot.get(f.name)!]!, f.ty, true, depth + 1)}`).join(', ')} }`;
    }
    case 'variant': {
      const g = v as Tagged;
      const c = t.ctors[g.t]!;
      if (!c.fields.length) return c.name;
      return `${c.name} { ${c.fields.map((f) => `${f.name}: ${display(g.f![c.slot.get(f.name)!]!, f.ty, true, depth + 1)}`).join(', ')} }`;
    }
    case 'err':
      return '?';
  }
}

/** A rough, deterministic size of a value in heap units, for what a builtin allocates. */
export function heapOf(v: Value): number {
  if (typeof v === 'string') return 8 + v.length;
  if (typeof v === 'bigint') return 16;
  if (Array.isArray(v)) return 16 + 8 * v.length;
  if (v instanceof Tagged) return 16 + (v.f ? 8 * v.f.length : 0);
  if (v instanceof PMap) return 16;
  if (v instanceof Slice) return 16 + 8 * v.len;
  return 8;
}

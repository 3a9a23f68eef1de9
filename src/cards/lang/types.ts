/**
 * Types of the card language. Records are structural and laid out by field name (sorted), so
 * two record types with the same fields share one layout; variants are nominal. Bounds are
 * refinements checked where data enters (arguments, state, seeds), not by the type checker.
 */

export type TextSub = 'Text' | 'Object' | 'Principal' | 'Label';

export interface FieldTy {
  name: string;
  ty: Ty;
}

export interface RecordTy {
  k: 'record';
  name?: string;
  /** Declared order: how it is shown and written as typed data. */
  fields: FieldTy[];
  /** Layout: field name to its slot in the value array (fields sorted by name). */
  slot: Map<string, number>;
  /** Fields in layout order. */
  order: FieldTy[];
}

export interface CtorTy {
  name: string;
  fields: FieldTy[];
  slot: Map<string, number>;
  order: FieldTy[];
}

export interface VariantTy {
  k: 'variant';
  name: string;
  module: string;
  ctors: CtorTy[];
  tag: Map<string, number>;
}

export type Ty =
  | { k: 'nat'; min?: bigint; max?: bigint }
  | { k: 'text'; sub: TextSub; min?: bigint; max?: bigint }
  | { k: 'bool' }
  | { k: 'list'; of: Ty }
  /** Keyed by naturals or texts (pmap.ts); written as typed data as a list of {key, value} in key order. */
  | { k: 'map'; key: Ty; of: Ty }
  | RecordTy
  | VariantTy
  | { k: 'err' };

export const NAT: Ty = { k: 'nat' };
export const TEXT: Ty = { k: 'text', sub: 'Text' };
export const OBJECT: Ty = { k: 'text', sub: 'Object' };
export const PRINCIPAL: Ty = { k: 'text', sub: 'Principal' };
export const BOOL: Ty = { k: 'bool' };
export const ERR: Ty = { k: 'err' };
export const listOf = (of: Ty): Ty => ({ k: 'list', of });
export const mapOf = (key: Ty, of: Ty): Ty => ({ k: 'map', key, of });

/** Lays out fields by name; the caller has already refused duplicates. */
export function layout(fields: FieldTy[]): { slot: Map<string, number>; order: FieldTy[] } {
  const order = [...fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const slot = new Map<string, number>();
  order.forEach((f, i) => slot.set(f.name, i));
  return { slot, order };
}

export function recordTy(fields: FieldTy[], name?: string): RecordTy {
  const r: RecordTy = { k: 'record', fields, ...layout(fields) };
  if (name !== undefined) r.name = name;
  return r;
}

/** Fills a record type made empty earlier (so recursive types can refer to it). */
export function fillRecord(r: RecordTy, fields: FieldTy[]): void {
  const l = layout(fields);
  r.fields = fields;
  r.slot = l.slot;
  r.order = l.order;
}

function bounds(min?: bigint, max?: bigint): string {
  return min !== undefined && max !== undefined ? ` ${min}..${max}` : '';
}

/** A type as a guest writes it. */
export function show(t: Ty, depth = 0): string {
  switch (t.k) {
    case 'nat':
      return 'Natural' + bounds(t.min, t.max);
    case 'text':
      return t.sub + bounds(t.min, t.max);
    case 'bool':
      return 'Boolean';
    case 'list':
      return 'List ' + show(t.of, depth + 1);
    case 'map':
      return `Map ${show(t.key, depth + 1)} ${show(t.of, depth + 1)}`;
    case 'record':
      if (t.name) return t.name;
      if (depth > 3) return '{ … }';
      return `{ ${t.fields.map((f) => `${f.name}: ${show(f.ty, depth + 1)}`).join(', ')} }`;
    case 'variant':
      return t.name;
    case 'err':
      return '?';
  }
}

/** A type spelled out one level deep, for `Program.stateType`: `Lamp { lit: Boolean, fuel: Natural }`. */
export function showFull(t: Ty): string {
  if (t.k === 'record') return `${t.name ? t.name + ' ' : ''}{ ${t.fields.map((f) => `${f.name}: ${show(f.ty, 1)}`).join(', ')} }`;
  if (t.k === 'variant') {
    return `${t.name} = ${t.ctors.map((c) => (c.fields.length ? `${c.name} { ${c.fields.map((f) => `${f.name}: ${show(f.ty, 1)}`).join(', ')} }` : c.name)).join(' | ')}`;
  }
  return show(t);
}

/** Can a value of type `b` stand where `a` is wanted? Bounds are not compared here. */
export function compat(a: Ty, b: Ty, seen: [Ty, Ty][] = []): boolean {
  if (a === b || a.k === 'err' || b.k === 'err') return true;
  switch (a.k) {
    case 'nat':
    case 'bool':
      return b.k === a.k;
    case 'text':
      return b.k === 'text';
    case 'list':
      return b.k === 'list' && compat(a.of, b.of, seen);
    case 'map':
      return b.k === 'map' && compat(a.key, b.key, seen) && compat(a.of, b.of, seen);
    case 'variant':
      return false;
    case 'record': {
      if (b.k !== 'record' || a.order.length !== b.order.length) return false;
      if (seen.some(([x, y]) => x === a && y === b)) return true;
      const next: [Ty, Ty][] = [...seen, [a, b]];
      for (let i = 0; i < a.order.length; i++) {
        const fa = a.order[i]!;
        const fb = b.order[i]!;
        if (fa.name !== fb.name || !compat(fa.ty, fb.ty, next)) return false;
      }
      return true;
    }
  }
}

/**
 * A canonical description of a type's shape, ignoring names and bounds: two state types with
 * the same key hold the same typed data, so a reprogram between them needs no migration.
 */
export function shapeKey(t: Ty, stack: Ty[] = []): string {
  const back = stack.indexOf(t);
  if (back >= 0) return `#${stack.length - back}`;
  switch (t.k) {
    case 'nat':
      return 'N';
    case 'text':
      return 'T';
    case 'bool':
      return 'B';
    case 'err':
      return '?';
    case 'list':
      return `L(${shapeKey(t.of, stack)})`;
    case 'map':
      return `M(${shapeKey(t.key, stack)},${shapeKey(t.of, stack)})`;
    case 'record': {
      const s = [...stack, t];
      return `{${t.order.map((f) => `${JSON.stringify(f.name)}:${shapeKey(f.ty, s)}`).join(',')}}`;
    }
    case 'variant': {
      const s = [...stack, t];
      const ctors = [...t.ctors].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      return `<${ctors.map((c) => `${JSON.stringify(c.name)}{${c.order.map((f) => `${JSON.stringify(f.name)}:${shapeKey(f.ty, s)}`).join(',')}}`).join('|')}>`;
    }
  }
}

/** Drops bounds: the type a local gets from its first value. */
export function widen(t: Ty): Ty {
  if (t.k === 'nat') return NAT;
  if (t.k === 'text') return { k: 'text', sub: t.sub };
  return t;
}

export const isTextLike = (t: Ty): boolean => t.k === 'text' || t.k === 'err';
export const isNat = (t: Ty): boolean => t.k === 'nat' || t.k === 'err';
export const isBool = (t: Ty): boolean => t.k === 'bool' || t.k === 'err';

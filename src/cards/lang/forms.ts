/**
 * Forms: a spell's parameters (after the state) with their bounds ARE its form. A parameter
 * type without bounds gets the widest bounds its kind allows; a parameter that is a list, a
 * record or a variant whose tags carry fields has no form, and the spell takes typed data.
 */
import type { FieldForm, FormField, MethodInfo } from '../program.js';
import { type FnSym, fnSignature } from './ir.js';
import type { Ty } from './types.js';

const MAX = Number.MAX_SAFE_INTEGER;
/** Bounds of a parameter written without them. */
export const defaultBounds = { natural: [0, MAX], text: [0, 4096], object: [1, 128], principal: [1, 160] } as const;

const num = (b: bigint | undefined, d: number): number => (b === undefined ? d : b > BigInt(MAX) ? MAX : Number(b));

export function fieldForm(t: Ty): FieldForm | undefined {
  switch (t.k) {
    case 'nat':
      return { kind: 'natural', min: num(t.min, defaultBounds.natural[0]), max: num(t.max, defaultBounds.natural[1]) };
    case 'text':
      if (t.sub === 'Object') return { kind: 'object', min: num(t.min, defaultBounds.object[0]), max: num(t.max, defaultBounds.object[1]) };
      if (t.sub === 'Principal') return { kind: 'text', min: defaultBounds.principal[0], max: defaultBounds.principal[1], principal: true };
      return { kind: 'text', min: num(t.min, defaultBounds.text[0]), max: num(t.max, defaultBounds.text[1]) };
    case 'bool':
      return { kind: 'boolean' };
    case 'variant':
      if (t.ctors.length && t.ctors.every((c) => c.fields.length === 0)) return { kind: 'oneOf', options: t.ctors.map((c) => c.name) };
      return undefined;
    default:
      return undefined;
  }
}

/** How a blank reads in a template: `<natural 0..9>`, `<text 1..80>`, `one of a, b`. */
export function blank(f: FieldForm): string {
  switch (f.kind) {
    case 'natural':
    case 'text':
    case 'object':
      return `<${f.kind} ${f.min}..${f.max}>`;
    case 'oneOf':
      return `one of ${f.options.join(', ')}`;
    case 'boolean':
      return 'one of true, false';
  }
}

/**
 * The spell with blanks: `fill measures=<natural 0..9>`, `set mood=<one of calm, cross>` (an
 * enumerated blank is bracketed too, so a template with several fields reads unambiguously).
 */
export function templateOf(name: string, fields: FormField[]): string {
  return [name, ...fields.map((f) => `${f.name}=${f.form.kind === 'oneOf' || f.form.kind === 'boolean' ? `<${blank(f.form)}>` : blank(f.form)}`)].join(' ');
}

export function methodInfo(fn: FnSym): MethodInfo {
  const kind: MethodInfo['kind'] = fn.kind === 'view' ? 'view' : fn.name === 'receive' ? 'receive' : 'spell';
  const info: MethodInfo = { name: fn.name, kind, signature: fnSignature(fn) };
  if (kind !== 'spell') return info;
  const fields: FormField[] = [];
  for (const p of fn.params.slice(1)) {
    const form = fieldForm(p.ty);
    if (!form) return info;
    fields.push({ name: p.name, form, optional: (form.kind === 'text' || form.kind === 'object') && form.min === 0 });
  }
  info.form = fields;
  info.template = templateOf(fn.name, fields);
  return info;
}

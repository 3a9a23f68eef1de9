/**
 * Codecs read by people: `shapeOf` renders a body or query codec as the readable shape the
 * catalogue shows, and `explain` turns a decoding failure into the one-line message of a
 * `hostRequest` refusal, naming the field. Both walk the same codecs the machinery decodes with,
 * so what the catalogue promises is what the front checks.
 */
import * as t from 'io-ts';
import { TypedDataC } from '../contract/typed.js';
import type { ErrorClass } from '../contract/errors.js';
import { moduleTooLargeMessage } from '../contract/bodies.js';
import { badModulesMessage } from '../contract/earlier.js';
import { CheckedType, FieldsType, unknownField } from '../contract/codec.js';

export type Shape = string | Shape[] | { [key: string]: Shape };

type Any = t.Type<unknown, unknown, unknown> & { _tag?: string };

/** The readable shape of a codec: `{code: 'text', 'name?': 'text'}`, `['typed data']`, `{'one of': [...]}`. */
export function shapeOf(codec: t.Type<any, any, any>): Shape {
  const c = codec as Any;
  if (c === (TypedDataC as unknown)) return 'typed data';
  if (c instanceof FieldsType) {
    const out: Record<string, Shape> = {};
    for (const [k, v] of Object.entries(c.required as t.Props)) out[k] = shapeOf(v);
    for (const [k, v] of Object.entries(c.optional as t.Props)) out[`${k}?`] = shapeOf(v);
    if (c.rest) for (const [k, v] of Object.entries(c.rest)) out[`${k}?`] = v;
    return out;
  }
  if (c instanceof CheckedType) return shapeOf(c.base);
  if (c instanceof t.UnionType) return { 'one of': (c.types as t.Mixed[]).map(shapeOf) };
  if (c instanceof t.ArrayType) return [shapeOf(c.type)];
  if (c instanceof t.KeyofType) return `one of ${Object.keys(c.keys).join(', ')}`;
  if (c instanceof t.LiteralType) return JSON.stringify(c.value);
  if (c instanceof t.StringType) return 'text';
  if (c instanceof t.BooleanType) return 'boolean';
  if (c instanceof t.NumberType) return 'number';
  if (c instanceof t.AnyDictionaryType) return 'object';
  return c.name;
}

/** The shape as one line of text, for messages: `{code: text, name?: text}`. */
export function shapeText(s: Shape): string {
  if (typeof s === 'string') return s;
  if (Array.isArray(s)) return `[${s.map(shapeText).join(', ')}]`;
  const keys = Object.keys(s);
  if (keys.length === 1 && keys[0] === 'one of') return (s['one of'] as Shape[]).map(shapeText).join(' | ');
  return `{${keys.map((k) => `${k}: ${shapeText(s[k])}`).join(', ')}}`;
}

/** The rules across fields that a shape cannot show (e.g. "one of fields, spell, argument"). */
export function rulesOf(codec: t.Type<any, any, any>): string[] {
  const c = codec as Any;
  if (c instanceof CheckedType) return [c.rule, ...rulesOf(c.base)];
  return [];
}

/**
 * The refusal for a value that failed its codec. `where` is `body` or `query`. A module over the
 * module limit is `moduleTooLarge`; anything else is `hostRequest`, with the first failing field.
 */
export function explain(errors: t.Errors, where: 'body' | 'query', root: t.Type<any, any, any>): { cls: ErrorClass; message: string } {
  const bad = errors.find((e) => e.message === badModulesMessage);
  if (bad) return { cls: 'badModules', message: `${where} ${pathOf(bad.context).text}: \`modules\` must be a list of at most 16 objects {name, source}` };
  const big = errors.find((e) => e.message === moduleTooLargeMessage);
  if (big) return { cls: 'moduleTooLarge', message: `${where} ${pathOf(big.context).text}: a module is over the module limit` };
  const e = errors[0];
  const { text, union } = pathOf(e.context);
  const name = text ? `${where} field \`${text}\`` : where;
  if (union) return { cls: 'hostRequest', message: `${name}: expected ${shapeText(shapeOf(union))}` };
  const last = e.context[e.context.length - 1];
  if (last?.type === unknownField) return { cls: 'hostRequest', message: `${name} is not a field this route takes; it takes ${shapeText(shapeOf(root))}` };
  const wanted = shapeText(shapeOf(last.type as t.Mixed));
  if (e.value === undefined) return { cls: 'hostRequest', message: `${name} is required (${wanted})` };
  if (e.message) return { cls: 'hostRequest', message: `${name}: ${e.message}` };
  if (where === 'query' && Array.isArray(e.value)) return { cls: 'hostRequest', message: `${name} is given more than once` };
  return { cls: 'hostRequest', message: `${name}: expected ${wanted}, got ${describe(e.value)}` };
}

/** The dotted path of a failure (`if[0].version`), and the outermost union it went through. */
function pathOf(context: t.Context): { text: string; union?: t.Mixed } {
  let text = '';
  for (let i = 1; i < context.length; i++) {
    const parent = context[i - 1].type as Any;
    // A union's or intersection's members are not fields: their keys are member indexes.
    if (parent instanceof t.UnionType) return { text, union: parent };
    if (parent instanceof t.RecursiveType && parent.type instanceof t.UnionType) return { text, union: parent };
    if (parent instanceof t.IntersectionType) continue;
    const key = context[i].key;
    text += parent instanceof t.ArrayType ? `[${key}]` : text ? `.${key}` : key;
  }
  const top = context[0]?.type as Any | undefined;
  if (context.length === 1 && top instanceof t.UnionType) return { text, union: top };
  return { text };
}

function describe(u: unknown): string {
  if (u === null) return 'null';
  if (Array.isArray(u)) return 'a list';
  if (typeof u === 'object') return 'an object';
  if (typeof u === 'string') return u.length > 40 ? `a text of ${u.length} characters` : JSON.stringify(u);
  return String(u);
}

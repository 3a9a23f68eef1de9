/**
 * Codecs read by machines: `jsonSchemaOf` renders a body or query codec as JSON Schema (draft
 * 2020-12), the way shape.ts renders it for people. MCP clients are given these schemas for the
 * town's tools (src/mcp/tools.ts); they walk the same codecs the front decodes with, so what a
 * tool's schema states is what the route checks. A schema never refuses what its codec takes;
 * where JSON Schema cannot say a rule (one of fields, spell, argument; a module's byte limit),
 * the rule is in the description and the codec still decides.
 */
import * as t from 'io-ts';
import { ModuleSource, Natural } from '../contract/bodies.js';
import { CheckedType, FieldsType, PatternType } from '../contract/codec.js';

export type JsonSchema = { [key: string]: unknown };

type Any = t.Type<unknown, unknown, unknown>;

/** What one rendering shares: the recursive codecs met so far, by the name their $defs entry has. */
interface Walk {
  defs: Record<string, JsonSchema>;
  named: Map<Any, string>;
}

/** The JSON Schema of a codec; recursive codecs (typed data) become `$defs` entries. */
export function jsonSchemaOf(codec: t.Type<any, any, any>): JsonSchema {
  const walk: Walk = { defs: {}, named: new Map() };
  const schema = render(codec as Any, walk);
  return Object.keys(walk.defs).length ? { ...schema, $defs: walk.defs } : schema;
}

/**
 * The properties of an object codec, each rendered, with the names it requires and whether it
 * takes names it does not list: what a tool's input merges from a route's query and body.
 */
export interface ObjectSchema {
  properties: Record<string, JsonSchema>;
  required: string[];
  /** The codec keeps or refuses fields it does not name. */
  open: boolean;
  /** Rules across fields that the properties cannot show. */
  rules: string[];
  defs: Record<string, JsonSchema>;
}

/** An object codec (FieldsType, perhaps under a CheckedType) as its parts; undefined for any other. */
export function objectSchemaOf(codec: t.Type<any, any, any>): ObjectSchema | undefined {
  const rules: string[] = [];
  let c = codec as Any;
  while (c instanceof CheckedType) {
    rules.push(c.rule);
    c = c.base as Any;
  }
  if (!(c instanceof FieldsType)) return undefined;
  const walk: Walk = { defs: {}, named: new Map() };
  return { ...fieldsParts(c, walk), open: c.open, rules, defs: walk.defs };
}

function fieldsParts(c: FieldsType<t.Props, t.Props>, walk: Walk): { properties: Record<string, JsonSchema>; required: string[] } {
  const properties: Record<string, JsonSchema> = {};
  for (const [k, v] of Object.entries(c.required)) properties[k] = render(v as Any, walk);
  for (const [k, v] of Object.entries(c.optional)) properties[k] = render(v as Any, walk);
  return { properties, required: Object.keys(c.required) };
}

function render(c: Any, walk: Walk): JsonSchema {
  if (c === (Natural as unknown)) return { type: 'integer', minimum: 0 };
  if (c === (ModuleSource as unknown)) return { type: 'string', description: c.name };
  if (c instanceof t.RecursiveType) {
    let name = walk.named.get(c);
    if (name === undefined) {
      name = c.name;
      walk.named.set(c, name);
      walk.defs[name] = render(c.type as Any, walk);
    }
    return { $ref: `#/$defs/${name}` };
  }
  if (c instanceof FieldsType) {
    const { properties, required } = fieldsParts(c, walk);
    const rest = c.rest ? ` Also takes ${Object.keys(c.rest).join(', ')}.` : '';
    return {
      type: 'object',
      description: `${c.name}${rest}`,
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: c.open,
    };
  }
  if (c instanceof CheckedType) {
    const base = render(c.base as Any, walk);
    return { ...base, description: base.description ? `${base.description}; ${c.rule}` : c.rule };
  }
  if (c instanceof PatternType) {
    const s: JsonSchema = { type: 'string', description: c.name };
    // A pattern with flags would mean something else in JSON Schema: leave it to the codec.
    if (!c.re.flags) s.pattern = c.re.source;
    if (c.min > 0) s.minLength = c.min;
    if (Number.isFinite(c.max)) s.maxLength = c.max;
    return s;
  }
  if (c instanceof t.InterfaceType || c instanceof t.PartialType) {
    const props = c.props as t.Props;
    const properties: Record<string, JsonSchema> = {};
    for (const [k, v] of Object.entries(props)) properties[k] = render(v as Any, walk);
    const required = c instanceof t.InterfaceType ? Object.keys(props) : [];
    return { type: 'object', properties, ...(required.length ? { required } : {}) };
  }
  if (c instanceof t.IntersectionType) return { allOf: (c.types as Any[]).map((x) => render(x, walk)) };
  if (c instanceof t.UnionType) return { anyOf: (c.types as Any[]).map((x) => render(x, walk)) };
  if (c instanceof t.ArrayType) return { type: 'array', items: render(c.type as Any, walk) };
  if (c instanceof t.KeyofType) return { type: 'string', enum: Object.keys(c.keys) };
  if (c instanceof t.LiteralType) return { const: c.value };
  if (c instanceof t.StringType) return { type: 'string' };
  if (c instanceof t.BooleanType) return { type: 'boolean' };
  if (c instanceof t.NumberType) return { type: 'number' };
  if (c instanceof t.AnyDictionaryType) return { type: 'object' };
  // A codec of our own that states no schema: anything, described by its name.
  return { description: c.name };
}

/**
 * An io-ts codec's `is`, compiled to JavaScript: the same answer for every JSON value, at a
 * fraction of the cost. A start replays every journal entry through the entry codec's check
 * (200,000 entries: most of a second through io-ts's `is`, which reads every field by a computed
 * key, tries a union's members in turn and calls `Object.prototype.toString` on every record).
 * Generated code reads fields by their names (V8 then caches each read), dispatches a union on a
 * literal field all its members share (typed data's `tag`), and tells a record by `typeof`.
 *
 * Derived from the codec itself, so the two never drift: interfaces, partials, intersections,
 * unions, literals, arrays, strings, numbers, booleans and recursion are compiled; any other
 * codec keeps its own `is`. Records are told apart as JSON.parse makes them (a non-null,
 * non-array object); io-ts asks `Object.prototype.toString`, which differs only for objects JSON
 * cannot make. Callers keep the codec for the explanation when a value does not fit.
 */
import type * as t from 'io-ts';

export type Guard = (u: unknown) => boolean;

/** What the compiler reads of a codec (io-ts's classes expose these fields). */
interface Node {
  _tag?: string;
  props?: Record<string, t.Mixed>;
  types?: t.Mixed[];
  type?: t.Mixed;
  value?: unknown;
  is(u: unknown): boolean;
}

export function compiledGuard(codec: t.Mixed): Guard {
  const functions: string[] = [];
  const names = new Map<t.Mixed, string>();
  /** Codecs kept as they are (their own `is`), and literal values that JSON cannot spell. */
  const kept: unknown[] = [];
  const keep = (x: unknown) => `k[${kept.push(x) - 1}]`;
  const str = (s: string) => JSON.stringify(s);

  /** An expression true when `v` (a variable name) fits `c`. */
  const test = (c: t.Mixed, v: string): string => {
    const node = c as unknown as Node;
    switch (node._tag) {
      case 'StringType':
        return `typeof ${v} === 'string'`;
      case 'NumberType':
        return `typeof ${v} === 'number'`;
      case 'BooleanType':
        return `typeof ${v} === 'boolean'`;
      case 'LiteralType': {
        const value = node.value;
        const spelt = typeof value === 'string' ? str(value) : typeof value === 'number' || typeof value === 'boolean' ? String(value) : keep(value);
        return `${v} === ${spelt}`;
      }
      default:
        return `${fn(c)}(${v})`;
    }
  };

  /** The name of a generated function for `c` (made once per codec: recursion reaches itself). */
  const fn = (c: t.Mixed): string => {
    const known = names.get(c);
    if (known) return known;
    const name = `f${names.size}`;
    names.set(c, name);
    functions.push(`function ${name}(u) {\n${body(c)}\n}`);
    return name;
  };

  const record = `if (typeof u !== 'object' || u === null || Array.isArray(u)) return false;`;

  const body = (c: t.Mixed): string => {
    const node = c as unknown as Node;
    switch (node._tag) {
      case 'RecursiveType':
        return `return ${test(node.type!, 'u')};`;
      case 'ArrayType':
        return `if (!Array.isArray(u)) return false;\nfor (let i = 0; i < u.length; i++) { const x = u[i]; if (!(${test(node.type!, 'x')})) return false; }\nreturn true;`;
      case 'InterfaceType': {
        // As io-ts: a required key fits when present (even as undefined) and its value fits.
        const lines = Object.entries(node.props!).map(([k, p], i) => {
          const key = str(k);
          return `const v${i} = u[${key}];\nif ((v${i} === undefined && !h.call(u, ${key})) || !(${test(p, `v${i}`)})) return false;`;
        });
        return `${record}\n${lines.join('\n')}\nreturn true;`;
      }
      case 'PartialType': {
        // An optional key fits when absent, undefined, or fitting.
        const lines = Object.entries(node.props!).map(
          ([k, p], i) => `const v${i} = u[${str(k)}];\nif (v${i} !== undefined && !(${test(p, `v${i}`)})) return false;`,
        );
        return `${record}\n${lines.join('\n')}\nreturn true;`;
      }
      case 'IntersectionType':
        return `return ${node.types!.map((p) => `(${test(p, 'u')})`).join(' && ')};`;
      case 'UnionType':
        return union(node.types!);
      default:
        return `return ${keep(c)}.is(u);`;
    }
  };

  /**
   * A union: when every member requires the same field to be a literal string (typed data's
   * `tag`), only the members naming the value found are tried, which is all that could fit.
   */
  const union = (members: t.Mixed[]): string => {
    const literals = members.map(requiredLiterals);
    const shared = Object.keys(literals[0] ?? {}).find((k) => literals.every((l) => l !== undefined && typeof l[k] === 'string'));
    if (shared === undefined) return `return ${members.map((m) => `(${test(m, 'u')})`).join(' || ')};`;
    const cases = new Map<string, string[]>();
    members.forEach((m, i) => {
      const value = literals[i]![shared] as string;
      cases.set(value, [...(cases.get(value) ?? []), `(${test(m, 'u')})`]);
    });
    const arms = [...cases].map(([value, tests]) => `case ${str(value)}: return ${tests.join(' || ')};`);
    return `${record}\nswitch (u[${str(shared)}]) {\n${arms.join('\n')}\ndefault: return false;\n}`;
  };

  const entry = fn(codec);
  const source = `'use strict';\n${functions.join('\n')}\nreturn ${entry};`;
  // Generated from the codec's own structure: names and literals are written as JSON strings.
  return new Function('h', 'k', source)(Object.prototype.hasOwnProperty, kept) as Guard;
}

/** The fields a codec requires to be one literal value (an interface's, or its intersection's parts'). */
function requiredLiterals(codec: t.Mixed): Record<string, unknown> | undefined {
  const node = codec as unknown as Node;
  if (node._tag === 'InterfaceType') {
    const out: Record<string, unknown> = {};
    for (const [k, p] of Object.entries(node.props!)) {
      const field = p as unknown as Node;
      if (field._tag === 'LiteralType') out[k] = field.value;
    }
    return out;
  }
  if (node._tag === 'IntersectionType') {
    const parts = node.types!.map(requiredLiterals).filter((l): l is Record<string, unknown> => l !== undefined);
    return parts.length ? Object.assign({}, ...parts) : undefined;
  }
  return undefined;
}

/**
 * The io-ts building blocks the route table declares its bodies and queries with. Two kinds are
 * our own because io-ts has no equivalent: `fields` (an object that refuses fields it does not
 * name, so a typo such as `argumnet` is caught instead of silently ignored) and `checked` (a
 * rule across fields, such as "one of fields, spell, argument"). Both keep their parts visible so
 * src/http/shape.ts can render them in the catalogue.
 */
import * as t from 'io-ts';

type Out<R extends t.Props, O extends t.Props> = t.TypeOfProps<R> & Partial<t.TypeOfProps<O>>;

/** Marks a value that is not a field of the object it sits in (see explain in shape.ts). */
export const unknownField = new t.Type<never>(
  'unknown field',
  (_u): _u is never => false,
  (u, c) => t.failure(u, c, 'unknown field'),
  t.identity,
);

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);
const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);

export class FieldsType<R extends t.Props, O extends t.Props> extends t.Type<Out<R, O>, unknown, unknown> {
  readonly _tag = 'FieldsType' as const;
  constructor(
    name: string,
    readonly required: R,
    readonly optional: O,
    /** Open objects keep fields they do not name (browser forms, queries); closed ones refuse them. */
    readonly open: boolean,
    /** How the catalogue describes the fields an open object also takes, e.g. {'f.<field>': 'text'}. */
    readonly rest?: Record<string, string>,
  ) {
    super(
      name,
      (u): u is Out<R, O> => isRecord(u) && Object.keys(required).every((k) => required[k].is(u[k])),
      (u, c) => {
        if (!isRecord(u)) return t.failure(u, c, 'expected a JSON object');
        const errors: t.ValidationError[] = [];
        const out: Record<string, unknown> = open ? { ...u } : {};
        if (!open) {
          for (const k of Object.keys(u)) {
            if (!hasOwn(required, k) && !hasOwn(optional, k))
              errors.push({ value: u[k], context: t.appendContext(c, k, unknownField, u[k]), message: 'unknown field' });
          }
        }
        const take = (k: string, codec: t.Mixed) => {
          const r = codec.validate(u[k], t.appendContext(c, k, codec, u[k]));
          if (r._tag === 'Left') errors.push(...r.left);
          else out[k] = r.right;
        };
        for (const k of Object.keys(required)) take(k, required[k]);
        for (const k of Object.keys(optional)) if (u[k] !== undefined) take(k, optional[k]);
        return errors.length ? t.failures(errors) : t.success(out as Out<R, O>);
      },
      t.identity,
    );
  }
}

/** A closed object: every field it takes is named, anything else is refused. */
export function fields<R extends t.Props, O extends t.Props = Record<never, t.Mixed>>(name: string, required: R, optional?: O): FieldsType<R, O> {
  return new FieldsType(name, required, (optional ?? {}) as O, false);
}

/** An open object: the named fields are checked, others pass through untouched. */
export function openFields<R extends t.Props, O extends t.Props = Record<never, t.Mixed>>(
  name: string,
  required: R,
  optional?: O,
  rest?: Record<string, string>,
): FieldsType<R, O> {
  return new FieldsType(name, required, (optional ?? {}) as O, true, rest);
}

export class CheckedType<A, B> extends t.Type<B, unknown, unknown> {
  readonly _tag = 'CheckedType' as const;
  constructor(
    readonly base: t.Type<A, unknown, unknown>,
    /** One line the catalogue shows beside the shape. */
    readonly rule: string,
    check: (a: A) => { ok: true; value: B } | { ok: false; message: string },
  ) {
    super(
      base.name,
      (u): u is B => base.is(u) && check(u).ok,
      (u, c) => {
        const r = base.validate(u, c);
        if (r._tag === 'Left') return r;
        const k = check(r.right);
        return k.ok ? t.success(k.value) : t.failure(u, c, k.message);
      },
      t.identity,
    );
  }
}

export function checked<A, B = A>(
  base: t.Type<A, unknown, unknown>,
  rule: string,
  check: (a: A) => { ok: true; value: B } | { ok: false; message: string },
): CheckedType<A, B> {
  return new CheckedType(base, rule, check);
}

/**
 * A text matching a pattern, between `min` and `max` characters. It keeps its parts (as FieldsType
 * does) so src/http/json-schema.ts can state them to MCP clients; the name is what the catalogue
 * and refusals call it.
 */
export class PatternType extends t.Type<string, string, unknown> {
  readonly _tag = 'PatternType' as const;
  constructor(
    name: string,
    readonly re: RegExp,
    readonly min: number,
    readonly max: number,
  ) {
    const ok = (u: unknown): u is string => typeof u === 'string' && u.length >= min && u.length <= max && re.test(u);
    super(name, ok, (u, c) => (ok(u) ? t.success(u) : t.failure(u, c)), t.identity);
  }
}

export function pattern(name: string, re: RegExp, min = 0, max = Infinity): PatternType {
  return new PatternType(name, re, min, max);
}

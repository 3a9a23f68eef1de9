/**
 * Typed data, spec 2.6: the one value model shared by the HTTP bodies (`argument`, `seed`,
 * `arguments`), the card language, the kernel and the journal.
 *
 * Decisions (docs/decisions/typed-data-on-the-wire.md): text, object ids and principals travel as `label`; a natural
 * is a non-negative integer, written as a JSON number when it is a safe integer and as a string
 * of decimal digits otherwise, so no precision is lost in JSON; a variant's payload defaults to
 * the empty record.
 */
import * as t from 'io-ts';

export type Natural = { tag: 'natural'; value: number | string };
export type Label = { tag: 'label'; value: string };
export type Bool = { tag: 'boolean'; value: boolean };
export type RecordData = { tag: 'record'; fields: { name: string; value: TypedData }[] };
export type ListData = { tag: 'list'; items: TypedData[] };
export type VariantData = { tag: 'variant'; label: string; payload?: TypedData };
export type TypedData = Natural | Label | Bool | RecordData | ListData | VariantData;

const naturalValue = new t.Type<number | string, number | string, unknown>(
  'natural',
  (u): u is number | string => (typeof u === 'number' && Number.isSafeInteger(u) && u >= 0) || (typeof u === 'string' && /^(0|[1-9][0-9]*)$/.test(u)),
  (u, c) =>
    (typeof u === 'number' && Number.isSafeInteger(u) && u >= 0) || (typeof u === 'string' && /^(0|[1-9][0-9]*)$/.test(u))
      ? t.success(u)
      : t.failure(u, c, 'a natural is a non-negative integer (a JSON number, or a string of digits)'),
  t.identity,
);

export const TypedDataC: t.Type<TypedData> = t.recursion('TypedData', () =>
  t.union([
    t.type({ tag: t.literal('natural'), value: naturalValue }),
    t.type({ tag: t.literal('label'), value: t.string }),
    t.type({ tag: t.literal('boolean'), value: t.boolean }),
    t.type({ tag: t.literal('record'), fields: t.array(t.type({ name: t.string, value: TypedDataC })) }),
    t.type({ tag: t.literal('list'), items: t.array(TypedDataC) }),
    t.intersection([t.type({ tag: t.literal('variant'), label: t.string }), t.partial({ payload: TypedDataC })]),
  ]),
) as t.Type<TypedData>;

export const emptyRecord: RecordData = { tag: 'record', fields: [] };

export const natural = (n: number | bigint): Natural => {
  if (typeof n === 'bigint') return { tag: 'natural', value: n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString() };
  return { tag: 'natural', value: n };
};
export const label = (value: string): Label => ({ tag: 'label', value });
export const bool = (value: boolean): Bool => ({ tag: 'boolean', value });
export const record = (fields: Record<string, TypedData> | [string, TypedData][]): RecordData => ({
  tag: 'record',
  fields: (Array.isArray(fields) ? fields : Object.entries(fields)).map(([name, value]) => ({ name, value })),
});
export const list = (items: TypedData[]): ListData => ({ tag: 'list', items });
export const variant = (l: string, payload?: TypedData): VariantData => (payload ? { tag: 'variant', label: l, payload } : { tag: 'variant', label: l });

/** Field lookup on a record that treats names as data: `__proto__` is just another name. */
export function field(r: RecordData, name: string): TypedData | undefined {
  for (const f of r.fields) if (f.name === name) return f.value;
  return undefined;
}

export function naturalToBigInt(n: Natural): bigint {
  return BigInt(n.value);
}

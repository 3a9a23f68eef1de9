/**
 * The fields codec: a method's form turns plain JSON `fields`, or the items of a parsed spell,
 * into the typed record the method is called with. Bounds are checked here, so a card never
 * sees a value its form does not allow. Field names are data: lookups go through Maps and
 * arrays, never through plain-object keys, so `__proto__` or `constructor` is just a name.
 */
import type { FieldForm, FormField } from '../program.js';
import { bool, label, natural, type RecordData, type TypedData } from '../../contract/typed.js';
import { badSpell, typeMismatch, type Refusal } from './refusal.js';
import type { SpellItem, SpellValue } from './spell.js';

export const OBJECT_ID = /^[A-Za-z0-9._:/-]*$/;

export type Converted = { ok: true; args: RecordData } | { ok: false; refusal: Refusal };

/** How a field's blank reads in a template: `<natural 0..9>`, `one of a, b`. */
export function blank(form: FieldForm): string {
  switch (form.kind) {
    case 'natural':
    case 'text':
    case 'object':
      return `<${form.kind} ${form.min}..${form.max}>`;
    case 'oneOf':
      return `one of ${form.options.join(', ')}`;
    case 'boolean':
      return 'one of true, false';
  }
}

/** The spell with blanks for a form: `fill measures=<natural 0..9>`. */
export function templateOf(method: string, form: FormField[]): string {
  return [method, ...form.map((f) => `${f.name}=${f.form.kind === 'oneOf' || f.form.kind === 'boolean' ? `<${blank(f.form)}>` : blank(f.form)}`)].join(' ');
}

/** The value an omitted optional field takes. */
function omitted(form: FieldForm): TypedData {
  switch (form.kind) {
    case 'natural':
      return natural(form.min);
    case 'text':
    case 'object':
      return label('');
    case 'oneOf':
      return { tag: 'variant', label: form.options[0] ?? '' };
    case 'boolean':
      return bool(false);
  }
}

const codePoints = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** A form field with only one option is fixed: the spell may repeat it but not change it. */
function fixedOption(form: FieldForm): string | undefined {
  return form.kind === 'oneOf' && form.options.length === 1 ? form.options[0] : undefined;
}

/** Checks a scalar already read as text or number against its form. */
function scalar(f: FormField, raw: string | number | boolean, hint: string): TypedData | Refusal {
  const form = f.form;
  const bad = (why: string) => badSpell('badValue', `${f.name}: ${why}; the form wants ${blank(form)}`, hint);
  switch (form.kind) {
    case 'natural': {
      let n: bigint;
      if (typeof raw === 'number') {
        if (!Number.isSafeInteger(raw) || raw < 0) return bad(`${raw} is not a natural`);
        n = BigInt(raw);
      } else if (typeof raw === 'string' && /^[0-9]{1,400}$/.test(raw)) n = BigInt(raw);
      else return bad(`${JSON.stringify(raw)} is not a natural`);
      if (n < BigInt(form.min) || n > BigInt(form.max)) return bad(`${n} is outside ${form.min}..${form.max}`);
      return natural(n);
    }
    case 'text': {
      if (typeof raw !== 'string') return bad(`${JSON.stringify(raw)} is not text`);
      const len = codePoints(raw);
      if (len < form.min || len > form.max) return bad(`${len} characters is outside ${form.min}..${form.max}`);
      return label(raw);
    }
    case 'object': {
      if (typeof raw !== 'string') return bad(`${JSON.stringify(raw)} is not a card id`);
      if (!OBJECT_ID.test(raw)) return bad(`${JSON.stringify(raw.slice(0, 40))} is not a card id (letters, digits and . _ : / -)`);
      if (raw.length < form.min || raw.length > form.max) return bad(`an id of ${raw.length} characters is outside ${form.min}..${form.max}`);
      return label(raw);
    }
    case 'oneOf': {
      const fixed = fixedOption(form);
      if (typeof raw !== 'string' || !form.options.includes(raw)) {
        if (fixed !== undefined) return badSpell('fixed', `${f.name} is fixed to ${fixed}`, hint);
        return bad(`${JSON.stringify(raw)} is not one of ${form.options.join(', ')}`);
      }
      return { tag: 'variant', label: raw };
    }
    case 'boolean': {
      if (raw === true || raw === 'true') return bool(true);
      if (raw === false || raw === 'false') return bool(false);
      return bad(`${JSON.stringify(raw)} is not true or false`);
    }
  }
}

const isRefusal = (x: TypedData | Refusal): x is Refusal => 'class' in x;

/** Fills the record in form order, defaulting omitted optional fields; missing required ones refuse. */
function complete(form: FormField[], given: Map<string, TypedData>, hint: string): Converted {
  const fields: { name: string; value: TypedData }[] = [];
  for (const f of form) {
    const v = given.get(f.name);
    if (v !== undefined) fields.push({ name: f.name, value: v });
    else if (f.optional) fields.push({ name: f.name, value: omitted(f.form) });
    else return { ok: false, refusal: badSpell('missingField', `${f.name} is missing; the form wants ${f.name}=${blank(f.form)}`, hint) };
  }
  return { ok: true, args: { tag: 'record', fields } };
}

function formByName(form: FormField[]): Map<string, FormField> {
  return new Map(form.map((f) => [f.name, f]));
}

function unknownField(name: string, form: FormField[], hint: string): Refusal {
  const known = form.length ? `it takes ${form.map((f) => f.name).join(', ')}` : 'it takes no fields';
  return badSpell('unknownField', `no field ${JSON.stringify(name.slice(0, 64))}: ${known}`, hint);
}

/** Plain JSON `fields` → the typed record, per the method's form. */
export function fromFields(form: FormField[], fields: unknown, hint: string): Converted {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    return { ok: false, refusal: typeMismatch("fields must be an object of the form's fields", hint) };
  }
  const byName = formByName(form);
  const given = new Map<string, TypedData>();
  for (const name of Object.keys(fields)) {
    const f = byName.get(name);
    if (!f) return { ok: false, refusal: unknownField(name, form, hint) };
    const raw: unknown = (fields as Record<string, unknown>)[name];
    if (raw === null || raw === undefined) {
      if (f.optional) continue;
      return { ok: false, refusal: badSpell('missingField', `${name} is null; the form wants ${name}=${blank(f.form)}`, hint) };
    }
    if (typeof raw === 'object') {
      return { ok: false, refusal: typeMismatch(`${name} is ${Array.isArray(raw) ? 'a list' : 'an object'}; the form wants ${blank(f.form)}`, hint) };
    }
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      return { ok: false, refusal: typeMismatch(`${name} is not a JSON value the form takes`, hint) };
    }
    if (raw === '' && f.optional) continue;
    const v = scalar(f, raw, hint);
    if (isRefusal(v)) return { ok: false, refusal: v };
    given.set(name, v);
  }
  return complete(form, given, hint);
}

/** Resolves card references in a spell: `{made N}`, and the words `me` and `here`. */
export type ObjectResolver = (value: SpellValue) => { ok: true; id: string } | { ok: false; refusal: Refusal } | undefined;

function spellScalar(f: FormField, v: SpellValue, hint: string, resolve: ObjectResolver): TypedData | Refusal {
  if (v.t === 'made' || (f.form.kind === 'object' && v.t === 'word')) {
    const r = resolve(v);
    if (r && !r.ok) return r.refusal;
    if (r?.ok) {
      if (f.form.kind !== 'object') return badSpell('badValue', `${f.name}: a card where the form wants ${blank(f.form)}`, hint);
      return scalar(f, r.id, hint);
    }
  }
  switch (v.t) {
    case 'natural':
      return scalar(f, f.form.kind === 'natural' ? v.text : v.text, hint);
    case 'word':
    case 'text':
      return scalar(f, v.text, hint);
    case 'made':
      return badSpell('notMade', `{made ${v.n}} names nothing made before it`, hint);
    case 'record':
    case 'list':
      return badSpell('badValue', `${f.name}: a ${v.t} where the form wants ${blank(f.form)}`, hint);
  }
}

/** Items of a parsed spell → the typed record, per the method's form. Unnamed values fill the
 * fields not named, in form order. */
export function fromSpell(form: FormField[], items: SpellItem[], hint: string, resolve: ObjectResolver): Converted {
  const byName = formByName(form);
  const given = new Map<string, TypedData>();
  const named = new Set<string>();
  for (const item of items) {
    if (item.name === undefined) continue;
    if (!byName.has(item.name)) return { ok: false, refusal: unknownField(item.name, form, hint) };
    if (named.has(item.name)) return { ok: false, refusal: badSpell('duplicateField', `${item.name} is given twice (column ${item.at})`, hint) };
    named.add(item.name);
  }
  const open = form.filter((f) => !named.has(f.name));
  let next = 0;
  for (const item of items) {
    let f: FormField | undefined;
    if (item.name !== undefined) f = byName.get(item.name);
    else {
      f = open[next++];
      if (!f) {
        return {
          ok: false,
          refusal: badSpell(
            'unknownField',
            `the value at column ${item.at} fills no field: ${form.length ? `it takes ${form.map((x) => x.name).join(', ')}` : 'it takes no fields'}`,
            hint,
          ),
        };
      }
    }
    if (!f) continue;
    if (f.optional && item.value.t === 'text' && item.value.text === '') continue;
    const v = spellScalar(f, item.value, hint, resolve);
    if (isRefusal(v)) return { ok: false, refusal: v };
    given.set(f.name, v);
  }
  return complete(form, given, hint);
}

/** A spell value as typed data, for a method with no form (its argument is inferred). */
export function inferTyped(v: SpellValue, resolve: ObjectResolver): TypedData | Refusal {
  switch (v.t) {
    case 'natural':
      return natural(BigInt(v.text));
    case 'text':
      return label(v.text);
    case 'word':
      if (v.text === 'true' || v.text === 'false') return bool(v.text === 'true');
      return label(v.text);
    case 'made': {
      const r = resolve(v);
      if (!r) return badSpell('notMade', `{made ${v.n}} names nothing made before it`);
      return r.ok ? label(r.id) : r.refusal;
    }
    case 'list': {
      const items: TypedData[] = [];
      for (const item of v.items) {
        const t = inferTyped(item, resolve);
        if (isRefusal(t)) return t;
        items.push(t);
      }
      return { tag: 'list', items };
    }
    case 'record': {
      const fields: { name: string; value: TypedData }[] = [];
      for (const f of v.fields) {
        const t = inferTyped(f.value, resolve);
        if (isRefusal(t)) return t;
        fields.push({ name: f.name, value: t });
      }
      return { tag: 'record', fields };
    }
  }
}

/** Named spell items as a record argument, for a method with no form. */
export function inferArgument(items: SpellItem[], signature: string, resolve: ObjectResolver): Converted {
  const fields: { name: string; value: TypedData }[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (item.name === undefined)
      return { ok: false, refusal: typeMismatch(`the value at column ${item.at} has no name; this method has no form, so name each argument`, signature) };
    if (seen.has(item.name)) return { ok: false, refusal: badSpell('duplicateField', `${item.name} is given twice (column ${item.at})`) };
    seen.add(item.name);
    const t = inferTyped(item.value, resolve);
    if (isRefusal(t)) return { ok: false, refusal: t };
    fields.push({ name: item.name, value: t });
  }
  return { ok: true, args: { tag: 'record', fields } };
}

/** A typed argument against a form: a record naming exactly the form's fields, each in bounds. */
export function checkArgument(form: FormField[], argument: TypedData, hint: string): Converted {
  if (argument.tag !== 'record') return { ok: false, refusal: typeMismatch(`the argument is a ${argument.tag}; the method takes a record`, hint) };
  const byName = formByName(form);
  const given = new Map<string, TypedData>();
  for (const { name, value } of argument.fields) {
    const f = byName.get(name);
    if (!f) return { ok: false, refusal: typeMismatch(`the argument has a field ${JSON.stringify(name.slice(0, 64))} the method does not take`, hint) };
    if (given.has(name)) return { ok: false, refusal: badSpell('duplicateField', `${name} is given twice`, hint) };
    const raw = typedScalar(f.form, value);
    if (raw === undefined) return { ok: false, refusal: typeMismatch(`${name} is a ${value.tag}; the form wants ${blank(f.form)}`, hint) };
    const v = scalar(f, raw, hint);
    if (isRefusal(v)) return { ok: false, refusal: v };
    given.set(name, v);
  }
  return complete(form, given, hint);
}

function typedScalar(form: FieldForm, value: TypedData): string | number | boolean | undefined {
  switch (form.kind) {
    case 'natural':
      return value.tag === 'natural' ? value.value : undefined;
    case 'text':
    case 'object':
      return value.tag === 'label' ? value.value : undefined;
    case 'oneOf':
      return value.tag === 'variant' ? value.label : value.tag === 'label' ? value.value : undefined;
    case 'boolean':
      return value.tag === 'boolean' ? value.value : undefined;
  }
}

/**
 * Records and tags built with braces: a record literal (`{ a: 1 }`), a named record or a tag
 * with fields (`Lamp { … }`, `Mood.cross { … }`), and an update (`self { fuel: 0 }`).
 */
import type { Expr, FieldInit } from '../ast.js';
import type { Span } from '../diagnostics.js';
import type { E } from '../ir.js';
import { ERR, recordTy, show, widen, type FieldTy, type RecordTy, type Ty } from '../types.js';
import { expect, expr } from './expressions.js';
import { type FnCtx, lookupLocal } from './locals.js';
import { ctorRef, typeRef } from './names.js';
import { type ModuleScope, report } from './scope.js';
import { suggest } from './suggest.js';

/** `{ a: 1, b: "x" }`: the record type `want` when its fields are exactly these, else a new one. */
export function anonRecord(m: ModuleScope, e: Extract<Expr, { k: 'anon' }>, f: FnCtx, want?: Ty): [E, Ty] {
  if (want && want.k === 'record') {
    const names = new Set(e.fields.map((x) => x.name));
    if (names.size === want.fields.length && want.fields.every((x) => names.has(x.name))) return construct(m, want, e.fields, e.span, f, show(want));
  }
  const seen = new Set<string>();
  const fields: FieldTy[] = [];
  const values: E[] = [];
  for (const fi of e.fields) {
    if (seen.has(fi.name)) {
      report(m, 'type', fi.span, `the field ${fi.name} is given twice`, undefined, f);
      continue;
    }
    seen.add(fi.name);
    const [v, vt] = expr(m, fi.value, f);
    fields.push({ name: fi.name, ty: widen(vt) });
    values.push(v);
  }
  const rt = recordTy(fields);
  const items: E[] = rt.order.map((o) => values[fields.indexOf(o)]!);
  return [{ k: 'record', items }, rt];
}

export function withExpr(m: ModuleScope, e: Extract<Expr, { k: 'with' }>, f: FnCtx): [E, Ty] {
  const t = typeRef(m, e.target, f);
  if (t) {
    if (t.k === 'record') return construct(m, t, e.fields, e.span, f, show(t));
    if (t.k === 'variant') {
      report(m, 'type', e.target.span, `${t.name} is a variant; build one of its tags`, `${t.name}.${t.ctors[0]?.name ?? 'tag'} { … }`, f);
      return [{ k: 'const', v: 0 }, ERR];
    }
  }
  const c = ctorRef(m, e.target, f);
  if (c) {
    if (c.tag < 0) return [{ k: 'const', v: 0 }, ERR];
    const ctor = c.v.ctors[c.tag]!;
    const [r] = construct(
      m,
      { k: 'record', name: ctor.name, fields: ctor.fields, slot: ctor.slot, order: ctor.order },
      e.fields,
      e.span,
      f,
      `${c.v.name}.${ctor.name}`,
    );
    const fields = r.k === 'record' ? r.items : [];
    return [{ k: 'ctor', tag: c.tag, fields: ctor.fields.length ? fields : null }, c.v];
  }
  if (e.target.k === 'name' && !lookupLocal(e.target.name, f) && /^[A-Z]/.test(e.target.name)) {
    const known = [...m.types.keys(), ...[...m.uses.values()].flatMap((u) => [...u.types.keys()])];
    const sug = suggest(e.target.name, known);
    report(m, 'resolve', e.target.span, `unknown type ${e.target.name}`, sug ? `did you mean ${sug}?` : 'declare it with type', f);
    e.fields.forEach((x) => expr(m, x.value, f));
    return [{ k: 'const', v: 0 }, ERR];
  }
  // An update: a copy of a record with some fields changed.
  const [o, ot] = expr(m, e.target, f);
  if (ot.k === 'err') {
    e.fields.forEach((x) => expr(m, x.value, f));
    return [o, ERR];
  }
  if (ot.k !== 'record') {
    report(m, 'type', e.target.span, `only a record can be updated with { … }, not ${show(ot)}`, undefined, f);
    e.fields.forEach((x) => expr(m, x.value, f));
    return [o, ERR];
  }
  const sets: [number, E][] = [];
  const seen = new Set<string>();
  for (const fi of e.fields) {
    const s = ot.slot.get(fi.name);
    if (s === undefined) {
      const sug = suggest(
        fi.name,
        ot.fields.map((x) => x.name),
      );
      report(
        m,
        'type',
        fi.span,
        `${show(ot)} has no field ${fi.name}`,
        sug ? `did you mean ${sug}?` : `its fields: ${ot.fields.map((x) => x.name).join(', ')}`,
        f,
      );
      expr(m, fi.value, f);
      continue;
    }
    if (seen.has(fi.name)) report(m, 'type', fi.span, `the field ${fi.name} is given twice`, undefined, f);
    seen.add(fi.name);
    const [v] = expect(m, fi.value, ot.order[s]!.ty, f, `the field ${fi.name}`);
    sets.push([s, v]);
  }
  return [{ k: 'update', obj: o, sets }, ot];
}

/** Every field of `t` given once, each of its type; `label` names the type in messages. */
function construct(m: ModuleScope, t: RecordTy, fields: FieldInit[], span: Span, f: FnCtx, label: string): [E, Ty] {
  const items: (E | undefined)[] = new Array(t.order.length).fill(undefined);
  for (const fi of fields) {
    const s = t.slot.get(fi.name);
    if (s === undefined) {
      const sug = suggest(
        fi.name,
        t.fields.map((x) => x.name),
      );
      report(
        m,
        'type',
        fi.span,
        `${label} has no field ${fi.name}`,
        sug ? `did you mean ${sug}?` : `its fields: ${t.fields.map((x) => x.name).join(', ') || 'none'}`,
        f,
      );
      expr(m, fi.value, f);
      continue;
    }
    if (items[s]) report(m, 'type', fi.span, `the field ${fi.name} is given twice`, undefined, f);
    items[s] = expect(m, fi.value, t.order[s]!.ty, f, `the field ${fi.name}`)[0];
  }
  const missing = t.order.filter((_, i) => !items[i]).map((x) => x.name);
  if (missing.length) {
    report(m, 'type', span, `${label} is missing ${missing.join(', ')}`, `${label} { ${t.fields.map((x) => `${x.name}: …`).join(', ')} }`, f);
  }
  return [{ k: 'record', items: items.map((x) => x ?? { k: 'const', v: 0 }) }, t];
}

/**
 * Expressions to the checked tree, each with its type. `want` is the type the place needs,
 * when known: literals take their type from it (an empty list, a bare tag, a record literal).
 * Names, calls, records and operators have modules of their own beside this one.
 */
import type { Expr } from '../ast.js';
import type { E } from '../ir.js';
import { emptyMap } from '../pmap.js';
import { BOOL, ERR, NAT, TEXT, compat, isBool, isNat, listOf, show, showFull, widen, type Ty, type VariantTy } from '../types.js';
import { call } from './calls.js';
import { type FnCtx, isCtxName, lookupLocal } from './locals.js';
import { bareCtor, ctorRef, name } from './names.js';
import { binary } from './operators.js';
import { anonRecord, withExpr } from './records.js';
import { type ModuleScope, report } from './scope.js';
import { suggest } from './suggest.js';

/** Checks `e` where type `want` is needed (literals take their type from it). */
export function expect(m: ModuleScope, e: Expr, want: Ty, f: FnCtx, what: string): [E, Ty] {
  const [ir, t] = expr(m, e, f, want);
  if (!compat(want, t)) {
    report(m, 'type', e.span, `${what} wants ${show(want)}, but this is ${show(t)}`, hintFor(want), f);
    return [ir, ERR];
  }
  return [ir, t];
}

export function expr(m: ModuleScope, e: Expr, f: FnCtx, want?: Ty): [E, Ty] {
  switch (e.k) {
    case 'nat':
      return [{ k: 'const', v: e.value }, NAT];
    case 'bool':
      return [{ k: 'const', v: e.value }, BOOL];
    case 'text': {
      const parts: (string | { e: E; ty: Ty })[] = [];
      for (const p of e.parts) {
        if (typeof p === 'string') parts.push(p);
        else {
          const [pe, pt] = expr(m, p, f);
          parts.push({ e: pe, ty: pt });
        }
      }
      if (parts.every((p) => typeof p === 'string')) return [{ k: 'const', v: parts.join('') }, TEXT];
      return [{ k: 'text', parts }, TEXT];
    }
    case 'name':
      return name(m, e, f, want);
    case 'field':
      return field(m, e, f);
    case 'index': {
      const [o, ot] = expr(m, e.obj, f);
      const [i, it] = expr(m, e.index, f);
      if (!isNat(it)) report(m, 'type', e.index.span, `a list is indexed by a natural, not ${show(it)}`, undefined, f);
      if (ot.k === 'err') return [o, ERR];
      if (ot.k !== 'list') {
        report(m, 'type', e.obj.span, `only a list can be indexed, not ${show(ot)}`, ot.k === 'text' ? 'slice(text, i, i + 1)' : undefined, f);
        return [o, ERR];
      }
      return [{ k: 'index', obj: o, idx: i }, ot.of];
    }
    case 'call':
      return call(m, e, f);
    case 'with':
      return withExpr(m, e, f);
    case 'anon':
      // `{}` where a map is wanted is the empty map
      if (want?.k === 'map' && e.fields.length === 0) return [{ k: 'const', v: emptyMap }, want];
      return anonRecord(m, e, f, want);
    case 'list': {
      const wantItem = want && want.k === 'list' ? want.of : undefined;
      if (!e.items.length) {
        if (!wantItem) {
          report(m, 'type', e.span, 'an empty list needs to be told what it will hold', 'let items: List Natural = []', f);
          return [{ k: 'list', items: [] }, listOf(ERR)];
        }
        return [{ k: 'list', items: [] }, listOf(wantItem)];
      }
      let itemTy: Ty | undefined = wantItem;
      const items: E[] = [];
      for (const it of e.items) {
        if (itemTy) {
          const [v] = expect(m, it, itemTy, f, 'this list');
          items.push(v);
        } else {
          const [v, vt] = expr(m, it, f);
          itemTy = widen(vt);
          items.push(v);
        }
      }
      return [{ k: 'list', items }, listOf(itemTy!)];
    }
    case 'not': {
      const [x, xt] = expr(m, e.e, f);
      if (!isBool(xt)) report(m, 'type', e.e.span, `not takes a Boolean, not ${show(xt)}`, undefined, f);
      return [{ k: 'not', e: x }, BOOL];
    }
    case 'bin':
      return binary(m, e, f);
  }
}

/** `a.b`: a tag (`Mood.calm`), something of a used module (`core.x`), or a record's field. */
function field(m: ModuleScope, e: Extract<Expr, { k: 'field' }>, f: FnCtx): [E, Ty] {
  const c = ctorRef(m, e, f);
  if (c) return bareCtor(m, c, e.span, f);
  if (e.obj.k === 'name' && !lookupLocal(e.obj.name, f) && m.uses.has(e.obj.name) && !isCtxName(e.obj.name)) {
    const u = m.uses.get(e.obj.name)!;
    if (u.fns.has(e.name)) report(m, 'type', e.span, `${e.obj.name}.${e.name} is a def; call it: ${e.obj.name}.${e.name}(…)`, undefined, f);
    else if (u.types.has(e.name)) report(m, 'type', e.span, `${e.obj.name}.${e.name} is a type; make one with ${e.obj.name}.${e.name} { … }`, undefined, f);
    else report(m, 'resolve', e.nameSpan, `the module ${e.obj.name} has no ${e.name}`, undefined, f);
    return [{ k: 'const', v: 0 }, ERR];
  }
  const [o, ot] = expr(m, e.obj, f);
  if (ot.k === 'err') return [o, ERR];
  if (ot.k !== 'record') {
    const hint = ot.k === 'list' && e.name === 'length' ? 'length(list)' : ot.k === 'variant' ? variantFieldHint(ot, e.name) : undefined;
    report(m, 'type', e.nameSpan, `${show(ot)} has no field ${e.name}`, hint, f);
    return [o, ERR];
  }
  const s = ot.slot.get(e.name);
  if (s === undefined) {
    const sug = suggest(
      e.name,
      ot.fields.map((x) => x.name),
    );
    report(
      m,
      'type',
      e.nameSpan,
      `${show(ot)} has no field ${e.name}`,
      sug ? `did you mean ${sug}?` : `its fields: ${ot.fields.map((x) => x.name).join(', ') || 'none'}`,
      f,
    );
    return [o, ERR];
  }
  return [{ k: 'field', obj: o, slot: s }, ot.order[s]!.ty];
}

/** `s.w` on a variant: match the tags that carry `w` (not merely the first tag). */
function variantFieldHint(t: VariantTy, name: string): string {
  const carriers = t.ctors.filter((c) => c.fields.some((x) => x.name === name));
  if (!carriers.length) return `no tag of ${t.name} carries a field ${name}; its tags: ${t.ctors.map((c) => c.name).join(', ')}`;
  return `match it first: match …:\n${carriers.map((c) => `  case ${c.name} { ${name} }:`).join('\n')}`;
}

/** How to write a value of type `t`, for the hint of a mismatch. */
function hintFor(t: Ty): string | undefined {
  switch (t.k) {
    case 'nat':
      return 'a natural, like 3';
    case 'text':
      return 'text in double quotes, like "hello"';
    case 'bool':
      return 'true or false';
    case 'list':
      return `a list, like [] or [a, b]`;
    case 'record':
      return t.name ? `${t.name} { ${t.fields.map((f) => `${f.name}: …`).join(', ')} }` : showFull(t);
    case 'variant':
      return `one of its tags: ${t.ctors.map((c) => c.name).join(', ')}`;
    default:
      return undefined;
  }
}

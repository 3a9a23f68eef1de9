/**
 * What a name in an expression refers to: a local, the turn's context (in spells and clauses),
 * or a tag (`calm`, `Mood.calm`); a type, function or module named where a value is wanted is
 * reported as such. `typeRef` and `ctorRef` answer whether an expression names a type or a tag.
 */
import type { Expr } from '../ast.js';
import { builtins } from '../builtins.js';
import type { Span } from '../diagnostics.js';
import type { E } from '../ir.js';
import { ERR, type Ty, type VariantTy } from '../types.js';
import { Tagged } from '../values.js';
import { type FnCtx, ctxTypes, isCtxName, isReservedCtxName, lookupLocal } from './locals.js';
import { type ModuleScope, report } from './scope.js';
import { suggest } from './suggest.js';

/** A tag of a variant type; `tag` is -1 when the tag was named wrongly (already reported). */
export interface CtorRef {
  v: VariantTy;
  tag: number;
}

export function name(m: ModuleScope, e: Extract<Expr, { k: 'name' }>, f: FnCtx, want?: Ty): [E, Ty] {
  const local = lookupLocal(e.name, f);
  if (local) return [{ k: 'local', slot: local.slot }, local.ty];
  if (isCtxName(e.name) && (isReservedCtxName(e.name) || !(m.fns.has(e.name) || m.types.has(e.name)))) {
    if (f.kind === 'spell' || f.kind === 'clause') return [{ k: 'ctx', name: e.name }, ctxTypes[e.name]];
    report(
      m,
      'resolve',
      e.span,
      `${e.name} is known in spells, law, wants and rules, not in a ${f.kind}`,
      f.kind === 'def' ? `a def is pure: pass ${e.name} in as a parameter` : f.kind === 'view' ? 'a view knows only the state and its viewer' : undefined,
      f,
    );
    return [{ k: 'const', v: 0 }, ERR];
  }
  const c = ctorRef(m, e, f, want);
  if (c) return bareCtor(m, c, e.span, f);
  if (m.types.has(e.name) || typeRef(m, e, f)) {
    report(m, 'type', e.span, `${e.name} is a type, not a value`, `make one: ${e.name} { … }`, f);
    return [{ k: 'const', v: 0 }, ERR];
  }
  if (m.fns.has(e.name) || builtins.has(e.name)) {
    report(m, 'type', e.span, `${e.name} is a function; call it: ${e.name}(…)`, undefined, f);
    return [{ k: 'const', v: 0 }, ERR];
  }
  if (m.uses.has(e.name)) {
    report(m, 'type', e.span, `${e.name} is a module; name something in it: ${e.name}.…`, undefined, f);
    return [{ k: 'const', v: 0 }, ERR];
  }
  const known: string[] = [];
  for (const s of f.scopes) known.push(...s.keys());
  if (f.kind === 'spell' || f.kind === 'clause') known.push('caller', 'owner', 'now', 'this', 'place');
  const sug = suggest(e.name, known);
  const hint = sug
    ? `did you mean ${sug}?`
    : e.name === 'self'
      ? `self is the first parameter of a spell or view; in ${f.kind === 'def' ? 'a def, pass the state in' : 'here it is not declared'}`
      : undefined;
  report(m, 'resolve', e.span, `unknown name ${e.name}`, hint, f);
  return [{ k: 'const', v: 0 }, ERR];
}

/** A tag used as a value: only a tag without fields stands alone. */
export function bareCtor(m: ModuleScope, c: CtorRef, span: Span, f: FnCtx): [E, Ty] {
  if (c.tag < 0) return [{ k: 'const', v: 0 }, ERR];
  const ctor = c.v.ctors[c.tag]!;
  if (ctor.fields.length) {
    report(m, 'type', span, `the tag ${ctor.name} carries fields: give them`, `${ctor.name} { ${ctor.fields.map((x) => `${x.name}: …`).join(', ')} }`, f);
    return [{ k: 'const', v: 0 }, c.v];
  }
  return [{ k: 'const', v: new Tagged(c.tag, null) }, c.v];
}

/** Does the expression name a type (`Lamp`, `core.Pair`)? */
export function typeRef(m: ModuleScope, e: Expr, f: FnCtx): Ty | undefined {
  if (e.k === 'name' && !lookupLocal(e.name, f) && /^[A-Z]/.test(e.name)) {
    const local = m.types.get(e.name);
    if (local) return local;
    const found = [...m.uses.values()].filter((u) => u.types.has(e.name));
    if (found.length === 1) return found[0]!.types.get(e.name);
    return undefined;
  }
  if (e.k === 'field' && e.obj.k === 'name' && !lookupLocal(e.obj.name, f) && m.uses.has(e.obj.name) && /^[A-Z]/.test(e.name)) {
    return m.uses.get(e.obj.name)!.types.get(e.name);
  }
  return undefined;
}

/** A bare tag name visible here: `calm` for `type Mood: calm | cross`. */
function ctorByName(m: ModuleScope, name: string): CtorRef[] {
  const out: CtorRef[] = [];
  const scan = (types: Map<string, Ty>): void => {
    for (const t of types.values()) if (t.k === 'variant' && t.tag.has(name)) out.push({ v: t, tag: t.tag.get(name)! });
  };
  scan(m.types);
  if (!out.length) for (const u of m.uses.values()) scan(u.types);
  return out;
}

/** Does the expression name a tag (`calm`, `Mood.calm`)? */
export function ctorRef(m: ModuleScope, e: Expr, f: FnCtx, want?: Ty): CtorRef | undefined {
  if (e.k === 'field') {
    const t = typeRef(m, e.obj, f);
    if (t && t.k === 'variant') {
      const tag = t.tag.get(e.name);
      if (tag === undefined) {
        report(m, 'type', e.nameSpan, `${t.name} has no tag ${e.name}; its tags are ${t.ctors.map((c) => c.name).join(', ')}`, undefined, f);
        return { v: t, tag: -1 };
      }
      return { v: t, tag };
    }
    return undefined;
  }
  if (e.k === 'name' && !lookupLocal(e.name, f) && !isCtxName(e.name) && !m.fns.has(e.name) && !m.types.has(e.name)) {
    if (want && want.k === 'variant' && want.tag.has(e.name)) return { v: want, tag: want.tag.get(e.name)! };
    const found = ctorByName(m, e.name);
    if (found.length === 1) return found[0];
    if (found.length > 1) {
      report(m, 'resolve', e.span, `${e.name} is a tag of ${found.map((x) => x.v.name).join(' and ')}; say which`, `${found[0]!.v.name}.${e.name}`, f);
      return { v: found[0]!.v, tag: -1 };
    }
  }
  return undefined;
}

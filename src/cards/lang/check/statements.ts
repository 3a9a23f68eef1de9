/**
 * Statements of a body to the checked tree: locals get their slots, effects (say, send, make,
 * result) are allowed in spells only, and assignments write into a local or a field path of it.
 */
import type { Expr, Stmt } from '../ast.js';
import type { Span } from '../diagnostics.js';
import type { E, MatchCase, S } from '../ir.js';
import { ERR, NAT, isBool, isNat, isTextLike, show, widen, type Ty } from '../types.js';
import { expect, expr } from './expressions.js';
import { type FnCtx, declareLocal, isCtxName, lookupLocal } from './locals.js';
import { type ModuleScope, report } from './scope.js';
import { suggest } from './suggest.js';
import { checkMakeKind, checkMakeSeed, checkSendToSelf } from './effects.js';
import { typeOf } from './type-expr.js';

export function block(m: ModuleScope, stmts: Stmt[], f: FnCtx): S[] {
  f.scopes.push(new Map());
  const out: S[] = [];
  for (const s of stmts) out.push(stmt(m, s, f));
  f.scopes.pop();
  return out;
}

function loopBody(m: ModuleScope, stmts: Stmt[], f: FnCtx): S[] {
  f.loops = (f.loops ?? 0) + 1;
  try {
    return block(m, stmts, f);
  } finally {
    f.loops--;
  }
}

function effect(m: ModuleScope, what: string, span: Span, f: FnCtx): boolean {
  if (f.kind === 'spell') return true;
  const where = f.kind === 'clause' ? 'a law clause, want or rule' : `a ${f.kind}`;
  report(
    m,
    'type',
    span,
    `${what} is an effect, and ${where} has none; only spells act`,
    f.kind === 'def' ? 'return the value and act on it in the spell' : undefined,
    f,
  );
  return false;
}

function stmt(m: ModuleScope, s: Stmt, f: FnCtx): S {
  switch (s.k) {
    case 'pass':
      return { k: 'pass' };
    case 'break':
    case 'continue':
      if (!f.loops) {
        report(m, 'type', s.span, `${s.k} belongs inside a loop (for or while)`, s.k === 'break' ? 'return …, to leave the function' : undefined, f);
        return { k: 'pass' };
      }
      return { k: s.k };
    case 'let': {
      let e: E;
      let ty: Ty;
      if (s.type) {
        ty = typeOf(m, s.type);
        [e] = expect(m, s.value, ty, f, `let ${s.name}`);
      } else {
        [e, ty] = expr(m, s.value, f);
        ty = widen(ty);
      }
      const slot = declareLocal(m, s.name, ty, s.span, f);
      return { k: 'set', slot, e };
    }
    case 'assign':
      return assign(m, s.target, s.value, f);
    case 'if': {
      const branches: [E, S[]][] = s.branches.map((b) => {
        const [c, ct] = expr(m, b.cond, f);
        if (!isBool(ct)) report(m, 'type', b.cond.span, `a condition is Boolean, not ${show(ct)}`, ct.k === 'nat' ? 'compare it: n > 0' : undefined, f);
        return [c, block(m, b.body, f)];
      });
      return { k: 'if', branches, otherwise: s.otherwise ? block(m, s.otherwise, f) : null };
    }
    case 'match':
      return match(m, s, f);
    case 'for': {
      if (s.list) {
        const [l, lt] = expr(m, s.list, f);
        let item: Ty = ERR;
        if (lt.k === 'list') item = lt.of;
        else if (lt.k !== 'err')
          report(m, 'type', s.list.span, `for … in goes over a list, not ${show(lt)}`, lt.k === 'nat' ? `for i in 0..${'n'}:` : undefined, f);
        f.scopes.push(new Map());
        const slot = declareLocal(m, s.name, item, s.span, f);
        const body = loopBody(m, s.body, f);
        f.scopes.pop();
        return { k: 'forList', slot, list: l, body };
      }
      const [from, ft] = expr(m, s.from!, f);
      const [to, tt] = expr(m, s.to!, f);
      if (!isNat(ft)) report(m, 'type', s.from!.span, `a range starts at a natural, not ${show(ft)}`, undefined, f);
      if (!isNat(tt)) report(m, 'type', s.to!.span, `a range ends at a natural, not ${show(tt)}`, undefined, f);
      f.scopes.push(new Map());
      const slot = declareLocal(m, s.name, NAT, s.span, f);
      const body = loopBody(m, s.body, f);
      f.scopes.pop();
      return { k: 'forRange', slot, from, to, body };
    }
    case 'while': {
      const [c, ct] = expr(m, s.cond, f);
      if (!isBool(ct)) report(m, 'type', s.cond.span, `a condition is Boolean, not ${show(ct)}`, undefined, f);
      return { k: 'while', cond: c, body: loopBody(m, s.body, f) };
    }
    case 'return': {
      if (f.kind === 'clause') {
        report(m, 'type', s.span, 'a clause has no return', undefined, f);
        return { k: 'pass' };
      }
      if (!s.value) {
        report(m, 'type', s.span, `return needs a value: ${f.name} returns ${show(f.ret)}`, f.kind === 'spell' ? 'return self' : 'return …', f);
        return { k: 'return', e: { k: 'const', v: 0 } };
      }
      const [e] = expect(m, s.value, f.ret, f, `${f.name} returns`);
      return { k: 'return', e };
    }
    case 'say': {
      effect(m, 'say', s.span, f);
      const [e, t] = expr(m, s.value, f);
      if (!isTextLike(t)) report(m, 'type', s.value.span, `say says text, not ${show(t)}`, `say "{…}"`, f);
      return { k: 'say', e };
    }
    case 'result': {
      effect(m, 'result', s.span, f);
      const [e, ty] = expr(m, s.value, f);
      return { k: 'result', e, ty };
    }
    case 'send': {
      effect(m, 'send', s.span, f);
      const [target, tt] = expr(m, s.target, f);
      if (!isTextLike(tt)) report(m, 'type', s.target.span, `a send goes to a card (an Object), not ${show(tt)}`, 'send to.receive { text: "…" }', f);
      const [arg, at] = expr(m, s.arg, f);
      if (at.k !== 'record' && at.k !== 'err') report(m, 'type', s.arg.span, `the argument of a send is a record, not ${show(at)}`, '{ field: value }', f);
      else if (s.target.k === 'name' && s.target.name === 'this' && !lookupLocal('this', f)) checkSendToSelf(m, s, at, f);
      return { k: 'send', target, method: s.method, arg, argTy: at };
    }
    case 'move': {
      effect(m, 'move', s.span, f);
      const [thing, tt] = expr(m, s.thing, f);
      if (!isTextLike(tt)) report(m, 'type', s.thing.span, `a move moves a card (an Object), not ${show(tt)}`, 'move thing to this', f);
      const [to, pt] = expr(m, s.to, f);
      if (!isTextLike(pt)) report(m, 'type', s.to.span, `a move puts a card in a place (an Object), not ${show(pt)}`, 'move thing to place', f);
      return { k: 'move', thing, to };
    }
    case 'make': {
      effect(m, 'make', s.span, f);
      const kind = checkMakeKind(m, s, f);
      if (!s.seed) return { k: 'make', kind: s.kind, seed: null, seedTy: null };
      const [seed, st] = expr(m, s.seed, f);
      if (st.k !== 'record' && st.k !== 'err') report(m, 'type', s.seed.span, `the seed of a make is a record, not ${show(st)}`, 'make note { text: "…" }', f);
      else if (kind?.state && st.k === 'record') checkMakeSeed(m, s, kind.state, st, f);
      return { k: 'make', kind: s.kind, seed, seedTy: st };
    }
    case 'refuse': {
      const [reading, rt] = expr(m, s.reading, f);
      if (!isTextLike(rt)) report(m, 'type', s.reading.span, `the reading of a refusal is text, not ${show(rt)}`, 'refuse "clause" "what went wrong"', f);
      const out: S = { k: 'refuse', clause: s.clause, reading };
      if (s.cls) out.cls = s.cls;
      return out;
    }
  }
}

function assign(m: ModuleScope, target: Expr, value: Expr, f: FnCtx): S {
  const path: { name: string; span: Span }[] = [];
  let base = target;
  while (base.k === 'field') {
    path.unshift({ name: base.name, span: base.nameSpan });
    base = base.obj;
  }
  if (base.k !== 'name') {
    report(m, 'type', target.span, 'only a name or a field of one can be assigned', 'name = value, or name.field = value', f);
    expr(m, value, f);
    return { k: 'pass' };
  }
  const local = lookupLocal(base.name, f);
  if (!local) {
    if (isCtxName(base.name)) report(m, 'type', base.span, `${base.name} is part of the turn and cannot be changed`, undefined, f);
    else report(m, 'resolve', base.span, `unknown name ${base.name}`, `declare it first: let ${base.name} = …`, f);
    expr(m, value, f);
    return { k: 'pass' };
  }
  if (f.kind === 'clause') report(m, 'type', target.span, 'a clause cannot change anything', undefined, f);
  let ty = local.ty;
  const slots: number[] = [];
  for (const p of path) {
    if (ty.k === 'err') break;
    if (ty.k !== 'record') {
      report(m, 'type', p.span, `${show(ty)} has no fields to assign`, undefined, f);
      ty = ERR;
      break;
    }
    const s = ty.slot.get(p.name);
    if (s === undefined) {
      const sug = suggest(
        p.name,
        ty.fields.map((x) => x.name),
      );
      report(
        m,
        'type',
        p.span,
        `${show(ty)} has no field ${p.name}`,
        sug ? `did you mean ${sug}?` : `its fields: ${ty.fields.map((x) => x.name).join(', ')}`,
        f,
      );
      ty = ERR;
      break;
    }
    slots.push(s);
    ty = ty.order[s]!.ty;
  }
  const [e] = expect(m, value, ty, f, path.length ? `${base.name}.${path.map((p) => p.name).join('.')}` : base.name);
  if (!path.length) return { k: 'set', slot: local.slot, e };
  return { k: 'setPath', slot: local.slot, path: slots, e };
}

function match(m: ModuleScope, s: Extract<Stmt, { k: 'match' }>, f: FnCtx): S {
  const [subject, st] = expr(m, s.subject, f);
  if (st.k !== 'variant') {
    if (st.k !== 'err') report(m, 'type', s.subject.span, `match takes a value of a variant type, not ${show(st)}`, 'use if … elif … for other values', f);
    for (const c of s.cases) block(m, c.body, f);
    return { k: 'pass' };
  }
  const cases: (MatchCase | undefined)[] = new Array(st.ctors.length).fill(undefined);
  let rest: S[] | null = null;
  s.cases.forEach((c, i) => {
    if (c.ctor === '_') {
      if (i !== s.cases.length - 1) report(m, 'type', c.span, 'case _ catches the rest and comes last', undefined, f);
      rest = block(m, c.body, f);
      return;
    }
    const tag = st.tag.get(c.ctor);
    if (tag === undefined) {
      const sug = suggest(c.ctor, st.tag.keys());
      report(m, 'type', c.span, `${st.name} has no tag ${c.ctor}; its tags are ${st.ctors.map((x) => x.name).join(', ')}`, sug ? `case ${sug}:` : undefined, f);
      block(m, c.body, f);
      return;
    }
    if (cases[tag]) report(m, 'type', c.span, `case ${c.ctor} is written twice`, undefined, f);
    const ctor = st.ctors[tag]!;
    f.scopes.push(new Map());
    const binds: [number, number][] = [];
    for (const b of c.binds) {
      const fs = ctor.slot.get(b.name);
      if (fs === undefined) {
        report(
          m,
          'type',
          b.span,
          `the tag ${c.ctor} has no field ${b.name}`,
          ctor.fields.length ? `its fields: ${ctor.fields.map((x) => x.name).join(', ')}` : `case ${c.ctor}:`,
          f,
        );
        continue;
      }
      binds.push([fs, declareLocal(m, b.name, ctor.order[fs]!.ty, b.span, f)]);
    }
    const body = block(m, c.body, f);
    f.scopes.pop();
    cases[tag] = { binds, body };
  });
  return { k: 'match', subject, variant: st, cases, rest };
}

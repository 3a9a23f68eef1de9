/** Calls: of a def or spell of this module, a def of a used module, or a built-in. */
import type { Expr } from '../ast.js';
import { type Builtin, builtins } from '../builtins.js';
import { type E, type FnSym, fnSignature } from '../ir.js';
import { ERR, type Ty } from '../types.js';
import { expect, expr } from './expressions.js';
import { type FnCtx, lookupLocal } from './locals.js';
import { typeRef } from './names.js';
import { type ModuleScope, report } from './scope.js';
import { suggest } from './suggest.js';

export function call(m: ModuleScope, e: Extract<Expr, { k: 'call' }>, f: FnCtx): [E, Ty] {
  let sym: FnSym | undefined;
  let label = '';
  if (e.fn.k === 'name' && !lookupLocal(e.fn.name, f)) {
    label = e.fn.name;
    sym = m.fns.get(e.fn.name);
    if (sym && sym.kind === 'spell' && builtins.has(label)) sym = undefined;
    if (!sym) {
      const b = builtins.get(e.fn.name);
      if (b) return callBuiltin(m, b, e, f);
      const found = [...m.uses.values()].filter((u) => u.fns.get(label)?.kind === 'def');
      if (found.length > 1) {
        report(m, 'resolve', e.fn.span, `${label} is a def of ${found.map((u) => u.name).join(' and ')}; say which`, `${found[0]!.name}.${label}(…)`, f);
        e.args.forEach((a) => expr(m, a, f));
        return [{ k: 'const', v: 0 }, ERR];
      }
      sym = found[0]?.fns.get(label);
    }
    if (!sym) {
      const known = [...m.fns.keys(), ...builtins.keys(), ...[...m.uses.values()].flatMap((u) => [...u.fns.keys()])];
      const sug = suggest(label, known);
      const t = typeRef(m, e.fn, f);
      report(
        m,
        'resolve',
        e.fn.span,
        t ? `${label} is a type; build one with braces` : `unknown function ${label}`,
        t ? `${label} { … }` : sug ? `did you mean ${sug}?` : undefined,
        f,
      );
      e.args.forEach((a) => expr(m, a, f));
      return [{ k: 'const', v: 0 }, ERR];
    }
  } else if (e.fn.k === 'field' && e.fn.obj.k === 'name' && !lookupLocal(e.fn.obj.name, f) && m.uses.has(e.fn.obj.name)) {
    const u = m.uses.get(e.fn.obj.name)!;
    label = `${e.fn.obj.name}.${e.fn.name}`;
    sym = u.fns.get(e.fn.name);
    if (sym?.kind !== 'def') {
      report(m, 'resolve', e.fn.nameSpan, `the module ${u.name} has no def ${e.fn.name}`, undefined, f);
      e.args.forEach((a) => expr(m, a, f));
      return [{ k: 'const', v: 0 }, ERR];
    }
  } else {
    report(
      m,
      'type',
      e.fn.span,
      'only defs and built-in functions can be called',
      e.fn.k === 'field' ? "a card's spell is cast with send: send card.spell { … }" : undefined,
      f,
    );
    e.args.forEach((a) => expr(m, a, f));
    return [{ k: 'const', v: 0 }, ERR];
  }
  if (sym.kind === 'spell' && f.kind !== 'spell') {
    report(m, 'type', e.fn.span, `${label} is a spell; only a spell can call another spell`, undefined, f);
  }
  if (e.args.length !== sym.params.length) {
    report(
      m,
      'type',
      e.span,
      `${label} takes ${sym.params.length} argument${sym.params.length === 1 ? '' : 's'}, but is given ${e.args.length}`,
      fnSignature(sym),
      f,
    );
    e.args.forEach((a) => expr(m, a, f));
    return [{ k: 'const', v: 0 }, sym.ret];
  }
  const args = e.args.map((a, i) => expect(m, a, sym!.params[i]!.ty, f, `the ${sym!.params[i]!.name} of ${label}`)[0]);
  return [{ k: 'call', fn: sym, args }, sym.ret];
}

function callBuiltin(m: ModuleScope, b: Builtin, e: Extract<Expr, { k: 'call' }>, f: FnCtx): [E, Ty] {
  // the arguments after a map take their types from it: put(rows, "k", []) knows the list's items
  const checked: [E, Ty][] = [];
  for (let i = 0; i < e.args.length; i++) {
    const first = checked[0]?.[1];
    const want = first?.k === 'map' && b.mapArgs ? (i === 1 ? first.key : i === 2 ? first.of : undefined) : undefined;
    checked.push(expr(m, e.args[i]!, f, want));
  }
  if (e.args.length !== b.arity) {
    report(m, 'type', e.span, `${b.name} takes ${b.arity} argument${b.arity === 1 ? '' : 's'}, but is given ${e.args.length}`, b.sig, f);
    return [{ k: 'const', v: 0 }, ERR];
  }
  let tys = checked.map((c) => c[1]);
  let args = checked.map((c) => c[0]);
  // An empty list argument takes its type from the list beside it: append(xs, …), contains([], x)
  if (b.arity >= 2 && e.args[1]!.k === 'list' && (e.args[1] as { items: Expr[] }).items.length === 0 && tys[0]!.k === 'list') {
    tys = [tys[0]!, tys[0]!, ...tys.slice(2)];
    args = [args[0]!, { k: 'list', items: [] }, ...args.slice(2)];
  }
  const r = b.type(tys);
  if ('arg' in r) {
    report(m, 'type', e.args[r.arg]?.span ?? e.span, r.message, b.sig, f);
    return [{ k: 'const', v: 0 }, ERR];
  }
  return [{ k: 'builtin', b, args, tys }, r];
}

/**
 * Phase 3, functions: every def, spell and view is declared with its signature before any
 * body is checked, so bodies may call functions written below them (and themselves).
 */
import type { Decl } from '../ast.js';
import { builtins, shadowable } from '../builtins.js';
import type { FnSym } from '../ir.js';
import { ERR, type Ty } from '../types.js';
import { isReservedCtxName } from './locals.js';
import { type ModuleScope, report } from './scope.js';
import { typeOf } from './type-expr.js';

export function declareFns(m: ModuleScope, decls: Decl[]): void {
  for (const d of decls) {
    if (d.k !== 'fn') continue;
    const prior = m.fns.get(d.name);
    if (prior) {
      report(m, 'resolve', d.nameSpan, `${d.name} is defined twice (first at line ${prior.span.line})`, 'give one of them another name');
      continue;
    }
    // A spell may share a built-in's name (board's `remove`): it is cast, and in code the
    // built-in keeps the name.
    if (builtins.has(d.name) && d.kind !== 'spell' && !shadowable.has(d.name)) {
      report(
        m,
        'resolve',
        d.nameSpan,
        `${d.name} is a built-in function and cannot be defined again`,
        `choose another name, like my${d.name[0]!.toUpperCase()}${d.name.slice(1)}`,
      );
      continue;
    }
    if (isReservedCtxName(d.name) || d.name === 'self' || d.name === 'before') {
      report(m, 'resolve', d.nameSpan, `${d.name} names the turn's context and cannot be defined`, 'choose another name');
      continue;
    }
    const seen = new Set<string>();
    const params = d.params.map((p) => {
      if (seen.has(p.name)) report(m, 'resolve', p.span, `the parameter ${p.name} is named twice`, 'give each parameter its own name');
      seen.add(p.name);
      if (isReservedCtxName(p.name)) report(m, 'resolve', p.span, `${p.name} names the turn's context and cannot be a parameter`, 'choose another name');
      return { name: p.name, ty: typeOf(m, p.type) };
    });
    let ret: Ty = ERR;
    if (d.ret) ret = typeOf(m, d.ret);
    else
      report(
        m,
        'type',
        d.nameSpan,
        `${d.kind} ${d.name} does not say what it returns`,
        `${d.kind} ${d.name}(…) -> ${d.kind === 'view' ? 'Text' : d.kind === 'spell' ? 'State' : 'Type'}:`,
      );
    const sym: FnSym = { name: d.name, module: m.ast.name, kind: d.kind, params, ret, span: d.nameSpan };
    m.fns.set(d.name, sym);
    if (d.kind === 'spell') m.spells.push(sym);
    if (d.kind === 'view') m.views.push(sym);
  }
}

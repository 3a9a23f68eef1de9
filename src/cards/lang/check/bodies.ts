/**
 * Phase 6, bodies: each function's statements are checked (statements.ts, expressions.ts) into
 * the checked tree, and every path must end in a return.
 */
import type { Decl, Stmt } from '../ast.js';
import type { Span } from '../diagnostics.js';
import type { FnSym, S } from '../ir.js';
import { show } from '../types.js';
import type { FnCtx } from './locals.js';
import { type ModuleScope, report } from './scope.js';
import { block } from './statements.js';

export function checkBodies(m: ModuleScope, decls: Decl[]): void {
  for (const d of decls) {
    if (d.k !== 'fn') continue;
    const sym = m.fns.get(d.name);
    // Only the declarations phase 3 kept: one it refused has no symbol of its own to fill.
    if (!sym || sym.span !== d.nameSpan) continue;
    fnBody(m, sym, d.body, d.nameSpan);
  }
}

function fnBody(m: ModuleScope, sym: FnSym, body: Stmt[], at: Span): void {
  const f: FnCtx = { kind: sym.kind, name: sym.name, ret: sym.ret, scopes: [new Map()], slots: 0 };
  sym.params.forEach((p) => {
    f.scopes[0]!.set(p.name, { slot: f.slots++, ty: p.ty });
  });
  const ir = block(m, body, f);
  if (!ends(ir)) {
    const what = sym.kind === 'spell' ? 'the new state' : sym.kind === 'view' ? 'its text' : show(sym.ret);
    report(
      m,
      'type',
      at,
      `${sym.kind} ${sym.name} can reach its end without returning ${what}`,
      sym.kind === 'spell' ? `end it with: return ${sym.params[0]?.name ?? 'self'}` : `end every path with: return …`,
    );
  }
  sym.body = ir;
  sym.slots = f.slots;
}

/** Does running these statements always end in return or refuse? */
export function ends(ss: S[]): boolean {
  for (const s of ss) {
    if (s.k === 'return' || s.k === 'refuse') return true;
    if (s.k === 'if' && s.otherwise && s.branches.every(([, b]) => ends(b)) && ends(s.otherwise)) return true;
    if (s.k === 'match') {
      const all = s.cases.every((c) => c !== undefined);
      if ((s.rest || all) && s.cases.every((c) => !c || ends(c.body)) && (!s.rest || ends(s.rest))) return true;
    }
    if (s.k === 'while' && s.cond.k === 'const' && s.cond.v === true && !breaks(s.body)) return true;
  }
  return false;
}

/** Does a loop body break out of its own loop (not out of a loop inside it)? */
function breaks(ss: S[]): boolean {
  for (const s of ss) {
    if (s.k === 'break') return true;
    if (s.k === 'if' && (s.branches.some(([, b]) => breaks(b)) || (s.otherwise && breaks(s.otherwise)))) return true;
    if (s.k === 'match' && (s.cases.some((c) => c && breaks(c.body)) || (s.rest && breaks(s.rest)))) return true;
  }
  return false;
}

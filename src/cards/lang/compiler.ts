/**
 * The checked tree to JS closures, once per pinned package. A statement's closure charges its
 * own cost in ticks (one per node it is written with) before it runs, so metering costs one
 * subtraction per statement, not one per node. compiler/ holds the three jobs: expressions
 * and statements to closures, and what code costs (ticks per statement, weight per call).
 */
import type { CheckedClause, FnSym } from './ir.js';
import { callWeight } from './compiler/cost.js';
import { type Ev, compileExpr, evaluation } from './compiler/expressions.js';
import { compileBlock } from './compiler/statements.js';

/** Compiles a function's body into `exec` (once). */
export function compileFn(fn: FnSym): void {
  if (fn.exec || !fn.body) return;
  const body = compileBlock(fn.body);
  fn.weight = callWeight(fn);
  const name = fn.name;
  fn.exec = (env, rt) => {
    const r = body(env, rt);
    if (r === undefined) evaluation(`${name} ended without returning`);
    return r;
  };
}

/** A law clause, want or rule as a function of (self, before). */
export function compileClause(c: CheckedClause): { pred: Ev; say?: Ev; slots: number } {
  const out: { pred: Ev; say?: Ev; slots: number } = { pred: compileExpr(c.pred), slots: c.slots };
  if (c.say) out.say = compileExpr(c.say);
  return out;
}

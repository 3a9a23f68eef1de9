/**
 * Phase 7, law, wants and rules: each clause is a predicate over the state after the turn
 * (`self`) and before it (`before`); a rule also says text when it fires. Law clauses written
 * in the module and in the law text given beside the package share one namespace.
 */
import type { Stage } from '../../program.js';
import type { Clause, Decl, Expr } from '../ast.js';
import type { Span } from '../diagnostics.js';
import type { CheckedClause } from '../ir.js';
import { ERR, isBool, isTextLike, show, type Ty } from '../types.js';
import { expr } from './expressions.js';
import type { FnCtx } from './locals.js';
import { type ModuleScope, report } from './scope.js';

/** The law, want and rule declarations of a module, by kind. */
export interface ClauseDecls {
  law: Extract<Decl, { k: 'law' }>[];
  wants: Extract<Decl, { k: 'want' }>[];
  rules: Extract<Decl, { k: 'rule' }>[];
}

export function clauseDecls(decls: Decl[]): ClauseDecls {
  return {
    law: decls.filter((d): d is Extract<Decl, { k: 'law' }> => d.k === 'law'),
    wants: decls.filter((d): d is Extract<Decl, { k: 'want' }> => d.k === 'want'),
    rules: decls.filter((d): d is Extract<Decl, { k: 'rule' }> => d.k === 'rule'),
  };
}

export function checkClauses(
  m: ModuleScope,
  written: ClauseDecls,
  extraLaw: Clause[],
  state: Ty,
): { law: CheckedClause[]; wants: CheckedClause[]; rules: CheckedClause[] } {
  const law: CheckedClause[] = [];
  const wants: CheckedClause[] = [];
  const rules: CheckedClause[] = [];
  const clauseNames = new Map<string, Span>();
  const clauseName = (n: string, span: Span, what: string, stage: Stage): void => {
    const first = clauseNames.get(`${what}:${n}`);
    if (first)
      report(m, stage === 'law' ? 'law' : 'resolve', span, `the ${what} ${n} is written twice (first at line ${first.line})`, 'give each its own name');
    clauseNames.set(`${what}:${n}`, span);
  };
  for (const d of written.law) {
    for (const c of d.clauses) {
      clauseName(c.name, c.span, 'law clause', 'law');
      const cc = clause(m, c, state, 'law');
      if (cc) law.push(cc);
    }
  }
  m.lawText = true;
  for (const c of extraLaw) {
    clauseName(c.name, c.span, 'law clause', 'law');
    const cc = clause(m, c, state, 'law');
    if (cc) law.push(cc);
  }
  m.lawText = false;
  for (const d of written.wants) {
    clauseName(d.clause.name, d.clause.span, 'want', 'type');
    const cc = clause(m, d.clause, state, 'type');
    if (cc) wants.push(cc);
  }
  for (const d of written.rules) {
    clauseName(d.name, d.span, 'rule', 'type');
    const cc = clause(m, { name: d.name, pred: d.cond, reading: '', text: d.text, span: d.span }, state, 'type', d.say);
    if (cc) rules.push(cc);
  }
  return { law, wants, rules };
}

/** One clause: slot 0 holds `self`, slot 1 `before`. */
function clause(m: ModuleScope, c: Clause, state: Ty, stage: Stage, say?: Expr): CheckedClause | undefined {
  const f: FnCtx = { kind: 'clause', name: c.name, ret: ERR, scopes: [new Map()], slots: 2 };
  if (stage === 'law') f.stage = 'law';
  f.scopes[0]!.set('self', { slot: 0, ty: state });
  f.scopes[0]!.set('before', { slot: 1, ty: state });
  const [pred, pt] = expr(m, c.pred, f);
  if (!isBool(pt)) report(m, 'type', c.pred.span, `the condition of ${c.name} is ${show(pt)}, not Boolean`, `${c.name}: self.field <= 10 -- "…"`, f);
  const out: CheckedClause = { name: c.name, reading: c.reading, text: c.text, pred, slots: f.slots };
  if (say) {
    const [se, sty] = expr(m, say, f);
    if (!isTextLike(sty)) report(m, 'type', say.span, `a rule says text, not ${show(sty)}`, 'say "the lamp goes out"', f);
    out.say = se;
    out.slots = f.slots;
  }
  return out;
}

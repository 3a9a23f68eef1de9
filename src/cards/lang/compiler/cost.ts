/**
 * What checked code costs, worked out once when it is compiled: the ticks a statement charges
 * before it runs (one per node it is written with), and what one call of a function counts
 * toward the call depth limit.
 */
import type { CheckedClause, E, FnSym, S } from '../ir.js';

/** Ticks a node costs: one per node of the expression, not counting the bodies of calls. */
export function nodes(e: E): number {
  switch (e.k) {
    case 'const':
    case 'local':
    case 'ctx':
      return 1;
    case 'text':
      return 1 + e.parts.reduce((n, p) => n + (typeof p === 'string' ? 0 : nodes(p.e)), 0);
    case 'field':
      return 1 + nodes(e.obj);
    case 'index':
      return 1 + nodes(e.obj) + nodes(e.idx);
    case 'call':
    case 'builtin':
      return 1 + e.args.reduce((n, a) => n + nodes(a), 0);
    case 'record':
    case 'list':
      return 1 + e.items.reduce((n, a) => n + nodes(a), 0);
    case 'update':
      return 1 + nodes(e.obj) + e.sets.reduce((n, [, a]) => n + nodes(a), 0);
    case 'ctor':
      return 1 + (e.fields ?? []).reduce((n, a) => n + nodes(a), 0);
    case 'arith':
    case 'concat':
    case 'cmp':
    case 'eq':
    case 'and':
    case 'or':
      return 1 + nodes(e.l) + nodes(e.r);
    case 'not':
      return 1 + nodes(e.e);
    case 'chain': {
      // as the nested form: one per link, and its operands
      let n = nodes(e.first);
      for (const l of e.links) n += 1 + nodes(l.r);
      return n;
    }
  }
}

/** How deep the closures of an expression nest. */
function exprDepth(e: E): number {
  switch (e.k) {
    case 'const':
    case 'local':
    case 'ctx':
      return 1;
    case 'text':
      return 1 + Math.max(0, ...e.parts.map((p) => (typeof p === 'string' ? 0 : exprDepth(p.e))));
    case 'field':
      return 1 + exprDepth(e.obj);
    case 'index':
      return 1 + Math.max(exprDepth(e.obj), exprDepth(e.idx));
    case 'call':
    case 'builtin':
      return 2 + Math.max(0, ...e.args.map(exprDepth));
    case 'record':
    case 'list':
      return 1 + Math.max(0, ...e.items.map(exprDepth));
    case 'update':
      return 1 + Math.max(exprDepth(e.obj), ...e.sets.map(([, x]) => exprDepth(x)));
    case 'ctor':
      return 1 + Math.max(0, ...(e.fields ?? []).map(exprDepth));
    case 'not':
      return 1 + exprDepth(e.e);
    case 'chain': {
      let d = exprDepth(e.first);
      for (const l of e.links) d = Math.max(d, exprDepth(l.r));
      return 2 + d;
    }
    default:
      return 1 + Math.max(exprDepth(e.l), exprDepth(e.r));
  }
}

/** How deep the closures of a block nest (statements within statements, and their expressions). */
function blockDepth(ss: S[]): number {
  let d = 0;
  for (const s of ss) {
    let x = 1;
    switch (s.k) {
      case 'set':
      case 'setPath':
      case 'return':
      case 'say':
      case 'result':
        x += exprDepth(s.e);
        break;
      case 'if':
        x += Math.max(...s.branches.map(([c, b]) => Math.max(exprDepth(c), blockDepth(b))), s.otherwise ? blockDepth(s.otherwise) : 0);
        break;
      case 'match':
        x += Math.max(exprDepth(s.subject), ...s.cases.map((c) => (c ? blockDepth(c.body) : 0)), s.rest ? blockDepth(s.rest) : 0);
        break;
      case 'forList':
        x += Math.max(exprDepth(s.list), blockDepth(s.body));
        break;
      case 'forRange':
        x += Math.max(exprDepth(s.from), exprDepth(s.to), blockDepth(s.body));
        break;
      case 'while':
        x += Math.max(exprDepth(s.cond), blockDepth(s.body));
        break;
      case 'send':
        x += Math.max(exprDepth(s.target), exprDepth(s.arg));
        break;
      case 'move':
        x += Math.max(exprDepth(s.thing), exprDepth(s.to));
        break;
      case 'make':
        x += s.seed ? exprDepth(s.seed) : 0;
        break;
      case 'refuse':
        x += exprDepth(s.reading);
        break;
      case 'pass':
      case 'break':
      case 'continue':
        break;
    }
    d = Math.max(d, x);
  }
  return d;
}

/**
 * What one call of a function counts toward `maxCallDepth`: 1 for an ordinary body, more for a
 * body whose closures nest deep, so the language's limit is always reached long before the JS
 * stack's, whatever the code looks like, and a deep recursion fails the same way everywhere.
 */
export function callWeight(fn: FnSym): number {
  return Math.max(1, Math.ceil(blockDepth(fn.body ?? []) / 8));
}

/**
 * Ticks a statement charges as it starts: one for itself and one per node of what it evaluates
 * first. A `while` charges its test on every round instead, a chain of `elif`s each test it makes.
 */
export function stmtCost(s: S): number {
  switch (s.k) {
    case 'set':
    case 'setPath':
    case 'return':
    case 'say':
    case 'result':
      return 1 + nodes(s.e);
    case 'if':
      return 1 + nodes(s.branches[0]![0]);
    case 'match':
      return 1 + nodes(s.subject);
    case 'forList':
      return 1 + nodes(s.list);
    case 'forRange':
      return 1 + nodes(s.from) + nodes(s.to);
    case 'while':
      return 0;
    case 'send':
      return 1 + nodes(s.target) + nodes(s.arg);
    case 'move':
      return 1 + nodes(s.thing) + nodes(s.to);
    case 'make':
      return 1 + (s.seed ? nodes(s.seed) : 0);
    case 'refuse':
      return 1 + nodes(s.reading);
    case 'pass':
    case 'break':
    case 'continue':
      return 1;
  }
}

/** Ticks a law clause, want or rule charges: one, and its predicate's and saying's nodes. */
export const clauseCost = (c: CheckedClause): number => 1 + nodes(c.pred) + (c.say ? nodes(c.say) : 0);

/** Binary operators: `and`/`or` on Booleans, equality on any one type, order, `+` on naturals, texts and lists, arithmetic on naturals. */
import type { Expr } from '../ast.js';
import type { E, Link } from '../ir.js';
import { BOOL, ERR, NAT, TEXT, compat, isBool, isNat, isTextLike, show, type Ty } from '../types.js';
import { expr } from './expressions.js';
import type { FnCtx } from './locals.js';
import { type ModuleScope, report } from './scope.js';

type Bin = Extract<Expr, { k: 'bin' }>;

/** A left spine longer than this is checked into one `chain` node, run by a loop (see compiler). */
const chainFrom = 8;

/**
 * Checks a binary expression. The parser builds `a + b + … + z` as a left-leaning tree as deep
 * as the chain is long; the spine is walked with a loop here, never by recursion, so a flat
 * chain of any length checks in constant stack, and a long one becomes one
 * `chain` node so compiling and running it need no deep stack either.
 */
export function binary(m: ModuleScope, e: Bin, f: FnCtx): [E, Ty] {
  const spine: Bin[] = [];
  let x: Expr = e;
  while (x.k === 'bin') {
    spine.push(x);
    x = x.l;
  }
  let acc = expr(m, x, f);
  for (let i = spine.length - 1; i >= 0; i--) acc = combine(m, spine[i]!, acc, f);
  return spine.length >= chainFrom ? [flatten(acc[0]), acc[1]] : acc;
}

/** A left spine of arithmetic, joins, and/or as one node: its first operand and the links after it. */
function flatten(top: E): E {
  const links: Link[] = [];
  let x = top;
  while (x.k === 'arith' || x.k === 'concat' || x.k === 'and' || x.k === 'or') {
    links.push({ op: x.k === 'arith' ? x.op : x.k === 'concat' ? (x.list ? 'list' : 'text') : x.k, r: x.r });
    x = x.l;
  }
  if (links.length < 2) return top;
  links.reverse();
  return { k: 'chain', first: x, links };
}

function combine(m: ModuleScope, e: Bin, left: [E, Ty], f: FnCtx): [E, Ty] {
  const op = e.op;
  if (op === 'and' || op === 'or') {
    const [l, lt] = left;
    const [r, rt] = expr(m, e.r, f);
    if (!isBool(lt)) report(m, 'type', e.l.span, `${op} joins Booleans, not ${show(lt)}`, undefined, f);
    if (!isBool(rt)) report(m, 'type', e.r.span, `${op} joins Booleans, not ${show(rt)}`, undefined, f);
    return [{ k: op, l, r }, BOOL];
  }
  if (op === '==' || op === '!=') {
    const [l, lt] = left;
    const [r, rt] = expr(m, e.r, f, lt);
    if (!compat(lt, rt) && !compat(rt, lt)) {
      report(m, 'type', e.span, `${show(lt)} and ${show(rt)} are never equal: they are different types`, undefined, f);
    }
    return [{ k: 'eq', neg: op === '!=', l, r }, BOOL];
  }
  const [l, lt] = left;
  const [r, rt] = expr(m, e.r, f, lt.k === 'list' ? lt : undefined);
  if (op === '<' || op === '<=' || op === '>' || op === '>=') {
    const ok = (isNat(lt) && isNat(rt)) || (isTextLike(lt) && isTextLike(rt));
    if (!ok) report(m, 'type', e.span, `${op} compares two naturals or two texts, not ${show(lt)} and ${show(rt)}`, undefined, f);
    // texts compare by code point (values.ts cmpText), naturals as numbers
    return [lt.k === 'text' || rt.k === 'text' ? { k: 'cmp', op, l, r, text: true } : { k: 'cmp', op, l, r }, BOOL];
  }
  if (op === '+') {
    if (lt.k === 'text' || rt.k === 'text') {
      if (!isTextLike(lt) || !isTextLike(rt)) {
        report(m, 'type', e.span, `+ joins two texts, not ${show(lt)} and ${show(rt)}`, 'put a value into text with a hole: "{n} lamps"', f);
        return [{ k: 'const', v: '' }, TEXT];
      }
      return [{ k: 'concat', l, r, list: false }, TEXT];
    }
    if (lt.k === 'list' || rt.k === 'list') {
      if (lt.k !== 'list' || rt.k !== 'list' || (!compat(lt.of, rt.of) && !compat(rt.of, lt.of))) {
        report(m, 'type', e.span, `+ joins two lists of the same kind, not ${show(lt)} and ${show(rt)}`, 'append(list, item)', f);
        return [l, ERR];
      }
      return [{ k: 'concat', l, r, list: true }, lt.of.k === 'err' ? rt : lt];
    }
  }
  if (!isNat(lt) || !isNat(rt)) {
    report(m, 'type', e.span, `${op} works on naturals, not ${show(lt)} and ${show(rt)}`, undefined, f);
    return [{ k: 'const', v: 0 }, ERR];
  }
  return [{ k: 'arith', op: op as '+' | '-' | '*' | '/' | '%', l, r }, NAT];
}

/**
 * Expressions, loosest first: or, and, not, one comparison (they do not chain), + and -,
 * * / %, then postfix links (.field, [index], (arguments), { update }) on a primary value.
 * A hole in text (`"{n} lamps"`) is parsed by a cursor of its own over the hole's tokens.
 */
import type { BinOp, Expr, FieldInit } from '../ast.js';
import { join, type Span } from '../diagnostics.js';
import { lexHole, type Token } from '../lexer.js';
import { Cursor, maxNesting } from './cursor.js';

export function expr(p: Cursor): Expr {
  p.enter(p.peek());
  try {
    return orExpr(p);
  } finally {
    p.leave();
  }
}

function orExpr(p: Cursor): Expr {
  let l = andExpr(p);
  while (p.isKw('or')) {
    p.next();
    const r = andExpr(p);
    l = { k: 'bin', op: 'or', l, r, span: join(l.span, r.span) };
  }
  return l;
}

function andExpr(p: Cursor): Expr {
  let l = notExpr(p);
  while (p.isKw('and')) {
    p.next();
    const r = notExpr(p);
    l = { k: 'bin', op: 'and', l, r, span: join(l.span, r.span) };
  }
  return l;
}

function notExpr(p: Cursor): Expr {
  const t = p.peek();
  if (t.k === 'kw' && t.v === 'not') {
    p.next();
    p.enter(t);
    try {
      const e = notExpr(p);
      return { k: 'not', e, span: join(t, e.span) };
    } finally {
      p.leave();
    }
  }
  return comparison(p);
}

function comparison(p: Cursor): Expr {
  const l = additive(p);
  const t = p.peek();
  if (t.k === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(t.v)) {
    p.next();
    const r = additive(p);
    const n = p.peek();
    if (n.k === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(n.v)) {
      p.fail(n, 'comparisons do not chain', 'join them with "and": a < b and b < c');
    }
    return { k: 'bin', op: t.v as BinOp, l, r, span: join(l.span, r.span) };
  }
  return l;
}

function additive(p: Cursor): Expr {
  let l = multiplicative(p);
  while (p.isOp('+') || p.isOp('-')) {
    const op = p.next().v as BinOp;
    const r = multiplicative(p);
    l = { k: 'bin', op, l, r, span: join(l.span, r.span) };
  }
  return l;
}

function multiplicative(p: Cursor): Expr {
  let l = postfix(p, true);
  while (p.isOp('*') || p.isOp('/') || p.isOp('%')) {
    const op = p.next().v as BinOp;
    const r = postfix(p, true);
    l = { k: 'bin', op, l, r, span: join(l.span, r.span) };
  }
  return l;
}

export function postfix(p: Cursor, withUpdate: boolean): Expr {
  let e = primary(p);
  let links = 0;
  while (true) {
    if (++links > maxNesting) p.fail(e.span, `this chain is longer than ${maxNesting} links`, 'break it up with let');
    if (p.isOp('.')) {
      p.next();
      const n = p.peek();
      if (n.k !== 'name') p.fail(n, `expected a field name after ".", but found ${p.describe(n)}`, 'self.field');
      p.next();
      e = { k: 'field', obj: e, name: n.v, span: join(e.span, n), nameSpan: n };
      continue;
    }
    if (p.isOp('[')) {
      p.next();
      const index = expr(p);
      const close = p.expectOp(']', 'to close the index', 'list[0]');
      e = { k: 'index', obj: e, index, span: join(e.span, close) };
      continue;
    }
    if (p.isOp('(')) {
      p.next();
      const args: Expr[] = [];
      while (!p.isOp(')')) {
        args.push(expr(p));
        if (!p.eat('op', ',')) break;
      }
      const close = p.expectOp(')', 'to close the arguments', 'name(a, b)');
      e = { k: 'call', fn: e, args, span: join(e.span, close) };
      continue;
    }
    if (withUpdate && p.isOp('{')) {
      const r = recordFields(p);
      e = { k: 'with', target: e, fields: r.fields, span: join(e.span, r.end) };
      continue;
    }
    return e;
  }
}

function recordFields(p: Cursor): { fields: FieldInit[]; end: Span } {
  const open = p.expectOp('{', 'to begin a record');
  p.enter(open);
  try {
    const fields: FieldInit[] = [];
    while (!p.isOp('}')) {
      const n = p.expectName('a field name', '{ field: value }');
      p.expectOp(':', `after the field ${n.v}`, `${n.v}: value`);
      const value = expr(p);
      fields.push({ name: n.v, value, span: join(n, value.span) });
      if (!p.eat('op', ',')) break;
    }
    const end = p.expectOp('}', 'to close the record', '{ field: value, other: value }');
    return { fields, end };
  } finally {
    p.leave();
  }
}

export function primary(p: Cursor): Expr {
  const t = p.peek();
  switch (t.k) {
    case 'nat':
      p.next();
      return { k: 'nat', value: t.n!, span: t };
    case 'text':
      p.next();
      return textExpr(p, t);
    case 'name':
      p.next();
      return { k: 'name', name: t.v, span: t };
    case 'kw':
      if (t.v === 'true' || t.v === 'false') {
        p.next();
        return { k: 'bool', value: t.v === 'true', span: t };
      }
      break;
    case 'op':
      if (t.v === '(') {
        p.next();
        p.enter(t);
        try {
          const e = expr(p);
          p.expectOp(')', 'to close the parenthesis');
          return e;
        } finally {
          p.leave();
        }
      }
      if (t.v === '[') {
        p.next();
        p.enter(t);
        try {
          const items: Expr[] = [];
          while (!p.isOp(']')) {
            items.push(expr(p));
            if (!p.eat('op', ',')) break;
          }
          const close = p.expectOp(']', 'to close the list', '[a, b, c]');
          return { k: 'list', items, span: join(t, close) };
        } finally {
          p.leave();
        }
      }
      if (t.v === '{') {
        const r = recordFields(p);
        return { k: 'anon', fields: r.fields, span: join(t, r.end) };
      }
      if (t.v === '-' && p.peek(1).k === 'nat') {
        p.fail(t, 'naturals are never negative', 'count from zero up');
      }
      break;
  }
  p.fail(t, `expected a value, but found ${p.describe(t)}`);
}

function textExpr(p: Cursor, t: Token): Expr {
  const parts: (string | Expr)[] = [];
  for (const part of t.parts ?? []) {
    if (part.str !== undefined) {
      parts.push(part.str);
      continue;
    }
    const toks = lexHole(part.src!, part.line, part.col);
    const sub = new Cursor(toks, p.lines);
    sub.depth = p.depth;
    sub.stage = p.stage;
    sub.hole = true;
    const e = expr(sub);
    if (!sub.is('eof')) sub.fail(sub.peek(), `unexpected ${sub.describe(sub.peek())} in a text hole`, '{expression}');
    parts.push(e);
  }
  return { k: 'text', parts, span: t };
}

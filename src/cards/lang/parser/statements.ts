/**
 * Statements: a block is a colon and either one simple statement on the same line or
 * indented lines below; `if`, `match`, `for` and `while` open blocks of their own.
 */
import type { Case, Expr, Stmt, TypeExpr } from '../ast.js';
import { join, type Span } from '../diagnostics.js';
import type { Token } from '../lexer.js';
import type { Cursor } from './cursor.js';
import { expr, postfix, primary } from './expressions.js';
import { typeExpr } from './type-expr.js';

/** The kernel's refusal classes a card may refuse with, instead of a clause word of its own. */
const refuseClasses = new Set(['absentItem', 'duplicateKey', 'keyTaken']);

export function block(p: Cursor, what: string): Stmt[] {
  if (p.isOp('=')) p.fail(p.peek(), 'a single "=" assigns; to compare, write "=="', 'a == b');
  const colon = p.expectOp(':', `to begin the body of ${what}`, `${what}:`);
  if (!p.is('newline')) {
    // A one-line body: `if x: return y`
    return [simpleStmt(p)];
  }
  p.next();
  if (!p.is('indent')) p.fail(p.peek(), `the body of ${what} goes on indented lines below it`, `${what}:\n  return …`);
  p.enter(colon);
  try {
    p.next();
    const body: Stmt[] = [];
    while (!p.eat('dedent')) {
      if (p.eat('newline')) continue;
      if (p.is('eof')) break;
      body.push(stmt(p));
    }
    return body;
  } finally {
    p.leave();
  }
}

function stmt(p: Cursor): Stmt {
  const t = p.peek();
  if (t.k === 'kw') {
    switch (t.v) {
      case 'if':
        return ifStmt(p);
      case 'match':
        return matchStmt(p);
      case 'for': {
        p.next();
        const n = p.expectName('a loop variable after "for"', 'for item in list:');
        if (!p.eat('kw', 'in')) p.fail(p.peek(), `expected "in" after "for ${n.v}"`, `for ${n.v} in list:`);
        const first = expr(p);
        if (p.eat('op', '..')) {
          const to = expr(p);
          const body = block(p, `for ${n.v} in …`);
          return { k: 'for', name: n.v, from: first, to, body, span: join(t, to.span) };
        }
        const body = block(p, `for ${n.v} in …`);
        return { k: 'for', name: n.v, list: first, body, span: join(t, first.span) };
      }
      case 'while': {
        p.next();
        const cond = expr(p);
        const body = block(p, 'while …');
        return { k: 'while', cond, body, span: join(t, cond.span) };
      }
    }
  }
  return simpleStmt(p);
}

function simpleStmt(p: Cursor): Stmt {
  const t = p.peek();
  const s = simpleStmtInner(p, t);
  p.expectNewline(t.k === 'kw' ? `"${t.v}"` : 'the statement');
  return s;
}

function simpleStmtInner(p: Cursor, t: Token): Stmt {
  // `move` is a word only at the head of a statement followed by a name (`move this to to`), so
  // code written before it, with a spell, field or local called move, reads as it always did.
  if (t.k === 'name' && t.v === 'move' && p.peek(1).k === 'name') {
    p.next();
    const form = 'move thing to place';
    const thing = expr(p);
    const to = p.peek();
    if (to.k !== 'name' || to.v !== 'to') p.fail(to, `expected to and the place after the thing to move, but found ${p.describe(to)}`, form);
    p.next();
    const place = expr(p);
    return { k: 'move', thing, to: place, span: join(t, place.span) };
  }
  if (t.k === 'kw') {
    switch (t.v) {
      case 'let': {
        p.next();
        const n = p.expectName('a name after "let"', 'let total = 0');
        let type: TypeExpr | undefined;
        if (p.eat('op', ':')) type = typeExpr(p);
        p.expectOp('=', `after "let ${n.v}"`, `let ${n.v} = …`);
        const value = expr(p);
        const s: Stmt = { k: 'let', name: n.v, value, span: join(t, value.span) };
        if (type) s.type = type;
        return s;
      }
      case 'return': {
        p.next();
        if (p.is('newline') || p.is('eof') || p.is('dedent')) return { k: 'return', span: t };
        const value = expr(p);
        return { k: 'return', value, span: join(t, value.span) };
      }
      case 'say': {
        p.next();
        const value = expr(p);
        return { k: 'say', value, span: join(t, value.span) };
      }
      case 'result': {
        p.next();
        const value = expr(p);
        return { k: 'result', value, span: join(t, value.span) };
      }
      case 'pass':
        p.next();
        return { k: 'pass', span: t };
      case 'break':
      case 'continue':
        p.next();
        return { k: t.v, span: t };
      case 'send': {
        p.next();
        const form = 'send target.method { field: value }';
        const target = postfix(p, false);
        if (target.k !== 'field') p.fail(target.span, 'a send names the card and the method: target.method', form);
        const arg = p.isOp('{') ? primary(p) : undefined;
        if (!arg)
          p.fail(
            p.peek(),
            `expected the argument of the send as a record in braces, but found ${p.describe(p.peek())}`,
            `send ${'…'}.${target.name} { field: value }`,
          );
        return { k: 'send', target: target.obj, method: target.name, arg, span: join(t, arg.span) };
      }
      case 'make': {
        p.next();
        const n = p.expectName('the kind to make after "make"', 'make note { text: "hello" }');
        if (p.isOp('{')) {
          const seed = primary(p);
          return { k: 'make', kind: n.v, seed, span: join(t, seed.span) };
        }
        return { k: 'make', kind: n.v, span: join(t, n) };
      }
      case 'refuse': {
        p.next();
        const form = 'refuse "clause" "what went wrong, in words"';
        const c = p.peek();
        let clause: string;
        let cls: 'absentItem' | 'duplicateKey' | 'keyTaken' | undefined;
        if (c.k === 'text' && c.parts && c.parts.every((part) => part.src === undefined)) {
          clause = c.parts.map((part) => part.str ?? '').join('');
          if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(clause)) p.fail(c, `a refusal's clause is one short word, not "${clause.slice(0, 40)}"`, form);
        } else if (c.k === 'name' && refuseClasses.has(c.v)) {
          clause = c.v;
          cls = c.v as typeof cls;
        } else p.fail(c, `expected the clause of the refusal as a word in quotes (or absentItem, duplicateKey, keyTaken), but found ${p.describe(c)}`, form);
        p.next();
        const reading = expr(p);
        const s: Stmt = { k: 'refuse', clause, reading, span: join(t, reading.span) };
        if (cls) s.cls = cls;
        return s;
      }
      case 'if':
      case 'match':
      case 'for':
      case 'while':
        p.fail(t, `"${t.v}" begins a block and goes on its own line`);
      // falls through: fail never returns
      default:
        if (['use', 'type', 'def', 'spell', 'view', 'law', 'want', 'rule'].includes(t.v)) {
          p.fail(
            t,
            `"${t.v}" declares something and belongs at the left margin, not inside a body`,
            'move it out of the body, or fix the indentation of the line before',
          );
        }
    }
  }
  const target = expr(p);
  if (p.isOp('=')) {
    p.next();
    const value = expr(p);
    return { k: 'assign', target, value, span: join(target.span, value.span) };
  }
  if (target.k === 'name' && p.peek().k === 'name') {
    p.fail(p.peek(), `unexpected ${p.describe(p.peek())} after ${target.name}`, target.name === 'else' ? 'else:' : undefined);
  }
  p.fail(target.span, 'an expression alone does nothing here', 'assign it (name = …), return it, say it or send it');
}

function ifStmt(p: Cursor): Stmt {
  const t = p.next();
  const branches: { cond: Expr; body: Stmt[] }[] = [];
  const cond = expr(p);
  branches.push({ cond, body: block(p, 'if …') });
  let otherwise: Stmt[] | undefined;
  while (true) {
    if (p.isKw('elif')) {
      p.next();
      const c = expr(p);
      branches.push({ cond: c, body: block(p, 'elif …') });
      continue;
    }
    if (p.isKw('else')) {
      p.next();
      if (p.isKw('if')) p.fail(p.peek(), '"else if" is written "elif"', 'elif condition:');
      otherwise = block(p, 'else');
    }
    break;
  }
  const s: Stmt = { k: 'if', branches, span: join(t, cond.span) };
  if (otherwise) s.otherwise = otherwise;
  return s;
}

function matchStmt(p: Cursor): Stmt {
  const t = p.next();
  const subject = expr(p);
  p.expectOp(':', 'after the value to match', 'match value:\n  case tag:\n    …');
  p.expectNewline('match …:');
  if (!p.eat('indent')) p.fail(p.peek(), 'the cases of a match go on indented lines below it', 'match value:\n  case tag:\n    …');
  const cases: Case[] = [];
  p.enter(t);
  try {
    while (!p.eat('dedent')) {
      if (p.eat('newline')) continue;
      if (p.is('eof')) break;
      const c = p.peek();
      if (!p.eat('kw', 'case')) p.fail(c, `expected "case", but found ${p.describe(c)}`, 'case tag:');
      let ctor: string;
      let end: Span;
      if (p.isOp('_')) {
        end = p.next();
        ctor = '_';
      } else {
        const n = p.expectName('a tag after "case" (or _ for the rest)', 'case tag:');
        ctor = n.v;
        end = n;
      }
      const binds: { name: string; span: Span }[] = [];
      if (ctor !== '_' && p.eat('op', '{')) {
        while (!p.isOp('}')) {
          const b = p.expectName('a field name to bind', `case ${ctor} { field }:`);
          binds.push({ name: b.v, span: b });
          if (!p.eat('op', ',')) break;
        }
        end = p.expectOp('}', `to close the fields of case ${ctor}`);
      }
      const body = block(p, `case ${ctor}`);
      cases.push({ ctor, binds, body, span: join(c, end) });
    }
  } finally {
    p.leave();
  }
  if (!cases.length) p.fail(t, 'a match needs at least one case', 'case tag:');
  return { k: 'match', subject, cases, span: join(t, subject.span) };
}

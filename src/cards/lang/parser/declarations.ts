/**
 * Declarations: a module is a list of `use`, `type`, `def`/`spell`/`view`, `law`, `want` and
 * `rule` at the left margin; the law text given beside a package is law clauses alone.
 */
import type { Clause, CtorDecl, Decl, FieldDecl, ModuleAst, Param, TypeExpr } from '../ast.js';
import { join, type Span } from '../diagnostics.js';
import type { Cursor } from './cursor.js';
import { expr } from './expressions.js';
import { block } from './statements.js';
import { typeExpr } from './type-expr.js';

export function moduleTree(p: Cursor, name: string): ModuleAst {
  const decls: Decl[] = [];
  while (!p.is('eof')) {
    if (p.eat('newline')) continue;
    if (p.is('indent')) p.fail(p.peek(), 'this line is indented but belongs to no block', 'start declarations at the left margin');
    decls.push(decl(p));
  }
  return { name, decls };
}

function decl(p: Cursor): Decl {
  const t = p.peek();
  if (t.k === 'kw') {
    switch (t.v) {
      case 'use': {
        p.next();
        const n = p.expectName('a module name after "use"', 'use core');
        p.expectNewline('use ' + n.v);
        return { k: 'use', name: n.v, span: join(t, n) };
      }
      case 'type':
        return typeDecl(p);
      case 'def':
      case 'spell':
      case 'view':
        return fnDecl(p, t.v);
      case 'law':
        return lawDecl(p);
      case 'want': {
        p.next();
        const want = clause(p, 'want');
        return { k: 'want', clause: want, span: join(t, want.span) };
      }
      case 'rule':
        return ruleDecl(p);
    }
  }
  p.fail(t, `expected a declaration (use, type, def, spell, view, law, want or rule), but found ${p.describe(t)}`, 'spell name(self: State) -> State:');
}

function typeDecl(p: Cursor): Decl {
  const kw = p.next();
  const n = p.expectName('a type name after "type"', 'type Lamp:');
  if (!/^[A-Z]/.test(n.v)) p.fail(n, `a type name starts with a capital letter: "${n.v}"`, `type ${n.v[0]!.toUpperCase()}${n.v.slice(1)}:`);
  p.expectOp(':', `after "type ${n.v}"`, `type ${n.v}:`);
  if (!p.is('newline')) {
    // One line of bare tags: type Mood: calm | cross
    const ctors: CtorDecl[] = [ctorDecl(p)];
    while (p.eat('op', '|')) ctors.push(ctorDecl(p));
    p.expectNewline(`the tags of ${n.v}`);
    return { k: 'type', name: n.v, ctors, span: join(kw, ctors[ctors.length - 1]!.span), nameSpan: n };
  }
  p.next();
  if (!p.eat('indent')) p.fail(p.peek(), `the fields or tags of ${n.v} go on indented lines below it`, `type ${n.v}:\n  field: Natural`);
  const fields: FieldDecl[] = [];
  const ctors: CtorDecl[] = [];
  let end: Span = n;
  while (!p.eat('dedent')) {
    if (p.eat('newline')) continue;
    if (p.is('eof')) break;
    const f = p.peek();
    if (f.k === 'name' && p.peek(1).k === 'op' && p.peek(1).v === ':') {
      if (ctors.length) p.fail(f, `${n.v} mixes fields and tags`, 'a type is either a record (field: Type lines) or a variant (Tag lines)');
      const name = p.next();
      p.next();
      const type = typeExpr(p);
      fields.push({ name: name.v, type, span: join(name, type.span) });
      end = type.span;
      p.expectNewline(`the field ${name.v}`);
    } else {
      if (fields.length) p.fail(f, `${n.v} mixes fields and tags`, 'a type is either a record (field: Type lines) or a variant (Tag lines)');
      const c = ctorDecl(p);
      ctors.push(c);
      end = c.span;
      while (p.eat('op', '|')) ctors.push(ctorDecl(p));
      p.expectNewline(`the tag ${c.name}`);
    }
  }
  return fields.length || !ctors.length
    ? { k: 'type', name: n.v, fields, span: join(kw, end), nameSpan: n }
    : { k: 'type', name: n.v, ctors, span: join(kw, end), nameSpan: n };
}

function ctorDecl(p: Cursor): CtorDecl {
  const n = p.expectName('a tag name', 'calm');
  const fields: FieldDecl[] = [];
  let end: Span = n;
  if (p.eat('op', '{')) {
    while (!p.isOp('}')) {
      const f = p.expectName('a field name', `${n.v} { field: Natural }`);
      p.expectOp(':', `after the field ${f.v}`, `${f.v}: Natural`);
      const type = typeExpr(p);
      fields.push({ name: f.v, type, span: join(f, type.span) });
      if (!p.eat('op', ',')) break;
    }
    end = p.expectOp('}', `to close the fields of ${n.v}`);
  }
  return { name: n.v, fields, span: join(n, end) };
}

function fnDecl(p: Cursor, kind: 'def' | 'spell' | 'view'): Decl {
  const kw = p.next();
  const n = p.expectName(`a name after "${kind}"`, kind === 'def' ? 'def helper(n: Natural) -> Natural:' : `${kind} name(self: State) -> State:`);
  p.expectOp('(', `after the name ${n.v}`, `${kind} ${n.v}(self: State) -> State:`);
  const params: Param[] = [];
  while (!p.isOp(')')) {
    const name = p.expectName('a parameter name', 'n: Natural');
    p.expectOp(':', `after the parameter ${name.v}: every parameter has a type`, `${name.v}: Natural`);
    const type = typeExpr(p);
    params.push({ name: name.v, type, span: join(name, type.span) });
    if (!p.eat('op', ',')) break;
  }
  const close = p.expectOp(')', `to close the parameters of ${n.v}`);
  let ret: TypeExpr | null = null;
  if (p.eat('op', '->')) ret = typeExpr(p);
  const head = join(kw, ret ? ret.span : close);
  const body = block(p, `${kind} ${n.v}`);
  return { k: 'fn', kind, name: n.v, params, ret, body, span: head, nameSpan: n };
}

function lawDecl(p: Cursor): Decl {
  const kw = p.next();
  const saved = p.stage;
  p.stage = 'law';
  try {
    p.expectOp(':', 'after "law"', 'law:\n  name: predicate -- "reading"');
    p.expectNewline('law:');
    if (!p.eat('indent'))
      p.fail(p.peek(), 'the clauses of the law go on indented lines below "law:"', 'law:\n  full: self.fuel <= 10 -- "a lamp holds ten measures"');
    const clauses: Clause[] = [];
    while (!p.eat('dedent')) {
      if (p.eat('newline')) continue;
      if (p.is('eof')) break;
      clauses.push(clause(p, 'law'));
    }
    return { k: 'law', clauses, span: clauses.length ? join(kw, clauses[clauses.length - 1]!.span) : kw };
  } finally {
    p.stage = saved;
  }
}

/** `name: predicate -- "reading"` (a law clause or a want). */
function clause(p: Cursor, what: 'law' | 'want'): Clause {
  const form = what === 'law' ? 'name: predicate -- "reading"' : 'want name: predicate -- "reading"';
  const n = p.expectName(`the name of a ${what === 'law' ? 'law clause' : 'want'}`, form);
  p.expectOp(':', `after the ${what === 'law' ? 'clause' : 'want'} name ${n.v}`, form);
  const pred = expr(p);
  p.expectOp('--', `before the reading of ${n.v}`, `${n.v}: ${'…'} -- "what it means, in words"`);
  const r = p.peek();
  if (r.k !== 'text' || !r.parts || r.parts.some((part) => part.src !== undefined))
    p.fail(r, `expected the reading of ${n.v} as plain text in quotes`, `-- "what it means, in words"`);
  p.next();
  const reading = r.parts!.map((part) => part.str ?? '').join('');
  const span = join(n, r);
  p.expectNewline(`the reading of ${n.v}`);
  return { name: n.v, pred, reading, text: p.lineText(n, r), span };
}

function ruleDecl(p: Cursor): Decl {
  const kw = p.next();
  const form = 'rule name: condition -> say "what happens"';
  const n = p.expectName('the name of a rule', form);
  p.expectOp(':', `after the rule name ${n.v}`, form);
  const cond = expr(p);
  p.expectOp('->', `after the condition of rule ${n.v}`, form);
  if (!p.eat('kw', 'say')) p.fail(p.peek(), `a rule says something when it fires; expected "say", but found ${p.describe(p.peek())}`, form);
  const say = expr(p);
  const span = join(kw, say.span);
  p.expectNewline(`rule ${n.v}`);
  return { k: 'rule', name: n.v, cond, say, text: p.lineText(kw, say.span), span };
}

/** For the law text given beside a package: clauses one a line, with or without `law:`. */
export function lawText(p: Cursor): Clause[] {
  p.stage = 'law';
  const clauses: Clause[] = [];
  while (p.eat('newline')) {
    /* skip */
  }
  if (p.isKw('law')) {
    const d = lawDecl(p);
    if (d.k === 'law') clauses.push(...d.clauses);
  } else {
    while (!p.is('eof')) {
      if (p.eat('newline')) continue;
      if (p.is('indent') || p.is('dedent')) p.fail(p.peek(), 'law clauses stand one a line at the left margin', 'name: predicate -- "reading"');
      clauses.push(clause(p, 'law'));
    }
  }
  while (p.eat('newline')) {
    /* skip */
  }
  if (!p.is('eof')) p.fail(p.peek(), `unexpected ${p.describe(p.peek())} after the law`, 'name: predicate -- "reading"');
  return clauses;
}

/**
 * The parser: tokens to a module tree. It stops at the first syntax error of a module and
 * reports it with the form wanted; nesting is capped so no source can exhaust the JS stack.
 */
import type { Stage } from '../program.js';
import type { BinOp, Case, Clause, CtorDecl, Decl, Expr, FieldDecl, FieldInit, ModuleAst, Param, Stmt, TypeExpr } from './ast.js';
import { type Diags, StopParse, join, type Span } from './diagnostics.js';
import { lex, lexHole, type Token } from './lexer.js';

/** Deepest nesting of expressions and blocks a source may use. */
export const maxNesting = 48;

const refuseClasses = new Set(['absentItem', 'duplicateKey', 'keyTaken']);

class Parser {
  private pos = 0;
  private depth = 0;
  stage: Stage = 'parse';
  /** Parsing the inside of a `{…}` hole in text. */
  hole = false;

  constructor(
    private toks: Token[],
    private lines: string[],
  ) {}

  // ---- tokens -------------------------------------------------------------------------------
  private peek(o = 0): Token {
    return this.toks[Math.min(this.pos + o, this.toks.length - 1)]!;
  }
  private next(): Token {
    const t = this.peek();
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }
  private is(k: Token['k'], v?: string): boolean {
    const t = this.peek();
    return t.k === k && (v === undefined || t.v === v);
  }
  private isOp(v: string): boolean {
    return this.is('op', v);
  }
  private isKw(v: string): boolean {
    return this.is('kw', v);
  }
  private eat(k: Token['k'], v?: string): Token | undefined {
    return this.is(k, v) ? this.next() : undefined;
  }
  private fail(at: Span, message: string, hint?: string): never {
    throw new StopParse(this.stage, at, message, hint);
  }
  private describe(t: Token): string {
    switch (t.k) {
      case 'newline':
        return 'the end of the line';
      case 'indent':
        return 'an indented line';
      case 'dedent':
        return 'the end of the block';
      case 'eof':
        return this.hole ? 'the end of the hole' : 'the end of the module';
      case 'text':
        return 'a text';
      case 'nat':
        return `the number ${t.v.length > 20 ? t.v.slice(0, 20) + '…' : t.v}`;
      default:
        return `"${t.v}"`;
    }
  }
  private expectOp(v: string, what: string, hint?: string): Token {
    const t = this.peek();
    if (t.k === 'op' && t.v === v) return this.next();
    this.fail(t, `expected "${v}" ${what}, but found ${this.describe(t)}`, hint);
  }
  private expectName(what: string, hint?: string): Token {
    const t = this.peek();
    if (t.k === 'name') return this.next();
    if (t.k === 'kw') this.fail(t, `"${t.v}" is a word of the language and cannot be used as ${what}`, hint ?? 'choose another name');
    this.fail(t, `expected ${what}, but found ${this.describe(t)}`, hint);
  }
  private expectNewline(what: string): void {
    const t = this.peek();
    if (t.k === 'newline') {
      this.next();
      return;
    }
    if (t.k === 'eof' || t.k === 'dedent') return;
    this.fail(t, `expected the end of the line after ${what}, but found ${this.describe(t)}`);
  }
  private enter(at: Span): void {
    if (++this.depth > maxNesting) this.fail(at, `this is nested more than ${maxNesting} deep`, 'split it into smaller defs');
  }
  private leave(): void {
    this.depth--;
  }
  private lineText(from: Span, to: Span): string {
    const out: string[] = [];
    for (let l = from.line; l <= to.endLine; l++) out.push((this.lines[l - 1] ?? '').trim());
    return out.join(' ');
  }

  // ---- module -------------------------------------------------------------------------------
  module(name: string): ModuleAst {
    const decls: Decl[] = [];
    while (!this.is('eof')) {
      if (this.eat('newline')) continue;
      if (this.is('indent')) this.fail(this.peek(), 'this line is indented but belongs to no block', 'start declarations at the left margin');
      decls.push(this.decl());
    }
    return { name, decls };
  }

  private decl(): Decl {
    const t = this.peek();
    if (t.k === 'kw') {
      switch (t.v) {
        case 'use': {
          this.next();
          const n = this.expectName('a module name after "use"', 'use core');
          this.expectNewline('use ' + n.v);
          return { k: 'use', name: n.v, span: join(t, n) };
        }
        case 'type':
          return this.typeDecl();
        case 'def':
        case 'spell':
        case 'view':
          return this.fnDecl(t.v);
        case 'law':
          return this.lawDecl();
        case 'want': {
          this.next();
          const clause = this.clause('want');
          return { k: 'want', clause, span: join(t, clause.span) };
        }
        case 'rule':
          return this.ruleDecl();
      }
    }
    this.fail(t, `expected a declaration (use, type, def, spell, view, law, want or rule), but found ${this.describe(t)}`, 'spell name(self: State) -> State:');
  }

  private typeDecl(): Decl {
    const kw = this.next();
    const n = this.expectName('a type name after "type"', 'type Lamp:');
    if (!/^[A-Z]/.test(n.v)) this.fail(n, `a type name starts with a capital letter: "${n.v}"`, `type ${n.v[0]!.toUpperCase()}${n.v.slice(1)}:`);
    this.expectOp(':', `after "type ${n.v}"`, `type ${n.v}:`);
    if (!this.is('newline')) {
      // One line of bare tags: type Mood: calm | cross
      const ctors: CtorDecl[] = [this.ctorDecl()];
      while (this.eat('op', '|')) ctors.push(this.ctorDecl());
      this.expectNewline(`the tags of ${n.v}`);
      return { k: 'type', name: n.v, ctors, span: join(kw, ctors[ctors.length - 1]!.span), nameSpan: n };
    }
    this.next();
    if (!this.eat('indent')) this.fail(this.peek(), `the fields or tags of ${n.v} go on indented lines below it`, `type ${n.v}:\n  field: Natural`);
    const fields: FieldDecl[] = [];
    const ctors: CtorDecl[] = [];
    let end: Span = n;
    while (!this.eat('dedent')) {
      if (this.eat('newline')) continue;
      if (this.is('eof')) break;
      const f = this.peek();
      if (f.k === 'name' && this.peek(1).k === 'op' && this.peek(1).v === ':') {
        if (ctors.length) this.fail(f, `${n.v} mixes fields and tags`, 'a type is either a record (field: Type lines) or a variant (Tag lines)');
        const name = this.next();
        this.next();
        const type = this.typeExpr();
        fields.push({ name: name.v, type, span: join(name, type.span) });
        end = type.span;
        this.expectNewline(`the field ${name.v}`);
      } else {
        if (fields.length) this.fail(f, `${n.v} mixes fields and tags`, 'a type is either a record (field: Type lines) or a variant (Tag lines)');
        const c = this.ctorDecl();
        ctors.push(c);
        end = c.span;
        while (this.eat('op', '|')) ctors.push(this.ctorDecl());
        this.expectNewline(`the tag ${c.name}`);
      }
    }
    return fields.length || !ctors.length
      ? { k: 'type', name: n.v, fields, span: join(kw, end), nameSpan: n }
      : { k: 'type', name: n.v, ctors, span: join(kw, end), nameSpan: n };
  }

  private ctorDecl(): CtorDecl {
    const n = this.expectName('a tag name', 'calm');
    const fields: FieldDecl[] = [];
    let end: Span = n;
    if (this.eat('op', '{')) {
      while (!this.isOp('}')) {
        const f = this.expectName('a field name', `${n.v} { field: Natural }`);
        this.expectOp(':', `after the field ${f.v}`, `${f.v}: Natural`);
        const type = this.typeExpr();
        fields.push({ name: f.v, type, span: join(f, type.span) });
        if (!this.eat('op', ',')) break;
      }
      end = this.expectOp('}', `to close the fields of ${n.v}`);
    }
    return { name: n.v, fields, span: join(n, end) };
  }

  private typeExpr(): TypeExpr {
    this.enter(this.peek());
    try {
      const t = this.peek();
      if (t.k !== 'name')
        this.fail(t, `expected a type, but found ${this.describe(t)}`, 'Natural, Text, Boolean, Object, Principal, List Natural, or a type you declared');
      this.next();
      if (t.v === 'List') {
        const of = this.typeExpr();
        return { k: 'tlist', of, span: join(t, of.span) };
      }
      let name = t.v;
      let qual: string | undefined;
      let end: Span = t;
      if (this.isOp('.') && this.peek(1).k === 'name') {
        this.next();
        const n2 = this.next();
        qual = name;
        name = n2.v;
        end = n2;
      }
      const ty: TypeExpr = { k: 'tname', name, span: join(t, end) };
      if (qual !== undefined) ty.qual = qual;
      if (this.is('nat')) {
        const lo = this.next();
        this.expectOp('..', `between the bounds of ${name}`, `${name} ${lo.v}..80`);
        const hi = this.peek();
        if (hi.k !== 'nat') this.fail(hi, `expected the upper bound of ${name}, but found ${this.describe(hi)}`, `${name} ${lo.v}..80`);
        this.next();
        ty.min = BigInt(lo.v);
        ty.max = BigInt(hi.v);
        ty.span = join(t, hi);
      }
      return ty;
    } finally {
      this.leave();
    }
  }

  private fnDecl(kind: 'def' | 'spell' | 'view'): Decl {
    const kw = this.next();
    const n = this.expectName(`a name after "${kind}"`, kind === 'def' ? 'def helper(n: Natural) -> Natural:' : `${kind} name(self: State) -> State:`);
    this.expectOp('(', `after the name ${n.v}`, `${kind} ${n.v}(self: State) -> State:`);
    const params: Param[] = [];
    while (!this.isOp(')')) {
      const p = this.expectName('a parameter name', 'n: Natural');
      this.expectOp(':', `after the parameter ${p.v}: every parameter has a type`, `${p.v}: Natural`);
      const type = this.typeExpr();
      params.push({ name: p.v, type, span: join(p, type.span) });
      if (!this.eat('op', ',')) break;
    }
    const close = this.expectOp(')', `to close the parameters of ${n.v}`);
    let ret: TypeExpr | null = null;
    if (this.eat('op', '->')) ret = this.typeExpr();
    const head = join(kw, ret ? ret.span : close);
    const body = this.block(`${kind} ${n.v}`);
    return { k: 'fn', kind, name: n.v, params, ret, body, span: head, nameSpan: n };
  }

  private lawDecl(): Decl {
    const kw = this.next();
    const saved = this.stage;
    this.stage = 'law';
    try {
      this.expectOp(':', 'after "law"', 'law:\n  name: predicate -- "reading"');
      this.expectNewline('law:');
      if (!this.eat('indent'))
        this.fail(this.peek(), 'the clauses of the law go on indented lines below "law:"', 'law:\n  full: self.fuel <= 10 -- "a lamp holds ten measures"');
      const clauses: Clause[] = [];
      while (!this.eat('dedent')) {
        if (this.eat('newline')) continue;
        if (this.is('eof')) break;
        clauses.push(this.clause('law'));
      }
      return { k: 'law', clauses, span: clauses.length ? join(kw, clauses[clauses.length - 1]!.span) : kw };
    } finally {
      this.stage = saved;
    }
  }

  /** `name: predicate -- "reading"` (a law clause or a want). */
  clause(what: 'law' | 'want'): Clause {
    const form = what === 'law' ? 'name: predicate -- "reading"' : 'want name: predicate -- "reading"';
    const n = this.expectName(`the name of a ${what === 'law' ? 'law clause' : 'want'}`, form);
    this.expectOp(':', `after the ${what === 'law' ? 'clause' : 'want'} name ${n.v}`, form);
    const pred = this.expr();
    this.expectOp('--', `before the reading of ${n.v}`, `${n.v}: ${'…'} -- "what it means, in words"`);
    const r = this.peek();
    if (r.k !== 'text' || !r.parts || r.parts.some((p) => p.src !== undefined))
      this.fail(r, `expected the reading of ${n.v} as plain text in quotes`, `-- "what it means, in words"`);
    this.next();
    const reading = r.parts!.map((p) => p.str ?? '').join('');
    const span = join(n, r);
    this.expectNewline(`the reading of ${n.v}`);
    return { name: n.v, pred, reading, text: this.lineText(n, r), span };
  }

  private ruleDecl(): Decl {
    const kw = this.next();
    const form = 'rule name: condition -> say "what happens"';
    const n = this.expectName('the name of a rule', form);
    this.expectOp(':', `after the rule name ${n.v}`, form);
    const cond = this.expr();
    this.expectOp('->', `after the condition of rule ${n.v}`, form);
    if (!this.eat('kw', 'say')) this.fail(this.peek(), `a rule says something when it fires; expected "say", but found ${this.describe(this.peek())}`, form);
    const say = this.expr();
    const span = join(kw, say.span);
    this.expectNewline(`rule ${n.v}`);
    return { k: 'rule', name: n.v, cond, say, text: this.lineText(kw, say.span), span };
  }

  // ---- statements ---------------------------------------------------------------------------
  private block(what: string): Stmt[] {
    if (this.isOp('=')) this.fail(this.peek(), 'a single "=" assigns; to compare, write "=="', 'a == b');
    const colon = this.expectOp(':', `to begin the body of ${what}`, `${what}:`);
    if (!this.is('newline')) {
      // A one-line body: `if x: return y`
      return [this.simpleStmt()];
    }
    this.next();
    if (!this.is('indent')) this.fail(this.peek(), `the body of ${what} goes on indented lines below it`, `${what}:\n  return …`);
    this.enter(colon);
    try {
      this.next();
      const body: Stmt[] = [];
      while (!this.eat('dedent')) {
        if (this.eat('newline')) continue;
        if (this.is('eof')) break;
        body.push(this.stmt());
      }
      return body;
    } finally {
      this.leave();
    }
  }

  private stmt(): Stmt {
    const t = this.peek();
    if (t.k === 'kw') {
      switch (t.v) {
        case 'if':
          return this.ifStmt();
        case 'match':
          return this.matchStmt();
        case 'for': {
          this.next();
          const n = this.expectName('a loop variable after "for"', 'for item in list:');
          if (!this.eat('kw', 'in')) this.fail(this.peek(), `expected "in" after "for ${n.v}"`, `for ${n.v} in list:`);
          const first = this.expr();
          if (this.eat('op', '..')) {
            const to = this.expr();
            const body = this.block(`for ${n.v} in …`);
            return { k: 'for', name: n.v, from: first, to, body, span: join(t, to.span) };
          }
          const body = this.block(`for ${n.v} in …`);
          return { k: 'for', name: n.v, list: first, body, span: join(t, first.span) };
        }
        case 'while': {
          this.next();
          const cond = this.expr();
          const body = this.block('while …');
          return { k: 'while', cond, body, span: join(t, cond.span) };
        }
      }
    }
    return this.simpleStmt();
  }

  private simpleStmt(): Stmt {
    const t = this.peek();
    const s = this.simpleStmtInner(t);
    this.expectNewline(t.k === 'kw' ? `"${t.v}"` : 'the statement');
    return s;
  }

  private simpleStmtInner(t: Token): Stmt {
    if (t.k === 'kw') {
      switch (t.v) {
        case 'let': {
          this.next();
          const n = this.expectName('a name after "let"', 'let total = 0');
          let type: TypeExpr | undefined;
          if (this.eat('op', ':')) type = this.typeExpr();
          this.expectOp('=', `after "let ${n.v}"`, `let ${n.v} = …`);
          const value = this.expr();
          const s: Stmt = { k: 'let', name: n.v, value, span: join(t, value.span) };
          if (type) s.type = type;
          return s;
        }
        case 'return': {
          this.next();
          if (this.is('newline') || this.is('eof') || this.is('dedent')) return { k: 'return', span: t };
          const value = this.expr();
          return { k: 'return', value, span: join(t, value.span) };
        }
        case 'say': {
          this.next();
          const value = this.expr();
          return { k: 'say', value, span: join(t, value.span) };
        }
        case 'result': {
          this.next();
          const value = this.expr();
          return { k: 'result', value, span: join(t, value.span) };
        }
        case 'pass':
          this.next();
          return { k: 'pass', span: t };
        case 'send': {
          this.next();
          const form = 'send target.method { field: value }';
          const target = this.postfix(false);
          if (target.k !== 'field') this.fail(target.span, 'a send names the card and the method: target.method', form);
          const arg = this.isOp('{') ? this.primary() : undefined;
          if (!arg)
            this.fail(
              this.peek(),
              `expected the argument of the send as a record in braces, but found ${this.describe(this.peek())}`,
              `send ${'…'}.${target.name} { field: value }`,
            );
          return { k: 'send', target: target.obj, method: target.name, arg, span: join(t, arg.span) };
        }
        case 'make': {
          this.next();
          const n = this.expectName('the kind to make after "make"', 'make note { text: "hello" }');
          if (this.isOp('{')) {
            const seed = this.primary();
            return { k: 'make', kind: n.v, seed, span: join(t, seed.span) };
          }
          return { k: 'make', kind: n.v, span: join(t, n) };
        }
        case 'refuse': {
          this.next();
          const form = 'refuse "clause" "what went wrong, in words"';
          const c = this.peek();
          let clause: string;
          let cls: 'absentItem' | 'duplicateKey' | 'keyTaken' | undefined;
          if (c.k === 'text' && c.parts && c.parts.every((p) => p.src === undefined)) {
            clause = c.parts.map((p) => p.str ?? '').join('');
            if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(clause)) this.fail(c, `a refusal's clause is one short word, not "${clause.slice(0, 40)}"`, form);
          } else if (c.k === 'name' && refuseClasses.has(c.v)) {
            clause = c.v;
            cls = c.v as typeof cls;
          } else
            this.fail(c, `expected the clause of the refusal as a word in quotes (or absentItem, duplicateKey, keyTaken), but found ${this.describe(c)}`, form);
          this.next();
          const reading = this.expr();
          const s: Stmt = { k: 'refuse', clause, reading, span: join(t, reading.span) };
          if (cls) s.cls = cls;
          return s;
        }
        case 'if':
        case 'match':
        case 'for':
        case 'while':
          this.fail(t, `"${t.v}" begins a block and goes on its own line`);
        // falls through: fail never returns
        default:
          if (['use', 'type', 'def', 'spell', 'view', 'law', 'want', 'rule'].includes(t.v)) {
            this.fail(
              t,
              `"${t.v}" declares something and belongs at the left margin, not inside a body`,
              'move it out of the body, or fix the indentation of the line before',
            );
          }
      }
    }
    const target = this.expr();
    if (this.isOp('=')) {
      this.next();
      const value = this.expr();
      return { k: 'assign', target, value, span: join(target.span, value.span) };
    }
    if (target.k === 'name' && this.peek().k === 'name') {
      this.fail(this.peek(), `unexpected ${this.describe(this.peek())} after ${target.name}`, target.name === 'else' ? 'else:' : undefined);
    }
    this.fail(target.span, 'an expression alone does nothing here', 'assign it (name = …), return it, say it or send it');
  }

  private ifStmt(): Stmt {
    const t = this.next();
    const branches: { cond: Expr; body: Stmt[] }[] = [];
    const cond = this.expr();
    branches.push({ cond, body: this.block('if …') });
    let otherwise: Stmt[] | undefined;
    while (true) {
      if (this.isKw('elif')) {
        this.next();
        const c = this.expr();
        branches.push({ cond: c, body: this.block('elif …') });
        continue;
      }
      if (this.isKw('else')) {
        this.next();
        if (this.isKw('if')) this.fail(this.peek(), '"else if" is written "elif"', 'elif condition:');
        otherwise = this.block('else');
      }
      break;
    }
    const s: Stmt = { k: 'if', branches, span: join(t, cond.span) };
    if (otherwise) s.otherwise = otherwise;
    return s;
  }

  private matchStmt(): Stmt {
    const t = this.next();
    const subject = this.expr();
    this.expectOp(':', 'after the value to match', 'match value:\n  case tag:\n    …');
    this.expectNewline('match …:');
    if (!this.eat('indent')) this.fail(this.peek(), 'the cases of a match go on indented lines below it', 'match value:\n  case tag:\n    …');
    const cases: Case[] = [];
    this.enter(t);
    try {
      while (!this.eat('dedent')) {
        if (this.eat('newline')) continue;
        if (this.is('eof')) break;
        const c = this.peek();
        if (!this.eat('kw', 'case')) this.fail(c, `expected "case", but found ${this.describe(c)}`, 'case tag:');
        let ctor: string;
        let end: Span;
        if (this.isOp('_')) {
          end = this.next();
          ctor = '_';
        } else {
          const n = this.expectName('a tag after "case" (or _ for the rest)', 'case tag:');
          ctor = n.v;
          end = n;
        }
        const binds: { name: string; span: Span }[] = [];
        if (ctor !== '_' && this.eat('op', '{')) {
          while (!this.isOp('}')) {
            const b = this.expectName('a field name to bind', `case ${ctor} { field }:`);
            binds.push({ name: b.v, span: b });
            if (!this.eat('op', ',')) break;
          }
          end = this.expectOp('}', `to close the fields of case ${ctor}`);
        }
        const body = this.block(`case ${ctor}`);
        cases.push({ ctor, binds, body, span: join(c, end) });
      }
    } finally {
      this.leave();
    }
    if (!cases.length) this.fail(t, 'a match needs at least one case', 'case tag:');
    return { k: 'match', subject, cases, span: join(t, subject.span) };
  }

  // ---- expressions --------------------------------------------------------------------------
  expr(): Expr {
    this.enter(this.peek());
    try {
      return this.orExpr();
    } finally {
      this.leave();
    }
  }

  private orExpr(): Expr {
    let l = this.andExpr();
    while (this.isKw('or')) {
      this.next();
      const r = this.andExpr();
      l = { k: 'bin', op: 'or', l, r, span: join(l.span, r.span) };
    }
    return l;
  }

  private andExpr(): Expr {
    let l = this.notExpr();
    while (this.isKw('and')) {
      this.next();
      const r = this.notExpr();
      l = { k: 'bin', op: 'and', l, r, span: join(l.span, r.span) };
    }
    return l;
  }

  private notExpr(): Expr {
    const t = this.peek();
    if (t.k === 'kw' && t.v === 'not') {
      this.next();
      this.enter(t);
      try {
        const e = this.notExpr();
        return { k: 'not', e, span: join(t, e.span) };
      } finally {
        this.leave();
      }
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const l = this.additive();
    const t = this.peek();
    if (t.k === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(t.v)) {
      this.next();
      const r = this.additive();
      const n = this.peek();
      if (n.k === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(n.v)) {
        this.fail(n, 'comparisons do not chain', 'join them with "and": a < b and b < c');
      }
      return { k: 'bin', op: t.v as BinOp, l, r, span: join(l.span, r.span) };
    }
    return l;
  }

  private additive(): Expr {
    let l = this.multiplicative();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next().v as BinOp;
      const r = this.multiplicative();
      l = { k: 'bin', op, l, r, span: join(l.span, r.span) };
    }
    return l;
  }

  private multiplicative(): Expr {
    let l = this.postfix(true);
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = this.next().v as BinOp;
      const r = this.postfix(true);
      l = { k: 'bin', op, l, r, span: join(l.span, r.span) };
    }
    return l;
  }

  private postfix(withUpdate: boolean): Expr {
    let e = this.primary();
    let links = 0;
    while (true) {
      if (++links > maxNesting) this.fail(e.span, `this chain is longer than ${maxNesting} links`, 'break it up with let');
      if (this.isOp('.')) {
        this.next();
        const n = this.peek();
        if (n.k !== 'name') this.fail(n, `expected a field name after ".", but found ${this.describe(n)}`, 'self.field');
        this.next();
        e = { k: 'field', obj: e, name: n.v, span: join(e.span, n), nameSpan: n };
        continue;
      }
      if (this.isOp('[')) {
        this.next();
        const index = this.expr();
        const close = this.expectOp(']', 'to close the index', 'list[0]');
        e = { k: 'index', obj: e, index, span: join(e.span, close) };
        continue;
      }
      if (this.isOp('(')) {
        this.next();
        const args: Expr[] = [];
        while (!this.isOp(')')) {
          args.push(this.expr());
          if (!this.eat('op', ',')) break;
        }
        const close = this.expectOp(')', 'to close the arguments', 'name(a, b)');
        e = { k: 'call', fn: e, args, span: join(e.span, close) };
        continue;
      }
      if (withUpdate && this.isOp('{')) {
        const r = this.recordFields();
        e = { k: 'with', target: e, fields: r.fields, span: join(e.span, r.end) };
        continue;
      }
      return e;
    }
  }

  private recordFields(): { fields: FieldInit[]; end: Span } {
    const open = this.expectOp('{', 'to begin a record');
    this.enter(open);
    try {
      const fields: FieldInit[] = [];
      while (!this.isOp('}')) {
        const n = this.expectName('a field name', '{ field: value }');
        this.expectOp(':', `after the field ${n.v}`, `${n.v}: value`);
        const value = this.expr();
        fields.push({ name: n.v, value, span: join(n, value.span) });
        if (!this.eat('op', ',')) break;
      }
      const end = this.expectOp('}', 'to close the record', '{ field: value, other: value }');
      return { fields, end };
    } finally {
      this.leave();
    }
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.k) {
      case 'nat':
        this.next();
        return { k: 'nat', value: t.n!, span: t };
      case 'text':
        this.next();
        return this.textExpr(t);
      case 'name':
        this.next();
        return { k: 'name', name: t.v, span: t };
      case 'kw':
        if (t.v === 'true' || t.v === 'false') {
          this.next();
          return { k: 'bool', value: t.v === 'true', span: t };
        }
        break;
      case 'op':
        if (t.v === '(') {
          this.next();
          this.enter(t);
          try {
            const e = this.expr();
            this.expectOp(')', 'to close the parenthesis');
            return e;
          } finally {
            this.leave();
          }
        }
        if (t.v === '[') {
          this.next();
          this.enter(t);
          try {
            const items: Expr[] = [];
            while (!this.isOp(']')) {
              items.push(this.expr());
              if (!this.eat('op', ',')) break;
            }
            const close = this.expectOp(']', 'to close the list', '[a, b, c]');
            return { k: 'list', items, span: join(t, close) };
          } finally {
            this.leave();
          }
        }
        if (t.v === '{') {
          const r = this.recordFields();
          return { k: 'anon', fields: r.fields, span: join(t, r.end) };
        }
        if (t.v === '-' && this.peek(1).k === 'nat') {
          this.fail(t, 'naturals are never negative', 'count from zero up');
        }
        break;
    }
    this.fail(t, `expected a value, but found ${this.describe(t)}`);
  }

  private textExpr(t: Token): Expr {
    const parts: (string | Expr)[] = [];
    for (const p of t.parts ?? []) {
      if (p.str !== undefined) {
        parts.push(p.str);
        continue;
      }
      const toks = lexHole(p.src!, p.line, p.col);
      const sub = new Parser(toks, this.lines);
      sub.depth = this.depth;
      sub.stage = this.stage;
      sub.hole = true;
      const e = sub.expr();
      if (!sub.is('eof')) sub.fail(sub.peek(), `unexpected ${sub.describe(sub.peek())} in a text hole`, '{expression}');
      parts.push(e);
    }
    return { k: 'text', parts, span: t };
  }

  /** For the law text given beside a package: clauses one a line, with or without `law:`. */
  lawText(): Clause[] {
    this.stage = 'law';
    const clauses: Clause[] = [];
    while (this.eat('newline')) {
      /* skip */
    }
    if (this.isKw('law')) {
      const d = this.lawDecl();
      if (d.k === 'law') clauses.push(...d.clauses);
    } else {
      while (!this.is('eof')) {
        if (this.eat('newline')) continue;
        if (this.is('indent') || this.is('dedent')) this.fail(this.peek(), 'law clauses stand one a line at the left margin', 'name: predicate -- "reading"');
        clauses.push(this.clause('law'));
      }
    }
    while (this.eat('newline')) {
      /* skip */
    }
    if (!this.is('eof')) this.fail(this.peek(), `unexpected ${this.describe(this.peek())} after the law`, 'name: predicate -- "reading"');
    return clauses;
  }
}

/** Parses one module; on a syntax error returns the diagnostic instead of a tree. */
export function parseModule(name: string, source: string, diags: Diags): ModuleAst | undefined {
  try {
    const toks = lex(source);
    return new Parser(toks, source.split('\n')).module(name);
  } catch (e) {
    if (e instanceof StopParse) {
      diags.add(e.stage, e.span, e.message, e.hint, 0);
      return undefined;
    }
    throw e;
  }
}

/** Parses law text given beside a package (stage `law`). */
export function parseLawText(source: string, diags: Diags): Clause[] | undefined {
  try {
    const toks = lex(source);
    return new Parser(toks, source.split('\n')).lawText();
  } catch (e) {
    if (e instanceof StopParse) {
      diags.add('law', e.span, e.message, e.hint, 0);
      return undefined;
    }
    throw e;
  }
}

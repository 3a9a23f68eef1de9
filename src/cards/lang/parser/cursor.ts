/**
 * The parser's place in the token stream: reading tokens, expecting the ones the grammar needs
 * (and failing with the form wanted when they are not there), and counting nesting so no
 * source can exhaust the JS stack. The grammar (declarations, statements, expressions) is a set
 * of functions over one cursor.
 */
import type { Stage } from '../../program.js';
import { StopParse, type Span } from '../diagnostics.js';
import type { Token } from '../lexer.js';

/** Deepest nesting of expressions and blocks a source may use. */
export const maxNesting = 48;

export class Cursor {
  private pos = 0;
  depth = 0;
  stage: Stage = 'parse';
  /** Parsing the inside of a `{…}` hole in text. */
  hole = false;

  constructor(
    private readonly toks: Token[],
    readonly lines: string[],
  ) {}

  peek(o = 0): Token {
    return this.toks[Math.min(this.pos + o, this.toks.length - 1)]!;
  }
  next(): Token {
    const t = this.peek();
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }
  is(k: Token['k'], v?: string): boolean {
    const t = this.peek();
    return t.k === k && (v === undefined || t.v === v);
  }
  isOp(v: string): boolean {
    return this.is('op', v);
  }
  isKw(v: string): boolean {
    return this.is('kw', v);
  }
  eat(k: Token['k'], v?: string): Token | undefined {
    return this.is(k, v) ? this.next() : undefined;
  }
  fail(at: Span, message: string, hint?: string): never {
    throw new StopParse(this.stage, at, message, hint);
  }
  describe(t: Token): string {
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
  expectOp(v: string, what: string, hint?: string): Token {
    const t = this.peek();
    if (t.k === 'op' && t.v === v) return this.next();
    this.fail(t, `expected "${v}" ${what}, but found ${this.describe(t)}`, hint);
  }
  expectName(what: string, hint?: string): Token {
    const t = this.peek();
    if (t.k === 'name') return this.next();
    if (t.k === 'kw') this.fail(t, `"${t.v}" is a word of the language and cannot be used as ${what}`, hint ?? 'choose another name');
    this.fail(t, `expected ${what}, but found ${this.describe(t)}`, hint);
  }
  expectNewline(what: string): void {
    const t = this.peek();
    if (t.k === 'newline') {
      this.next();
      return;
    }
    if (t.k === 'eof' || t.k === 'dedent') return;
    this.fail(t, `expected the end of the line after ${what}, but found ${this.describe(t)}`);
  }
  enter(at: Span): void {
    if (++this.depth > maxNesting) this.fail(at, `this is nested more than ${maxNesting} deep`, 'split it into smaller defs');
  }
  leave(): void {
    this.depth--;
  }
  /** The source lines from `from` to `to`, trimmed and joined: a clause's text as written. */
  lineText(from: Span, to: Span): string {
    const out: string[] = [];
    for (let l = from.line; l <= to.endLine; l++) out.push((this.lines[l - 1] ?? '').trim());
    return out.join(' ');
  }
}

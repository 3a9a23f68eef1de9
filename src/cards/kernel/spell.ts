/**
 * The spell parser: the text a guest casts (to `receive`, or from the /play box) into casts.
 *
 *   spell  := [target ':'] method item* ['--' reading]
 *   target := card-id | '{made' N '}'
 *   item   := name '=' value | value
 *   value  := natural | word | "quoted text" | '{' (name '=' value)* '}' | '[' value* ']' | '{made' N '}'
 *   plan   := 'plan' '{' spell (';' | newline) spell … '}'
 *
 * It knows no card: which fields a method takes is checked later (fields.ts). It never throws on
 * any input; every failure is a badSpell clause with a reason naming the column.
 */
import type { BadSpellClause } from '../../contract/errors.js';

export type SpellValue =
  | { t: 'natural'; text: string }
  | { t: 'word'; text: string }
  | { t: 'text'; text: string }
  | { t: 'record'; fields: { name: string; value: SpellValue }[] }
  | { t: 'list'; items: SpellValue[] }
  | { t: 'made'; n: number };

export interface SpellItem {
  /** Absent for a value given without a name (positional). */
  name?: string;
  value: SpellValue;
  /** 1-based column. */
  at: number;
}

export type SpellTarget = { t: 'card'; id: string } | { t: 'made'; n: number };

export interface Cast {
  kind: 'cast';
  target?: SpellTarget;
  method: string;
  items: SpellItem[];
  /** Text after ` -- ` (the reading of a moderation power). */
  reading?: string;
  at: number;
}

export interface Plan {
  kind: 'plan';
  target?: SpellTarget;
  acts: Cast[];
  at: number;
}

export type Spell = Cast | Plan;

export interface SpellFault {
  clause: BadSpellClause;
  reason: string;
}

export type ParseResult = { ok: true; spell: Spell } | { ok: false; fault: SpellFault };

/** Deeper nesting than this is refused, so no input can exhaust the stack. */
export const maxSpellDepth = 32;
/** Longest spell text the parser reads. */
export const maxSpellLength = 65536;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DIGITS = /^[0-9]+$/;
const STRUCTURAL = new Set(['=', '{', '}', '[', ']', '"', ',', ';', '<', '>', '\n']);
const QUOTE_LOOKALIKES = new Set(["'", '\u2018', '\u2019', '\u201c', '\u201d', '`']);

class Fault extends Error {
  constructor(
    readonly clause: BadSpellClause,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Parses exactly one spell (a plan counts as one); more than one is `tooManySpells`. */
export function parseSpell(text: string): ParseResult {
  try {
    if (text.length > maxSpellLength) throw new Fault('badValue', `a spell is at most ${maxSpellLength} characters`);
    const p = new Parser(text);
    const spells = p.spells(false);
    if (spells.length === 0) throw new Fault('noAction', 'the text names no spell');
    if (spells.length > 1) {
      throw new Fault(
        'tooManySpells',
        `one spell at a time: this text holds ${spells.length} (column ${spells[1]!.at}); cast them one by one, or as a plan { … }`,
      );
    }
    return { ok: true, spell: spells[0]! };
  } catch (e) {
    if (e instanceof Fault) return { ok: false, fault: { clause: e.clause, reason: e.reason } };
    throw e;
  }
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  private col(at = this.i): number {
    return at + 1;
  }

  private peek(): string | undefined {
    return this.s[this.i];
  }

  /** Skips spaces and tabs (not newlines, which separate spells). */
  private blank(): void {
    while (this.i < this.s.length && (this.s[this.i] === ' ' || this.s[this.i] === '\t' || this.s[this.i] === '\r')) this.i++;
  }

  /** Spells separated by `;` or newlines, up to the end (or a `}` closing a plan). */
  spells(inPlan: boolean): Spell[] {
    const out: Spell[] = [];
    for (;;) {
      this.blank();
      const c = this.peek();
      if (c === undefined) {
        if (inPlan) throw new Fault('unclosedBlock', 'the plan opened with `{` is never closed with `}`');
        return out;
      }
      if (c === ';' || c === '\n') {
        this.i++;
        continue;
      }
      if (c === '}') {
        if (inPlan) return out;
        throw new Fault('unclosedBlock', `a \`}\` at column ${this.col()} closes nothing`);
      }
      out.push(this.spell(inPlan));
    }
  }

  private spell(inPlan: boolean): Spell {
    const at = this.col();
    let target: SpellTarget | undefined;
    if (this.peek() === '{') {
      const made = this.madeRef();
      if (!made) throw new Fault('noAction', `column ${at}: a spell begins with the name of its method`);
      this.blank();
      if (this.peek() !== ':') throw new Fault('noAction', `column ${at}: \`{made ${made.n}}\` must be followed by \`:\` and a method`);
      this.i++;
      target = made;
      this.blank();
    }
    let word = this.word();
    if (!word) throw this.unexpected('a method name');
    if (!target && word.endsWith(':') && word.length > 1) {
      target = { t: 'card', id: word.slice(0, -1) };
      this.blank();
      word = this.word();
      if (!word) throw this.unexpected(`a method name after \`${target.id}:\``);
    }
    if (!NAME.test(word)) throw new Fault('noAction', `column ${at}: \`${clip(word)}\` is not a method name (letters, digits and _)`);
    if (word === 'plan') {
      this.blank();
      if (this.peek() === '{') {
        if (inPlan) throw new Fault('notInPlan', `column ${at}: a plan cannot hold another plan`);
        this.i++;
        const acts = this.spells(true);
        this.i++; // the closing brace
        this.expectEndOfSpell();
        return { kind: 'plan', ...(target ? { target } : {}), acts: acts as Cast[], at };
      }
    }
    const items: SpellItem[] = [];
    let reading: string | undefined;
    for (;;) {
      this.blank();
      const c = this.peek();
      if (c === undefined || c === ';' || c === '\n' || c === '}') break;
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === '-' && this.s.startsWith('--', this.i) && /[\s]|$/.test(this.s[this.i + 2] ?? '')) {
        this.i += 2;
        reading = this.reading();
        break;
      }
      items.push(this.item());
    }
    return { kind: 'cast', ...(target ? { target } : {}), method: word, items, ...(reading !== undefined ? { reading } : {}), at };
  }

  private expectEndOfSpell(): void {
    this.blank();
    const c = this.peek();
    if (c !== undefined && c !== ';' && c !== '\n') throw new Fault('badValue', `column ${this.col()}: nothing may follow a plan's closing \`}\``);
  }

  /** The rest of the line, unquoted if it is one quoted text. */
  private reading(): string {
    this.blank();
    if (this.peek() === '"') {
      const text = this.quoted();
      this.blank();
      const c = this.peek();
      if (c !== undefined && c !== ';' && c !== '\n' && c !== '}') throw new Fault('quotation', `column ${this.col()}: text follows the quoted reading`);
      return text;
    }
    const start = this.i;
    while (this.i < this.s.length && this.s[this.i] !== '\n' && this.s[this.i] !== ';' && this.s[this.i] !== '}') this.i++;
    return this.s.slice(start, this.i).trim();
  }

  private item(): SpellItem {
    const at = this.col();
    const start = this.i;
    const word = this.word();
    if (word && this.peek() === '=') {
      if (!NAME.test(word)) throw new Fault('unknownField', `column ${at}: \`${clip(word)}\` is not a field name`);
      this.i++;
      if (this.peek() === ' ' || this.peek() === '\t' || this.peek() === undefined || this.peek() === '\n' || this.peek() === ';') {
        throw new Fault('badValue', `column ${this.col()}: \`${word}=\` is missing its value`);
      }
      return { name: word, value: this.value(0), at };
    }
    this.i = start;
    return { value: this.value(0), at };
  }

  value(depth: number): SpellValue {
    if (depth > maxSpellDepth) throw new Fault('badValue', `column ${this.col()}: values nest at most ${maxSpellDepth} deep`);
    const c = this.peek();
    if (c === undefined) throw this.unexpected('a value');
    if (c === '"') return { t: 'text', text: this.quoted() };
    if (c === '<') throw this.hole();
    if (c === '{') {
      const made = this.madeRef();
      if (made) return made;
      return this.record(depth);
    }
    if (c === '[') return this.list(depth);
    const w = this.word();
    if (!w) throw this.unexpected('a value');
    return DIGITS.test(w) ? { t: 'natural', text: w.replace(/^0+(?=\d)/, '') } : { t: 'word', text: w };
  }

  /** `{made N}` at the cursor, consumed; otherwise undefined and the cursor unmoved. */
  private madeRef(): { t: 'made'; n: number } | undefined {
    const m = /^\{[ \t]*made[ \t]+([0-9]{1,6})[ \t]*\}/.exec(this.s.slice(this.i, this.i + 24));
    if (!m) return undefined;
    this.i += m[0].length;
    return { t: 'made', n: Number(m[1]) };
  }

  private record(depth: number): SpellValue {
    const open = this.col();
    this.i++;
    const fields: { name: string; value: SpellValue }[] = [];
    const seen = new Set<string>();
    for (;;) {
      this.skipInside(open, '}');
      if (this.peek() === '}') {
        this.i++;
        return { t: 'record', fields };
      }
      const at = this.col();
      const name = this.word();
      if (!name) throw this.unexpected('a field name inside `{…}`');
      if (this.peek() !== '=') throw new Fault('badValue', `column ${at}: inside \`{…}\` each field is written name=value`);
      if (!NAME.test(name)) throw new Fault('unknownField', `column ${at}: \`${clip(name)}\` is not a field name`);
      if (seen.has(name)) throw new Fault('duplicateField', `column ${at}: \`${name}\` is given twice in one record`);
      seen.add(name);
      this.i++;
      fields.push({ name, value: this.value(depth + 1) });
    }
  }

  private list(depth: number): SpellValue {
    const open = this.col();
    this.i++;
    const items: SpellValue[] = [];
    for (;;) {
      this.skipInside(open, ']');
      if (this.peek() === ']') {
        this.i++;
        return { t: 'list', items };
      }
      items.push(this.value(depth + 1));
    }
  }

  /** Blanks, newlines and commas inside a block; the end of text means the block never closed. */
  private skipInside(open: number, close: string): void {
    while (this.i < this.s.length && /[\s,]/.test(this.s[this.i]!)) this.i++;
    if (this.i >= this.s.length) throw new Fault('unclosedBlock', `the \`${close === '}' ? '{' : '['}\` at column ${open} is never closed with \`${close}\``);
    const c = this.s[this.i]!;
    if ((c === '}' || c === ']') && c !== close)
      throw new Fault('unclosedBlock', `column ${this.col()}: \`${c}\` where the \`${close === '}' ? '{' : '['}\` at column ${open} wants \`${close}\``);
    if (c === ';') throw new Fault('unclosedBlock', `column ${this.col()}: \`;\` inside the block opened at column ${open}`);
  }

  /** A bare word: everything up to a blank or a structural character. */
  private word(): string {
    const start = this.i;
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === ' ' || c === '\t' || c === '\r' || STRUCTURAL.has(c)) break;
      if (QUOTE_LOOKALIKES.has(c)) throw new Fault('quotation', `column ${this.col()}: text is quoted with straight double quotes "…", not ${c}`);
      this.i++;
    }
    return this.s.slice(start, this.i);
  }

  private quoted(): string {
    const open = this.col();
    this.i++;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) throw new Fault('quotation', `the quote opened at column ${open} is never closed`);
      const c = this.s[this.i]!;
      if (c === '"') {
        this.i++;
        const next = this.peek();
        if (next !== undefined && !/[\s;,}\]]/.test(next)) {
          throw new Fault('quotation', `column ${this.col()}: a closing quote must be followed by a blank`);
        }
        return out;
      }
      if (c === '\\') {
        const e = this.s[this.i + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t', r: '\r' };
        if (e !== undefined && Object.hasOwn(simple, e)) {
          out += simple[e];
          this.i += 2;
          continue;
        }
        if (e === 'u') {
          const m = /^u(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/.exec(this.s.slice(this.i + 1, this.i + 10));
          const code = m ? parseInt(m[1] ?? m[2]!, 16) : NaN;
          if (!m || code > 0x10ffff) throw new Fault('quotation', `column ${this.col()}: \\u takes four hex digits or {hex} up to 10FFFF`);
          out += String.fromCodePoint(code);
          this.i += 1 + m[0].length;
          continue;
        }
        throw new Fault('quotation', `column ${this.col()}: unknown escape \\${e ?? ''} (known: \\" \\\\ \\n \\t \\r \\/ \\uXXXX)`);
      }
      out += c;
      this.i++;
    }
  }

  private hole(): Fault {
    const start = this.i;
    const end = this.s.indexOf('>', start);
    const blank = end < 0 ? this.s.slice(start, start + 40) : this.s.slice(start, end + 1);
    return new Fault('hole', `column ${this.col(start)}: the blank ${clip(blank)} is still in the spell; put a value in its place`);
  }

  private unexpected(wanted: string): Fault {
    const c = this.peek();
    if (c === undefined) return new Fault('badValue', `the spell ends where ${wanted} was wanted`);
    if (c === '<') return this.hole();
    if (c === '"') return new Fault('quotation', `column ${this.col()}: quoted text where ${wanted} was wanted`);
    if (c === '>') return new Fault('hole', `column ${this.col()}: a stray \`>\`: is a blank <…> half filled in?`);
    if (c === '=') return new Fault('badValue', `column ${this.col()}: \`=\` with no field name before it`);
    if (c === ']' || c === '}') return new Fault('unclosedBlock', `column ${this.col()}: \`${c}\` closes nothing`);
    if (c === '[' || c === '{') return new Fault('badValue', `column ${this.col()}: a block where ${wanted} was wanted`);
    return new Fault('badValue', `column ${this.col()}: \`${clip(c)}\` where ${wanted} was wanted`);
  }
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}…` : s;
}

/** Writes a value back as spell text (hints, lines). */
export function showValue(v: SpellValue): string {
  switch (v.t) {
    case 'natural':
    case 'word':
      return v.text;
    case 'text':
      return JSON.stringify(v.text);
    case 'made':
      return `{made ${v.n}}`;
    case 'list':
      return `[${v.items.map(showValue).join(' ')}]`;
    case 'record':
      return `{${v.fields.map((f) => `${f.name}=${showValue(f.value)}`).join(' ')}}`;
  }
}

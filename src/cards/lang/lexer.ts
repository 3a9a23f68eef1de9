/**
 * The lexer: source text to tokens, with Python-style NEWLINE / INDENT / DEDENT tokens for
 * the block structure. Inside brackets line breaks are ignored. Text literals keep their
 * `{…}` holes as raw source with a position; the parser lexes each hole on its own.
 */
import { StopParse, type Span } from './diagnostics.js';

export type TokenKind = 'name' | 'kw' | 'nat' | 'text' | 'op' | 'newline' | 'indent' | 'dedent' | 'eof';

export interface TextPart {
  /** A literal piece, or the raw source of a `{…}` hole with where it starts. */
  str?: string;
  src?: string;
  line: number;
  col: number;
}

export interface Token extends Span {
  k: TokenKind;
  v: string;
  parts?: TextPart[];
  /** The natural's value, for `nat` tokens. */
  n?: number | bigint;
}

export const keywords = new Set([
  'use',
  'type',
  'def',
  'spell',
  'view',
  'law',
  'want',
  'rule',
  'let',
  'if',
  'elif',
  'else',
  'match',
  'case',
  'for',
  'in',
  'while',
  'return',
  'say',
  'send',
  'make',
  'refuse',
  'result',
  'and',
  'or',
  'not',
  'true',
  'false',
  'pass',
  'break',
  'continue',
]);

const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
const ops2 = new Set(['..', '->', '--', '==', '!=', '<=', '>=']);
const ops1 = new Set(['(', ')', '[', ']', '{', '}', ',', ':', '.', '=', '<', '>', '+', '-', '*', '/', '%', '|', '_']);

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isNameStart = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isNameChar = (c: string): boolean => isNameStart(c) || isDigit(c);

/** Longest source the lexer takes; the kernel refuses bigger modules long before (packageBytes). */
export const maxSourceChars = 1 << 20;

export function lex(src: string): Token[] {
  if (src.length > maxSourceChars) {
    throw new StopParse('parse', { line: 1, col: 1, endLine: 1, endCol: 2 }, `the module is ${src.length} characters long; at most ${maxSourceChars} are read`);
  }
  const out: Token[] = [];
  const indents: number[] = [0];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  let atLineStart = true;
  const brackets: Token[] = [];

  const span = (l: number, c: number, el: number, ec: number): Span => ({ line: l, col: c, endLine: el, endCol: ec });
  const here = (): Span => span(line, i - lineStart + 1, line, i - lineStart + 2);
  const push = (k: TokenKind, v: string, start: number): Token => {
    const t: Token = { k, v, line, col: start - lineStart + 1, endLine: line, endCol: i - lineStart + 1 };
    out.push(t);
    return t;
  };

  while (i < src.length) {
    if (atLineStart && depth === 0) {
      // Measure the indentation of a line that holds something.
      let j = i;
      let width = 0;
      while (j < src.length && (src[j] === ' ' || src[j] === '\t' || src[j] === '\r')) {
        if (src[j] === '\t') {
          throw new StopParse(
            'parse',
            span(line, j - lineStart + 1, line, j - lineStart + 2),
            'a tab in the indentation; indent with spaces',
            'indent each block by two spaces',
          );
        }
        if (src[j] === ' ') width++;
        j++;
      }
      if (j >= src.length) {
        i = j;
        break;
      }
      if (src[j] === '\n' || src[j] === '#') {
        // Blank or comment-only line: no block structure.
        i = j;
        while (i < src.length && src[i] !== '\n') i++;
        if (i < src.length) {
          i++;
          line++;
          lineStart = i;
        }
        continue;
      }
      i = j;
      atLineStart = false;
      const top = indents[indents.length - 1]!;
      if (width > top) {
        indents.push(width);
        out.push({ k: 'indent', v: '', line, col: 1, endLine: line, endCol: width + 1 });
      } else if (width < top) {
        while (width < indents[indents.length - 1]!) {
          indents.pop();
          out.push({ k: 'dedent', v: '', line, col: 1, endLine: line, endCol: width + 1 });
        }
        if (width !== indents[indents.length - 1]) {
          throw new StopParse(
            'parse',
            span(line, 1, line, width + 1),
            `this line is indented by ${width} spaces, which matches no enclosing block`,
            `indent it by ${indents[indents.length - 1]} spaces like the block it belongs to`,
          );
        }
      }
      continue;
    }
    const c = src[i]!;
    if (c === '\n') {
      if (depth === 0) {
        const last = out[out.length - 1];
        if (last && last.k !== 'newline') out.push({ k: 'newline', v: '', line, col: i - lineStart + 1, endLine: line, endCol: i - lineStart + 2 });
        atLineStart = true;
      }
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === ' ' || c === '\r' || c === '\t') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    if (isDigit(c)) {
      while (i < src.length && (isDigit(src[i]!) || (src[i] === '_' && isDigit(src[i + 1] ?? '')))) i++;
      if (i < src.length && isNameStart(src[i]!) && src[i] !== '_') {
        throw new StopParse(
          'parse',
          span(line, start - lineStart + 1, line, i - lineStart + 2),
          'a number runs into a name',
          'put a space between them, or start the name with a letter',
        );
      }
      let digits = src.slice(start, i);
      if (digits.includes('_')) digits = digits.replace(/_/g, '');
      let n: number | bigint;
      if (digits.length <= 15) n = Number(digits);
      else {
        const big = BigInt(digits);
        n = big <= maxSafe ? Number(big) : big;
      }
      push('nat', digits, start).n = n;
      continue;
    }
    if (isNameStart(c) && !(c === '_' && !isNameChar(src[i + 1] ?? ''))) {
      while (i < src.length && isNameChar(src[i]!)) i++;
      const word = src.slice(start, i);
      push(keywords.has(word) ? 'kw' : 'name', word, start);
      continue;
    }
    if (c === '"') {
      const startLine = line;
      const startCol = i - lineStart + 1;
      const parts = readText(src, i, line, lineStart);
      i = parts.end;
      out.push({ k: 'text', v: '', parts: parts.parts, line: startLine, col: startCol, endLine: line, endCol: i - lineStart + 1 });
      continue;
    }
    let op: string | undefined;
    const c2 = src[i + 1];
    if (c2 !== undefined && ops2.has(c + c2)) op = c + c2;
    else if (ops1.has(c)) op = c;
    if (op === undefined) {
      const shown = c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127 ? `character ${c.charCodeAt(0)}` : `"${c}"`;
      throw new StopParse(
        'parse',
        here(),
        `the ${shown} is not part of the card language`,
        c === "'" ? 'text is written in double quotes: "like this"' : undefined,
      );
    }
    i += op.length;
    const tok = push('op', op, start);
    if (op === '(' || op === '[' || op === '{') {
      depth++;
      brackets.push(tok);
    } else if (op === ')' || op === ']' || op === '}') {
      const open = brackets.pop();
      if (!open) throw new StopParse('parse', tok, `this "${op}" closes nothing`, 'remove it, or open what it closes');
      const want = open.v === '(' ? ')' : open.v === '[' ? ']' : '}';
      if (want !== op)
        throw new StopParse('parse', tok, `"${open.v}" at line ${open.line}, column ${open.col} is closed by "${op}"`, `close it with "${want}"`);
      depth--;
    }
  }
  if (brackets.length) {
    const open = brackets[brackets.length - 1]!;
    const want = open.v === '(' ? ')' : open.v === '[' ? ']' : '}';
    throw new StopParse('parse', open, `"${open.v}" is never closed`, `close it with "${want}"`);
  }
  const last = out[out.length - 1];
  if (last && last.k !== 'newline') out.push({ k: 'newline', v: '', line, col: i - lineStart + 1, endLine: line, endCol: i - lineStart + 1 });
  while (indents.length > 1) {
    indents.pop();
    out.push({ k: 'dedent', v: '', line, col: 1, endLine: line, endCol: 1 });
  }
  out.push({ k: 'eof', v: '', line, col: i - lineStart + 1, endLine: line, endCol: i - lineStart + 1 });
  return out;
}

/** Reads a text literal starting at the quote at `at`; holes are kept as raw source. */
function readText(src: string, at: number, line: number, lineStart: number): { parts: TextPart[]; end: number } {
  const parts: TextPart[] = [];
  let i = at + 1;
  let buf = '';
  const col = (k: number): number => k - lineStart + 1;
  const fail = (k: number, message: string, hint?: string, from = at): never => {
    throw new StopParse('parse', { line, col: col(from), endLine: line, endCol: col(k) + 1 }, message, hint);
  };
  while (true) {
    if (i >= src.length || src[i] === '\n') fail(i, 'this text is not closed before the end of the line', 'close it with a double quote: "like this"');
    const c = src[i]!;
    if (c === '"') {
      i++;
      break;
    }
    if (c === '\\' && src[i + 1] === 'u') {
      // \u{1F600}: a Unicode scalar value by its hex digits (1 to 6; no surrogate halves).
      const m = /^u\{([0-9A-Fa-f]{1,6})\}/.exec(src.slice(i + 1, i + 11));
      const code = m ? Number.parseInt(m[1]!, 16) : -1;
      if (!m || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        fail(
          i + 1,
          m ? `"\\${m[0]}" is not a Unicode character` : 'a \\u escape is written \\u{hex digits}',
          'write \\u{1F600}: 1 to 6 hex digits of a character, not a surrogate half',
          i,
        );
      buf += String.fromCodePoint(code);
      i += 1 + m![0].length;
      continue;
    }
    if (c === '\\') {
      const e = src[i + 1];
      const map: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', '{': '{', '}': '}' };
      if (e === undefined || !Object.hasOwn(map, e))
        fail(i + 1, `"\\${e ?? ''}" is not an escape the card language knows`, 'write \\n, \\t, \\", \\\\, \\{, \\} or \\u{1F600}', i);
      buf += map[e!];
      i += 2;
      continue;
    }
    if (c === '}') fail(i, 'a "}" inside text closes no hole', 'write \\} for a literal brace');
    if (c === '{') {
      if (buf) parts.push({ str: buf, line, col: col(i) });
      buf = '';
      const startHole = i + 1;
      const end = skipHole(src, startHole);
      if (end < 0) fail(i, 'a "{" hole in this text is not closed on this line', 'close the hole with "}", or write \\{ for a literal brace', i);
      const inner = src.slice(startHole, end);
      if (!inner.trim()) fail(end, 'an empty {} hole in text', 'put an expression inside, like {self.fuel}, or write \\{\\} for braces', i);
      parts.push({ src: inner, line, col: col(startHole) });
      i = end + 1;
      continue;
    }
    buf += c;
    i++;
  }
  if (buf || parts.length === 0) parts.push({ str: buf, line, col: col(at) });
  return { parts, end: i };
}

/** Finds the `}` closing a hole that starts at `i`, skipping nested braces and texts; -1 if none on this line. */
function skipHole(src: string, i: number): number {
  let depth = 0;
  while (i < src.length && src[i] !== '\n') {
    const c = src[i]!;
    if (c === '"') {
      i++;
      while (i < src.length && src[i] !== '"' && src[i] !== '\n') i += src[i] === '\\' ? 2 : 1;
      if (src[i] !== '"') return -1;
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return i;
      depth--;
    }
    i++;
  }
  return -1;
}

/** Lexes the source of one text hole as a bracketed expression (no block structure). */
export function lexHole(src: string, line: number, col: number): Token[] {
  let toks: Token[];
  try {
    toks = lex(`(${src})`);
  } catch (e) {
    if (e instanceof StopParse) {
      const shift = col - 2;
      throw new StopParse(e.stage, { line, col: e.span.col + shift, endLine: line, endCol: e.span.endCol + shift }, e.message, e.hint);
    }
    throw e;
  }
  // Drop the wrapping parens and the trailing newline/eof, and shift positions to the hole.
  const inner = toks.filter((t) => t.k !== 'newline' && t.k !== 'eof' && t.k !== 'indent' && t.k !== 'dedent').slice(1, -1);
  for (const t of inner) {
    t.col = t.col - 1 + col - 1;
    t.endCol = t.endCol - 1 + col - 1;
    t.line = line;
    t.endLine = line;
    if (t.parts)
      for (const part of t.parts) {
        // a text inside the hole: its own holes stand on the hole's line too
        part.col += col - 2;
        part.line = line;
      }
  }
  const end = { k: 'eof' as const, v: '', line, col: col + src.length, endLine: line, endCol: col + src.length };
  return [...inner, end];
}

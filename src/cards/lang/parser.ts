/**
 * The parser: tokens to a module tree. It stops at the first syntax error of a module and
 * reports it with the form wanted; nesting is capped so no source can exhaust the JS stack.
 * The grammar lives in parser/: declarations, statements, expressions and type expressions,
 * each a set of functions over one token cursor (parser/cursor.ts).
 */
import type { Clause, ModuleAst } from './ast.js';
import { type Diags, StopParse } from './diagnostics.js';
import { lex } from './lexer.js';
import { Cursor } from './parser/cursor.js';
import { lawText, moduleTree } from './parser/declarations.js';

/** Parses one module; on a syntax error returns the diagnostic instead of a tree. */
export function parseModule(name: string, source: string, diags: Diags): ModuleAst | undefined {
  try {
    const toks = lex(source);
    return moduleTree(new Cursor(toks, source.split('\n')), name);
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
    return lawText(new Cursor(toks, source.split('\n')));
  } catch (e) {
    if (e instanceof StopParse) {
      diags.add('law', e.span, e.message, e.hint, 0);
      return undefined;
    }
    throw e;
  }
}

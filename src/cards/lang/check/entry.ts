/**
 * Phase 4, the state: a card's state is what its entry def (`initial`, or the entry the
 * package names) returns, a record or a variant.
 */
import type { Decl } from '../ast.js';
import { noSpan } from '../diagnostics.js';
import { show, type Ty } from '../types.js';
import { type ModuleScope, report } from './scope.js';

/** The state type, or undefined when there is none (a helpers module) or it is wrong. */
export function checkEntry(m: ModuleScope, decls: Decl[], entry: string, needed: boolean): Ty | undefined {
  const initial = m.fns.get(entry);
  if (initial) {
    if (initial.kind !== 'def' || initial.params.length) {
      report(m, 'type', initial.span, `${entry} makes the first state: it is a def with no parameters`, `def ${entry}() -> ${show(initial.ret)}:`);
    } else if (initial.ret.k !== 'record' && initial.ret.k !== 'variant' && initial.ret.k !== 'err') {
      report(
        m,
        'type',
        initial.span,
        `the state of a card is a record or a variant, not ${show(initial.ret)}`,
        `type State:\n  field: ${show(initial.ret)}\n\ndef ${entry}() -> State:`,
      );
    } else return initial.ret;
  } else if (needed) {
    const first = decls.find((d) => d.k === 'fn') ?? decls[0];
    report(
      m,
      'type',
      first ? ('nameSpan' in first ? first.nameSpan : first.span) : noSpan,
      `${m.ast.name} has no def ${entry}(), so a card of it has no first state`,
      `def ${entry}() -> State:\n  return State { … }`,
    );
  }
  return undefined;
}

/**
 * The reply of the scratch `check` route (spec 4.3, POST scratch/{name}/check), and of
 * `npm run town -- card check --json`: every diagnostic of the earliest stage that found
 * anything, with its module, span, words and the form wanted. A request the kernel cannot check
 * at all (no modules, too many, one too large) is `hostRequest` instead.
 */
import * as t from 'io-ts';
import type { Outcome } from '../cards/kernel/outcome.js';
import type { Diagnostic } from '../cards/program.js';
import { hostRequestError } from './turn-reply.js';

export const StageC = t.keyof({ parse: null, resolve: null, type: null, stateType: null, migration: null, law: null });

/** One diagnostic; lines and columns are 1-based, the end exclusive; `hint` only when there is one. */
export const CheckDiagnosticC = t.intersection([
  t.type({
    stage: StageC,
    module: t.string,
    line: t.number,
    column: t.number,
    endLine: t.number,
    endColumn: t.number,
    message: t.string,
  }),
  t.partial({ hint: t.string }),
]);
export type CheckDiagnostic = t.TypeOf<typeof CheckDiagnosticC>;

/** `ok` is true exactly when there are no diagnostics. */
export const CheckReplyC = t.type({ status: t.literal('checked'), ok: t.boolean, diagnostics: t.array(CheckDiagnosticC) });
export type CheckReply = t.TypeOf<typeof CheckReplyC>;

export function checkReply(diagnostics: readonly Diagnostic[]): CheckReply {
  return {
    status: 'checked',
    ok: diagnostics.length === 0,
    diagnostics: diagnostics.map((d) => ({
      stage: d.stage,
      module: d.module,
      line: d.line,
      column: d.column,
      endLine: d.endLine,
      endColumn: d.endColumn,
      message: d.message,
      ...(d.hint !== undefined ? { hint: d.hint } : {}),
    })),
  };
}

/** The reply to a decided `check`; a rejected request is thrown as `hostRequest`. */
export function checkOutcomeReply(outcome: Outcome): CheckReply {
  if (outcome.kind === 'checked') return checkReply(outcome.diagnostics);
  if (outcome.kind === 'rejected') throw hostRequestError(outcome.error);
  throw new Error(`a check decided ${outcome.kind}`);
}

/**
 * Refusals as the kernel builds them (spec 7.2): a class from the refusal table plus the fields
 * that class carries. They end up flattened into the receipt.
 */
import { refusalClasses, type BadSpellClause, type RefusalClass } from '../../contract/errors.js';
import type { RunRefusal } from '../program.js';

export interface Refusal {
  class: RefusalClass;
  reason?: string;
  clause?: string;
  reading?: string;
  /** badSpell: the spell with blanks to resend. */
  hint?: string;
  /** typeMismatch: the form or signature wanted. */
  expected?: string;
  /** quiet, quota: the clock to retry at. */
  next?: number;
  /** duplicateIdentity: the first receipt's content id. */
  original?: string;
  /** requiredAbsence: who found the card present. */
  root?: string;
  object?: string;
}

export const badSpell = (clause: BadSpellClause, reason: string, hint?: string): Refusal => ({
  class: 'badSpell',
  clause,
  reason,
  ...(hint !== undefined ? { hint } : {}),
});

export const typeMismatch = (reason: string, expected: string): Refusal => ({ class: 'typeMismatch', reason, expected });

export const refusedReason = (clause: string, reading: string) => `refused ${clause}: ${reading}`;

/** The receipt's one line for a refusal. */
export function refusalLine(r: Refusal): string {
  if (r.class === 'cardRefused' || r.class === 'lawRefused') return refusedReason(r.clause ?? '', r.reading ?? '');
  const why = r.reason ?? refusalClasses[r.class].meaning;
  return r.clause && r.class === 'badSpell' ? `${r.class} ${r.clause}: ${why}` : `${r.class}: ${why}`;
}

export function hintKind(cls: RefusalClass): string {
  return refusalClasses[cls].hint;
}

export function lawRefusal(object: string, clause: string, reading: string): Refusal {
  return { class: 'lawRefused', object, clause, reading, reason: refusedReason(clause, reading) };
}

/** A refusal of the language's runner (card code refused, ran out, mistyped) as the kernel's. */
export function runRefusal(r: RunRefusal, object: string): Refusal {
  switch (r.class) {
    case 'cardRefused':
      return { class: 'cardRefused', object, clause: r.clause, reading: r.reading, reason: refusedReason(r.clause, r.reading) };
    case 'budget':
      return { class: 'budget', reason: r.reason, object };
    case 'typeMismatch':
      return { class: 'typeMismatch', reason: r.reason, expected: r.expected, object };
    default:
      return { class: r.class, reason: r.reason, object };
  }
}

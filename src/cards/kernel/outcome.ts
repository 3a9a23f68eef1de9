/**
 * What deciding answers (`Outcome`), and what a caller is answered with (`Answer`): a repeat's
 * first receipt read back from the journal.
 */
import type { Diagnostic, Usage } from '../program.js';
import type { TypedData } from '../../contract/typed.js';
import type { Entry, ReceiptBody } from './entry.js';
import type { CarriedPointer } from './past.js';
import { type Receipt, receiptOf, zeroUsage } from './receipt.js';

/** The receipt a reply shows (receipt.ts), which every outcome carries. */
export type { Receipt };

export interface TryReport extends ReceiptBody {
  writes: { object: string; version: number; state: TypedData }[];
  made: { object: string; kind: string; state: TypedData }[];
  fires: { to: string; method: string; argument: TypedData }[];
  opens: string[];
  roots: { object: string; version: number }[];
}

/** The host refused the request as malformed (HTTP 400 `hostRequest`); nothing was decided. */
export interface HostRequest {
  class: 'hostRequest';
  message: string;
  diagnostics?: Diagnostic[];
  stage?: string;
  module?: string;
  span?: { line: number; column: number; endLine: number; endColumn: number };
  hint?: string;
}

/** Where a receipt stands in its world's journal. */
export interface ReceiptRef {
  cid: string;
  slug: string;
  height: number;
  /** A first receipt from before a carry: its status and where it lives (no journal here holds it). */
  carried?: { status: 'done' | 'refused'; pointer: CarriedPointer };
}

export type Outcome =
  | { kind: 'journal'; entries: Entry[]; receipt: Receipt }
  /** The intent was spent on this very request: its first receipt, which the journal holds at `first.height`. */
  | { kind: 'repeat'; first: ReceiptRef }
  | { kind: 'refused'; receipt: Receipt }
  | { kind: 'try'; report: TryReport }
  | { kind: 'value'; value: TypedData; usage: Usage }
  | { kind: 'checked'; diagnostics: Diagnostic[] }
  | { kind: 'rejected'; error: HostRequest }
  | { kind: 'nothing'; reason: string };

/** An outcome as a caller is answered with: a repeat's first receipt read back from the journal. */
export type Answer = Exclude<Outcome, { kind: 'repeat' }> | { kind: 'repeat'; receipt: Receipt };

/** Entries to journal, answered with the first one's receipt. */
export function journal(entries: Entry[]): Outcome {
  return { kind: 'journal', entries, receipt: receiptOf(entries[0]!) };
}

/**
 * The answer to an outcome. A repeat needs `first`: the entry at `outcome.first.height`, read from
 * the journal by the caller (the World keeps where a receipt is, not the receipt).
 */
export function answerOf(outcome: Outcome, first?: Entry): Answer {
  if (outcome.kind !== 'repeat') return outcome;
  if (outcome.first.carried) return { kind: 'repeat', receipt: carriedReceipt(outcome.first) };
  const { cid, height } = outcome.first;
  if (first?.cid !== cid) throw new Error(`the journal holds no entry ${cid} at height ${height}, the first receipt of a repeated intent`);
  return { kind: 'repeat', receipt: receiptOf(first) };
}

/** The message a receipt from before a carry is answered with. */
export const carriedLine = (p: CarriedPointer) =>
  `this receipt is from before a carry: the whole receipt lies in the archive ${p.archive} (epoch ${p.epoch}, height ${p.height}, content id ${p.cid}); this journal keeps only where it is`;

/** A pre-carry first receipt: its status, where it stands, and the pointer to the whole of it. */
export function carriedReceipt(ref: ReceiptRef): Receipt {
  const { status, pointer } = ref.carried!;
  return {
    status,
    line: carriedLine(pointer),
    revealed: [],
    offers: [],
    usage: zeroUsage(),
    height: ref.height,
    cid: ref.cid,
    slug: ref.slug,
    carried: pointer,
  };
}

/** Does answering this outcome need its first entry read back from the journal? */
export const needsFirst = (outcome: Outcome): outcome is Extract<Outcome, { kind: 'repeat' }> => outcome.kind === 'repeat' && !outcome.first.carried;

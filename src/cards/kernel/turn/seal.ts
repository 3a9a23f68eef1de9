/**
 * Stage 5 of a turn (turn/decide-turn.ts): seal the entry. A turn that ran is one entry (its
 * receipt, writes, cards made, offers, sends) under its content id; a refused turn is one entry
 * too, with the refusal for its receipt and none of the run's effects. A `try` journals nothing:
 * it reports what the entry would hold, and the roots it read.
 */
import { copied } from '../copy.js';
import type { EntryBody, ReceiptBody } from '../entry.js';
import type { TurnCommand } from '../commands.js';
import { journal, type Outcome, type TryReport } from '../outcome.js';
import { doneBody, refusedBody } from '../receipt.js';
import type { Refusal } from '../refusal.js';
import { sealed } from '../seal.js';
import type { Turn, TurnEffects } from '../turn.js';
import { opensOf } from './law.js';

/** The turn's entry, its receipt the one `method` (the method the request reached) earned. */
export function sealTurn(turn: Turn, entry: EntryBody, effects: TurnEffects, method: string, cmd: TurnCommand): Outcome {
  const receipt = doneBody(turn, cmd.object, method);
  if (cmd.try) return { kind: 'try', report: tryReport(turn, receipt, effects) };
  entry.receipt = receipt;
  return journal([sealed(entry, effects)]);
}

/** The turn refused: its entry holds the refusal as its receipt (a `try` reports it). */
export function refusedTurn(turn: Turn, entry: EntryBody, refusal: Refusal, cmd: TurnCommand): Outcome {
  const body = refusedBody(refusal, turn.usage, cmd.object, cmd.method);
  if (cmd.try) return { kind: 'try', report: tryReport(turn, body, undefined) };
  entry.receipt = body;
  return journal([sealed(entry)]);
}

function tryReport(turn: Turn, body: ReceiptBody, effects: TurnEffects | undefined): TryReport {
  const report = copied(body) as TryReport;
  report.writes = (effects?.writes ?? []).map((w) => ({ object: w.id, version: w.version, state: w.state ?? turn.card(w.id)!.state }));
  report.made = (effects?.made ?? []).map((c) => ({ object: c.id, kind: c.kind, state: c.state }));
  report.fires = (effects?.sends ?? []).map((s) => ({ to: s.to, method: s.method, argument: s.argument }));
  report.opens = effects ? opensOf(turn) : [];
  report.roots = [...turn.roots].map(([object, version]) => ({ object, version })).sort((a, b) => (a.object < b.object ? -1 : 1));
  return report;
}

/**
 * The card commands' text output. Everything shown is read off the reply bodies the HTTP
 * routes answer (src/queries/turn-reply.ts, check-reply.ts), field by field in their order, so
 * the text cannot say something the reply does not.
 */
import { blank } from '../cards/kernel/fields.js';
import type { FormField } from '../cards/program.js';
import type { TypedData } from '../contract/typed.js';
import { showData } from '../cards/typed-text.js';
import type { Entry } from '../cards/kernel/entry.js';
import type { CheckDiagnostic } from '../queries/check-reply.js';
import { refusalFields, type TryReply, type TurnReply, type ValueReply } from '../queries/turn-reply.js';

/** A spell that returns only its new state answers the empty record: not worth a line. */
const isEmpty = (d: TypedData) => d.tag === 'record' && d.fields.length === 0;

/** `file:line:col stage: message`, then the form wanted. */
export function diagnosticLines(diagnostics: readonly CheckDiagnostic[], files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const d of diagnostics) {
    out.push(`${files.get(d.module) ?? d.module}:${d.line}:${d.column} ${d.stage}: ${d.message}`);
    if (d.hint !== undefined) out.push(`  hint: ${d.hint}`);
  }
  return out;
}

/** The `hostRequest` envelope (spec 2.10) as lines; a compile error's diagnostics as `file:line:col`. */
export function hostRequestLines(body: Record<string, unknown>, files: ReadonlyMap<string, string>): string[] {
  const diagnostics = Array.isArray(body.diagnostics) ? (body.diagnostics as CheckDiagnostic[]) : [];
  if (diagnostics.length) return diagnosticLines(diagnostics, files);
  const out = [`${String(body.class)}: ${String(body.message)}`];
  if (typeof body.hint === 'string') out.push(`  hint: ${body.hint}`);
  return out;
}

const indent = (lines: string[]) => lines.map((l) => `  ${l}`);

function refusalLines(r: Partial<Record<(typeof refusalFields)[number], unknown>>): string[] {
  return refusalFields.filter((k) => r[k] !== undefined).map((k) => `${k}: ${String(r[k])}`);
}

/** What a turn reply and a try report begin with alike: status, class, line, reveals, offers, refusal. */
function headLines(reply: TurnReply | TryReply): string[] {
  const out = [`status: ${reply.status}`];
  if (reply.class !== undefined) out.push(`class: ${reply.class}`);
  out.push(`line: ${reply.line}`);
  for (const r of reply.revealed ?? []) out.push(`revealed: ${r}`);
  for (const o of reply.offers) out.push(`offers: ${o}`);
  out.push(...refusalLines(reply));
  return out;
}

/** A turn reply, `full=1` form: its fields in order, then the whole receipt's result and ticks. */
export function turnLines(reply: TurnReply): string[] {
  const out = headLines(reply);
  if (reply.journaled === false) out.push('journaled: false');
  if (reply.repeated) out.push('repeated: true');
  for (const d of reply.delivered ?? []) {
    out.push(`delivered: ${d.object ?? ''}.${d.method ?? ''} ${d.status}: ${d.line}`);
  }
  if (reply.whole?.result !== undefined && !isEmpty(reply.whole.result)) out.push(`result: ${showData(reply.whole.result)}`);
  if (reply.whole) out.push(`ticks: ${reply.whole.usage.ticks}`);
  return indent(out);
}

/** A try report: what the act would write, make, fire and open; nothing was journaled. */
export function tryLines(reply: TryReply): string[] {
  const out = headLines(reply);
  for (const w of reply.writes) out.push(`writes: ${w.object} version ${w.version} ${showData(w.state)}`);
  for (const m of reply.made) out.push(`made: ${m.object} (${m.kind}) ${showData(m.state)}`);
  for (const f of reply.fires) out.push(`fires: ${f.to}.${f.method} ${showData(f.argument)}`);
  for (const o of reply.opens) out.push(`opens: ${o}`);
  for (const r of reply.roots) out.push(`roots: ${r.object} version ${r.version}`);
  if (reply.result !== undefined && !isEmpty(reply.result)) out.push(`result: ${showData(reply.result)}`);
  out.push(`ticks: ${reply.usage.ticks}`);
  out.push('journaled: false');
  return indent(out);
}

/** A line said by a card in a turn or a delivery (`say`, and what its rules said), from the entry. */
export interface SaidLine {
  object: string;
  line: string;
  /** Height of the entry that said it. */
  height: number;
  /** The entry's receipt shows this line already (its `line`, or a delivery's). */
  shown?: true;
}

/**
 * Every line the entries said, card by card: a receipt's `line` is only the first said, and a
 * rule's line comes after the spell's. Cards made say their first lines too.
 */
export function saidLines(entries: readonly Entry[]): SaidLine[] {
  const out: SaidLine[] = [];
  for (const e of entries) {
    let receiptLine = e.receipt.status === 'done' ? e.receipt.line : undefined;
    const add = (object: string, line: string) => {
      if (line === receiptLine) {
        receiptLine = undefined;
        out.push({ object, line, height: e.height, shown: true });
      } else out.push({ object, line, height: e.height });
    };
    for (const c of e.made ?? []) for (const line of c.lines) add(c.id, line);
    for (const w of e.writes ?? []) for (const line of w.say ?? []) add(w.id, line);
  }
  return out;
}

/** The lines a turn said that its reply does not show already, `says: <card>: <line>`. */
export const sayLines = (said: readonly SaidLine[]): string[] => said.filter((s) => !s.shown).map((s) => `  says: ${s.object}: ${s.line}`);

export function valueLines(reply: ValueReply): string[] {
  return [`result: ${showData(reply.result)}`, `ticks: ${reply.usage.ticks}`];
}

export function formsLines(actions: Record<string, string>, forms: Record<string, FormField[]>): string[] {
  const out = ['_actions:'];
  const names = Object.keys(actions);
  if (!names.length) out.push('  (none)');
  for (const name of names) out.push(`  ${name}: ${actions[name]}`);
  out.push('forms:');
  const spells = Object.keys(forms);
  if (!spells.length) out.push('  (none)');
  for (const name of spells) {
    const fields = forms[name]!;
    out.push(`  ${name}:${fields.length ? '' : ' (no fields)'}`);
    for (const f of fields) out.push(`    ${f.name} ${blank(f.form)}${f.optional ? ' (optional)' : ''}`);
  }
  return out;
}

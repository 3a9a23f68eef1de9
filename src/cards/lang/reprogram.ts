/**
 * Reprogramming a card (`become`): the new package must keep the card's state as it is (same
 * shape) or say how to carry it over with `def migrate(old: OldState) -> State`. Nothing falls
 * back to a default silently: a package that can do neither is refused at `stateType`, one
 * whose migrate takes the wrong old shape at `migration`.
 */
import type { Budget, CallContext, Diagnostic, Program, RunRefusal, Usage } from '../program.js';
import type { TypedData } from '../../contract/typed.js';
import { noSpan, type Span } from './diagnostics.js';
import { CompiledProgram } from './runner.js';
import { shapeKey, show, type Ty } from './types.js';

function diag(stage: 'stateType' | 'migration', module: string, span: Span, message: string, hint?: string): Diagnostic {
  const d: Diagnostic = { stage, module, line: span.line, column: span.col, endLine: span.endLine, endColumn: span.endCol, message };
  if (hint) d.hint = hint;
  return d;
}

/** The old state type written as a declaration the new module can copy. */
function declare(t: Ty | undefined, name: string): string {
  if (!t) return `type ${name}: …`;
  if (t.k === 'record') return `type ${name}:\n${t.fields.map((f) => `  ${f.name}: ${show(f.ty)}`).join('\n')}`;
  if (t.k === 'variant')
    return `type ${name}:\n${t.ctors.map((c) => `  ${c.name}${c.fields.length ? ` { ${c.fields.map((f) => `${f.name}: ${show(f.ty)}`).join(', ')} }` : ''}`).join('\n')}`;
  return `type ${name}: …`;
}

export type ReprogramCheck = { ok: true; migrate: boolean } | { ok: false; diagnostics: Diagnostic[] };

/** Can a card programmed by `from` be reprogrammed to `to`, and does it need `migrate`? */
export function checkReprogram(from: Program, to: Program): ReprogramCheck {
  if (from.stateKey === to.stateKey) return { ok: true, migrate: false };
  const fromT = from instanceof CompiledProgram ? from.state : undefined;
  const main = to instanceof CompiledProgram ? to.main : undefined;
  const module = main?.name ?? to.modules[0]?.name ?? 'main';
  const migrate = main?.migrate;
  if (!migrate) {
    const at = main?.initial?.span ?? noSpan;
    return {
      ok: false,
      diagnostics: [
        diag(
          'stateType',
          module,
          at,
          `the card holds ${from.stateType}, but the new program keeps ${to.stateType}, and it has no migrate to carry the state over`,
          `${declare(fromT, 'OldState')}\n\ndef migrate(old: OldState) -> ${main?.state ? show(main.state) : 'State'}:\n  return …`,
        ),
      ],
    };
  }
  const takes = migrate.params[0]!.ty;
  if (shapeKey(takes) !== from.stateKey) {
    return {
      ok: false,
      diagnostics: [
        diag('migration', module, migrate.span, `migrate takes ${show(takes)}, but the card holds ${from.stateType}`, `${declare(fromT, show(takes))}`),
      ],
    };
  }
  return { ok: true, migrate: true };
}

export type Reprogrammed =
  | { ok: true; state: TypedData; migrated: boolean; usage: Usage }
  | { ok: false; clause: 'stateType' | 'migration'; diagnostics?: Diagnostic[]; refusal?: RunRefusal; reason: string; usage: Usage };

/** Carries a card's state from `from` to `to`: checks, runs migrate when needed, checks the result. */
export function reprogram(from: Program, to: Program, state: TypedData, budget: Budget, ctx?: CallContext): Reprogrammed {
  void ctx;
  const zero: Usage = { ticks: 0, heap: 0, bytes: 0 };
  const c = checkReprogram(from, to);
  if (!c.ok) {
    const d = c.diagnostics[0]!;
    return { ok: false, clause: d.stage === 'migration' ? 'migration' : 'stateType', diagnostics: c.diagnostics, reason: d.message, usage: zero };
  }
  if (!c.migrate) {
    const bad = to.checkState(state);
    if (bad) return { ok: false, clause: 'stateType', reason: `the card's state does not fit the new program: ${bad}`, usage: zero };
    return { ok: true, state, migrated: false, usage: zero };
  }
  const r = to.runEntry('migrate', [state], budget);
  if (!r.ok) {
    const f = r.refusal;
    const why = f.class === 'cardRefused' ? `refused ${f.clause}: ${f.reading}` : f.reason;
    return { ok: false, clause: 'migration', refusal: r.refusal, reason: `migrate failed: ${why}`, usage: r.usage };
  }
  const bad = to.checkState(r.result);
  if (bad) return { ok: false, clause: 'migration', reason: `migrate built a state that does not fit: ${bad}`, usage: r.usage };
  return { ok: true, state: r.result, migrated: true, usage: r.usage };
}

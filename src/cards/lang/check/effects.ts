/**
 * What the checker can know about `make` and `send`: a kind that is no module, a
 * seed field the kind's state does not hold or of another type, and a send to the card itself
 * naming a spell it does not have or fields its form does not take. What depends on the world
 * (another card's spells, the bounds of a value) is left to the turn.
 */
import type { Stmt } from '../ast.js';
import type { CheckedModule } from './module.js';
import { type RecordTy, type Ty, compat, show } from '../types.js';
import type { FnCtx } from './locals.js';
import { type ModuleScope, report } from './scope.js';
import { suggest } from './suggest.js';

type Make = Extract<Stmt, { k: 'make' }>;
type Send = Extract<Stmt, { k: 'send' }>;

/** The kind a `make` names, when the checker can look into it; reports a name that is no kind. */
export function checkMakeKind(m: ModuleScope, s: Make, f: FnCtx): CheckedModule | undefined {
  const kind = m.loader.kind(s.kind);
  if (kind === undefined) {
    const kinds = m.loader.names().filter((n) => m.loader.kind(n)?.card !== false);
    const sug = suggest(s.kind, kinds);
    report(m, 'resolve', s.span, `no kind ${s.kind} to make`, sug ? `did you mean make ${sug}?` : `kinds: ${kinds.join(', ')}`, f);
    return undefined;
  }
  if (kind === null) return undefined;
  if (!kind.card || !kind.state) {
    report(m, 'resolve', s.span, `${s.kind} programs no card: it is a module of helpers`, 'make a kind of card, like make note { text: "…" }', f);
    return undefined;
  }
  return kind;
}

const article = (kind: string) => (/^[aeiou]/i.test(kind) ? `an ${kind}` : `a ${kind}`);

/** A seed's fields against the kind's state: each must be a field it holds, of its type. */
export function checkMakeSeed(m: ModuleScope, s: Make, state: Ty, seed: RecordTy, f: FnCtx): void {
  if (state.k !== 'record') {
    report(m, 'type', s.span, `${article(s.kind)} holds ${show(state)}, which no record seeds`, `make ${s.kind}`, f);
    return;
  }
  for (const field of seed.fields) {
    const slot = state.slot.get(field.name);
    if (slot === undefined) {
      const sug = suggest(
        field.name,
        state.fields.map((x) => x.name),
      );
      report(
        m,
        'type',
        s.span,
        `${article(s.kind)} has no field ${field.name}`,
        sug ? `did you mean ${sug}?` : `its fields: ${state.fields.map((x) => x.name).join(', ')}`,
        f,
      );
      continue;
    }
    const want = state.order[slot]!.ty;
    if (!compat(want, field.ty))
      report(m, 'type', s.span, `the field ${field.name} of ${article(s.kind)} wants ${show(want)}, but this is ${show(field.ty)}`, undefined, f);
  }
}

/** A parameter a sent argument may leave out: text or an object whose lower bound is 0 (optional in its form). */
function optional(t: Ty): boolean {
  if (t.k !== 'text') return false;
  return t.sub === 'Object' ? t.min === 0n : t.min === undefined || t.min === 0n;
}

/** `send this.spell { … }`: the card's own spells are known, so are their fields. */
export function checkSendToSelf(m: ModuleScope, s: Send, arg: Ty, f: FnCtx): void {
  if (arg.k !== 'record') return;
  const spell = m.spells.find((x) => x.name === s.method);
  if (!spell) {
    // without a receive of its own, a card hears prose through the host's receive
    if (s.method === 'receive') return;
    const sug = suggest(
      s.method,
      m.spells.map((x) => x.name),
    );
    report(
      m,
      'resolve',
      s.span,
      `this card has no spell ${s.method}`,
      sug ? `did you mean ${sug}?` : `its spells: ${m.spells.map((x) => x.name).join(', ') || 'none'}`,
      f,
    );
    return;
  }
  const params = spell.params.slice(1);
  for (const field of arg.fields) {
    const p = params.find((x) => x.name === field.name);
    if (!p) {
      report(m, 'type', s.span, `${spell.name} takes no field ${field.name}`, `its fields: ${params.map((x) => x.name).join(', ') || 'none'}`, f);
      continue;
    }
    if (!compat(p.ty, field.ty))
      report(m, 'type', s.span, `the field ${field.name} of ${spell.name} wants ${show(p.ty)}, but this is ${show(field.ty)}`, undefined, f);
  }
  const missing = params.filter((p) => !optional(p.ty) && !arg.fields.some((x) => x.name === p.name));
  if (missing.length)
    report(
      m,
      'type',
      s.span,
      `${spell.name} wants ${missing.map((p) => p.name).join(', ')}`,
      `send this.${spell.name} { ${params.map((p) => `${p.name}: …`).join(', ')} }`,
      f,
    );
}

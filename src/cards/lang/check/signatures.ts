/**
 * Phase 5, signatures against the state: a spell takes the card's state first and returns the
 * new one; `receive` hears text; a view takes the state and who is looking and returns text.
 */
import { compat, show, type Ty } from '../types.js';
import { type ModuleScope, report } from './scope.js';

/** Names a card shows through, so they are views, never spells. */
const reservedViews = new Set(['paint', 'render', 'page']);

export function checkSignatures(m: ModuleScope, state: Ty | undefined): void {
  const stateShown = state ? show(state) : 'State';
  for (const s of m.spells) {
    const p0 = s.params[0];
    if (!p0 || (state && !compat(state, p0.ty)) || (state && !compat(p0.ty, state))) {
      report(
        m,
        'type',
        s.span,
        p0
          ? `the first parameter of spell ${s.name} is ${show(p0.ty)}, but the card's state is ${stateShown}`
          : `spell ${s.name} takes the card's state as its first parameter`,
        `spell ${s.name}(self: ${stateShown}${(p0?.name === 'self' ? s.params.slice(1) : s.params.filter((p) => p.name !== 'self'))
          .map((p) => `, ${p.name}: ${show(p.ty)}`)
          .join('')}) -> ${stateShown}:`,
      );
    }
    if (state && !(compat(state, s.ret) && compat(s.ret, state))) {
      report(
        m,
        'type',
        s.span,
        `spell ${s.name} returns ${show(s.ret)}, but a spell returns the card's new state, ${stateShown}`,
        `spell ${s.name}(…) -> ${stateShown}:`,
      );
    }
    if (s.name === 'receive') {
      const rest = s.params.slice(1);
      if (rest.length !== 2 || rest[0]!.name !== 'text' || rest[0]!.ty.k !== 'text' || rest[1]!.name !== 'post' || rest[1]!.ty.k !== 'text') {
        report(
          m,
          'type',
          s.span,
          'receive hears what is said to the card: it takes the text and the post it came in',
          `spell receive(self: ${stateShown}, text: Text, post: Text) -> ${stateShown}:`,
        );
      }
    }
    if (reservedViews.has(s.name)) {
      report(m, 'type', s.span, `${s.name} is the name of a view, not a spell`, `view ${s.name}(self: ${stateShown}, viewer: Principal) -> Text:`);
    }
  }
  for (const v of m.views) {
    const ok = v.params.length === 2 && (!state || compat(state, v.params[0]!.ty)) && v.params[1]!.ty.k === 'text' && v.ret.k === 'text';
    if (!ok && v.ret.k !== 'err') {
      report(
        m,
        'type',
        v.span,
        `view ${v.name} takes the card's state and who is looking, and returns text`,
        `view ${v.name}(self: ${stateShown}, viewer: Principal) -> Text:`,
      );
    }
  }
}

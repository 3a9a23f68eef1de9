/**
 * `GET world/{object}` (state, version, `_actions`) and `GET world/{object}/card` (the card as
 * the caller sees it, with its newest eight lines).
 *
 * Order of visibility (spec 5.7): a card the caller may not see is `unknown`, exactly as one
 * that does not exist; a card the caller may see but whose host refuses to show it to them is
 * `denied`. A card refuses to be shown by refusing in its `paint` view for that viewer (a view
 * is the card's own word on what a viewer may have of it).
 */
import type { Program } from '../cards/program.js';
import { defaultOptions } from '../cards/kernel/options.js';
import { TownError } from '../contract/town-error.js';
import type { CardDoc, PackageDoc } from '../projections/cards.js';
import { packageOf, programOf, visibleCardDoc, type WorldReads } from './world-reads.js';

/** Methods that are never offered as templates (spec 2.4). */
const unlisted = new Set(['receive', 'render', 'page', 'publishPage']);

/** `_actions`: a spell template per method that has a form. */
export function actionsOf(pkg: PackageDoc | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of pkg?.methods ?? []) {
    if (m.kind !== 'spell' || unlisted.has(m.name) || m.form === undefined || m.template === undefined) continue;
    out[m.name] = m.template;
  }
  return out;
}

export interface ShownCard {
  card: CardDoc;
  pkg: PackageDoc | undefined;
  program: Program | undefined;
  /** The paint view as drawn for the caller, when the card has one. */
  paint?: string;
}

/** The card the caller may see and be shown, or `unknown` / `denied`. */
export async function shownCard(r: WorldReads, id: string, principal: string): Promise<ShownCard> {
  const card = await visibleCardDoc(r, id, principal);
  const pkg = await packageOf(r, card.pin);
  const program = pkg ? programOf(r, pkg) : undefined;
  const shown: ShownCard = { card, pkg, program };
  if (program?.methods.some((m) => m.kind === 'view' && m.name === 'paint')) {
    const drawn = program.view('paint', card.state, principal, defaultOptions.budget);
    if (!drawn.ok) {
      const f = drawn.refusal;
      const why = f.class === 'cardRefused' ? `refused ${f.clause}: ${f.reading}` : f.reason;
      throw new TownError('denied', `${id} will not be shown to you: ${why}`, { fields: { object: id } });
    }
    if (drawn.result.tag === 'label') shown.paint = drawn.result.value;
  }
  return shown;
}

export async function objectReply(r: WorldReads, id: string, principal: string) {
  const { card, pkg } = await shownCard(r, id, principal);
  return { id: card.id, kind: card.kind, state: card.state, version: card.version, _actions: actionsOf(pkg) };
}

/** Who a principal is on a card: its guest name (`guest:host:ann` → ann), or as it is. */
const shortName = (p: string) => (p.startsWith('guest:') ? p.slice(p.lastIndexOf(':') + 1) : p);

export async function cardReply(r: WorldReads, id: string, principal: string) {
  const { card, pkg, program, paint } = await shownCard(r, id, principal);
  const ctx = { caller: principal, owner: card.owner, self: card.id, now: r.clock() };
  const open = program ? safe(() => program.openWants(card.state, ctx)) : [];
  return {
    id: card.id,
    kind: card.kind,
    pinSlug: card.pinSlug,
    version: card.version,
    owner: shortName(card.owner),
    maker: shortName(card.maker),
    place: card.place,
    visibility: card.visibility === 'everyone' ? 'everyone' : card.visibility === 'owner' ? 'owner' : 'some',
    yours: card.owner === principal,
    ...(paint !== undefined ? { paint } : {}),
    lines: card.lines,
    wants: open.map((name) => ({ name, reading: pkg?.wants.find((w) => w.name === name)?.reading ?? '' })),
    spells: Object.values(actionsOf(pkg)),
  };
}

function safe(run: () => string[]): string[] {
  try {
    return run();
  } catch {
    return [];
  }
}

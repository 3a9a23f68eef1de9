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
import { cardDocs, type CardDoc, type PackageDoc } from '../projections/cards.js';
import { canRead, keptCardDoc, packageOf, programOf, unseenCard, visibleCardDoc, type WorldReads } from './world-reads.js';

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
  const paint = paintFor(r, card, program, principal, id);
  if (paint !== undefined) shown.paint = paint;
  return shown;
}

/** What a viewer is shown of a card: its paint (when it draws a label), or why it refuses. */
type Shown = { paint?: string; denied?: string };

/**
 * What each viewer was shown of a kept document (kept-cards.ts). A view reads only the card's
 * state and the viewer, so it is drawn once per document and viewer, not on every read.
 */
const shownTo = new WeakMap<CardDoc, Map<string, Shown>>();
const viewersKept = 1024;

/** The card's `paint` view drawn for `principal`; `denied` when it refuses them. */
function paintFor(r: WorldReads, card: CardDoc, program: Program | undefined, principal: string, id: string): string | undefined {
  const viewers = r.kept !== undefined ? shownTo.get(card) : undefined;
  let shown = viewers?.get(principal);
  if (shown === undefined) {
    shown = draw(card, program, principal);
    if (r.kept !== undefined) {
      if (viewers === undefined) shownTo.set(card, new Map([[principal, shown]]));
      else {
        if (viewers.size >= viewersKept) viewers.clear();
        viewers.set(principal, shown);
      }
    }
  }
  if (shown.denied !== undefined) throw deniedCard(id, shown.denied);
  return shown.paint;
}

function deniedCard(id: string, why: string): TownError {
  return new TownError('denied', `${id} will not be shown to you: ${why}`, { fields: { object: id } });
}

function draw(card: CardDoc, program: Program | undefined, principal: string): Shown {
  if (!program?.methods.some((m) => m.kind === 'view' && m.name === 'paint')) return {};
  const drawn = program.view('paint', card.state, principal, defaultOptions.budget);
  if (!drawn.ok) {
    const f = drawn.refusal;
    return { denied: f.class === 'cardRefused' ? `refused ${f.clause}: ${f.reading}` : f.reason };
  }
  return drawn.result.tag === 'label' ? { paint: drawn.result.value } : {};
}

export interface ObjectReply {
  id: string;
  kind: string;
  state: CardDoc['state'];
  version: number;
  _actions: Record<string, string>;
}

/** The object replies of kept documents: the same for every viewer who may be shown the card. */
const objectReplies = new WeakMap<CardDoc, ObjectReply>();

/**
 * `GET world/{object}`'s fields. For a kept document (kept-cards.ts) the same frozen object is
 * answered to every viewer until the card changes, so its serialisation can be kept too.
 */
export function objectReply(r: WorldReads, id: string, principal: string): ObjectReply | Promise<ObjectReply> {
  // The usual read, a kept card this viewer was shown before: answered here, without a promise.
  const kept = keptCardDoc(r, id);
  if (kept !== undefined) {
    if (!canRead(kept, principal)) throw unseenCard(id);
    const reply = objectReplies.get(kept);
    const shown = reply && shownTo.get(kept)?.get(principal);
    if (shown !== undefined) {
      if (shown.denied !== undefined) throw deniedCard(id, shown.denied);
      return reply!;
    }
  }
  return madeObjectReply(r, id, principal);
}

async function madeObjectReply(r: WorldReads, id: string, principal: string): Promise<ObjectReply> {
  const { card, pkg } = await shownCard(r, id, principal);
  let reply = r.kept !== undefined ? objectReplies.get(card) : undefined;
  if (reply === undefined) {
    reply = { id: card.id, kind: card.kind, state: card.state, version: card.version, _actions: actionsOf(pkg) };
    if (r.kept !== undefined) objectReplies.set(card, Object.freeze(reply));
  }
  return reply;
}

/** Who a principal is on a card: its guest name (`guest:host:ann` → ann), or as it is. */
const shortName = (p: string) => (p.startsWith('guest:') ? p.slice(p.lastIndexOf(':') + 1) : p);

/** The most ids a card reply lists as `here`. */
const hereListed = 64;

/**
 * The cards lying in (or held by) a card that the caller may see, by id: where a card is has one
 * truth, each card's own `place`, so a room's occupants and an avatar's things are read from
 * places (docs/world.md), never kept twice.
 */
async function cardsHere(r: WorldReads, id: string, principal: string): Promise<string[]> {
  const docs = await r.reads
    .collection(cardDocs.name)
    .find({ world: r.world, place: id, readers: { $in: principal ? ['*', principal] : ['*'] } }, { sort: { id: 1 }, limit: hereListed, projection: { id: 1 } });
  return docs.map((d) => (d as unknown as CardDoc).id);
}

export async function cardReply(r: WorldReads, id: string, principal: string) {
  const { card, pkg, program, paint } = await shownCard(r, id, principal);
  const here = await cardsHere(r, card.id, principal);
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
    here,
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

/**
 * `town.world.getProjection` and `town.world.listProjections`: the live values of the world as
 * anyone may read them, not signed (they change with every turn; the signed records are the
 * history). Four kinds:
 *
 *   card    the card as anyone sees it (what `GET world/{object}/card` shows a guest)
 *   page    the text of the card's `page` view, as `{text}`
 *   index   the world listing: ids of the public cards with the spells they hear
 *   answer  what one of the card's views answers (`view` names it)
 *
 * Read as a viewer who is nobody in particular: only cards visible to everyone exist here, so a
 * card one may not see never shows, and a card whose view refuses to be shown is Denied.
 */
import { defaultOptions } from '../cards/kernel/options.js';
import type { TypedData } from '../contract/typed.js';
import { TownError } from '../contract/town-error.js';
import { cardDocs } from '../projections/cards.js';
import { cardReply, shownCard } from '../queries/card.js';
import { listWorld } from '../queries/world.js';
import { packageOf, programOf, type WorldReads } from '../queries/world-reads.js';

export const projectionKinds = ['card', 'page', 'index', 'answer'] as const;
export type ProjectionKind = (typeof projectionKinds)[number];

/** The viewer the repository reads as: no principal, so only what everyone may see. */
const anyone = '';

export interface LiveValue {
  kind: ProjectionKind;
  card?: string;
  view?: string;
  value: unknown;
}

/** The card is not there for anyone (absent or not public), or has no such view. */
export class NoValue extends Error {}

async function viewOf(r: WorldReads, id: string, view: string): Promise<TypedData> {
  const { card, program } = await shownCard(r, id, anyone);
  if (!program?.methods.some((m) => m.kind === 'view' && m.name === view)) throw new NoValue(`${id} has no view ${view}`);
  const drawn = program.view(view, card.state, anyone, defaultOptions.budget);
  if (!drawn.ok) {
    const f = drawn.refusal;
    throw new TownError('denied', `${id} will not show ${view}: ${f.class === 'cardRefused' ? `refused ${f.clause}: ${f.reading}` : f.reason}`);
  }
  return drawn.result;
}

const unknownAsNone = (error: unknown): never => {
  if (error instanceof TownError && error.cls === 'unknown') throw new NoValue(error.message);
  throw error;
};

export async function liveValue(r: WorldReads, kind: ProjectionKind, q: { card?: string; view?: string; after?: string; prefix?: string }): Promise<LiveValue> {
  if (kind === 'index') {
    const page = await listWorld(r, anyone, { ...(q.after !== undefined ? { after: q.after } : {}), ...(q.prefix !== undefined ? { prefix: q.prefix } : {}) });
    return { kind, value: page };
  }
  const id = q.card!;
  try {
    if (kind === 'card') return { kind, card: id, value: await cardReply(r, id, anyone) };
    if (kind === 'page') {
      const page = await viewOf(r, id, 'page');
      // A lexicon's `unknown` is an object: the page's text is wrapped.
      return { kind, card: id, value: page.tag === 'label' ? { text: page.value } : page };
    }
    return { kind, card: id, view: q.view!, value: await viewOf(r, id, q.view!) };
  } catch (error) {
    return unknownAsNone(error);
  }
}

/**
 * A page of live values, one per public card in id order after `cursor`: its card reply, its
 * page, its answer to `view`, or its line in the index. Cards without the view are passed over.
 */
export async function liveValues(
  r: WorldReads,
  kind: ProjectionKind,
  q: { view?: string; limit: number; cursor?: string },
): Promise<{ values: LiveValue[]; cursor?: string }> {
  const values: LiveValue[] = [];
  let after = q.cursor;
  // Read a little beyond the page: cards without the view asked for are passed over.
  for (let rounds = 0; rounds < 8 && values.length < q.limit; rounds++) {
    const filter: Record<string, unknown> = { world: r.world, readers: '*' };
    if (after !== undefined) filter.id = { $gt: after };
    const docs = await cardDocs.in(r.reads).find(filter, { sort: { world: 1, id: 1 }, limit: q.limit });
    for (const doc of docs) {
      after = doc.id;
      if (kind === 'index') {
        values.push({ kind, card: doc.id, value: { methods: doc.methods } });
      } else if (kind === 'card') {
        values.push(await liveValue(r, kind, { card: doc.id }).catch(skip));
      } else {
        const pkg = await packageOf(r, doc.pin);
        const program = pkg ? programOf(r, pkg) : undefined;
        const view = kind === 'page' ? 'page' : q.view!;
        if (!program?.methods.some((m) => m.kind === 'view' && m.name === view)) continue;
        values.push(await liveValue(r, kind, { card: doc.id, view }).catch(skip));
      }
      if (values.length >= q.limit) break;
    }
    if (docs.length < q.limit) return { values: values.filter(shown) };
  }
  return { values: values.filter(shown), ...(after !== undefined ? { cursor: after } : {}) };
}

/** A card that refuses to be shown, or went away meanwhile, is left out of a list. */
const hidden = { kind: 'card', value: null } as LiveValue;
const skip = () => hidden;
const shown = (v: LiveValue) => v !== hidden;

/**
 * What every world query reads through: the read store, the world's name, and the programs of
 * pinned packages (views and wants run on the reader's side, from the package the cards
 * projection keeps). Packages never change once pinned, so they are kept here once read.
 */
import type { Past } from '../cards/kernel/past.js';
import type { Card } from '../cards/kernel/entry.js';
import type { World } from '../cards/kernel/world.js';
import type { Program } from '../cards/program.js';
import type { Programs } from '../cards/kernel/programs.js';
import { TownError } from '../contract/town-error.js';
import { cardDoc as projectedCardDoc, cardDocs, packageDocs, type CardDoc, type PackageDoc } from '../projections/cards.js';
import { worldKey } from '../projections/entries.js';
import type { ReadStore } from '../stores/read-store.js';
import type { EventStore } from '../stores/event-store.js';
import type { KeptCards } from './kept-cards.js';

export interface WorldReads {
  reads: ReadStore;
  /** The journal: a receipt's whole entry is read from it by height. */
  events: EventStore;
  programs: Programs;
  /** The world's id, as its journal and read models are kept under. */
  world: string;
  /** The world as the caller names it, when that differs from its id (`scratch/<name>`). */
  label?: string;
  /** The town's host, when the reader is a page: guests' handles (`ann.<host>`) read as names there. */
  host?: string;
  /** Milliseconds since the epoch: the clock views and wants are read at. */
  clock: () => number;
  /**
   * A fork that reads through to the town as it stood (history.ts): its read models hold only
   * what it made, so its cards are read from its state, each card's document made when read
   * (`lazyCardDoc`), exactly as the cards projection would have made it.
   */
  state?: () => World;
  /** The town's card documents kept between reads (kept-cards.ts); only the town's reads have it. */
  kept?: KeptCards;
  /**
   * The world's carried past (past.ts), when a carry began its current epoch: receipts before it
   * are answered as pointers into their archive, and the journal of the current epoch begins
   * where the past ends.
   */
  past?: () => Past | undefined;
}

/**
 * The town's own reads, as the API's handlers and the pages make them: its read models, and its
 * carried past from the world service's committed World.
 */
export function townReads(
  deps: Pick<WorldReads, 'reads' | 'events' | 'programs' | 'clock'>,
  service: { world: string; committed: Pick<World, 'past'> },
): WorldReads {
  return { reads: deps.reads, events: deps.events, programs: deps.programs, world: service.world, clock: deps.clock, past: () => service.committed.past };
}

const packageCache = new WeakMap<ReadStore, Map<string, PackageDoc>>();

/**
 * A package as a world has it: a scratch world's own (src/projections/cards.ts) or the shared one.
 * Kept by pin alone: every document of one pin holds the same package.
 */
export async function packageOf(r: WorldReads, pin: string): Promise<PackageDoc | undefined> {
  let cache = packageCache.get(r.reads);
  if (!cache) packageCache.set(r.reads, (cache = new Map()));
  const hit = cache.get(pin);
  if (hit) return hit;
  for (const id of r.world.startsWith('scratch.') ? [worldKey(r.world, pin), pin] : [pin]) {
    const doc = await packageDocs.in(r.reads).findOne({ _id: id });
    if (!doc) continue;
    if (cache.size > 4096) cache.clear();
    cache.set(pin, doc);
    return doc;
  }
  return undefined;
}

export function programOf(r: WorldReads, pkg: PackageDoc): Program | undefined {
  const loaded = r.programs.load({ kind: pkg.kind, modules: pkg.modules, ...(pkg.law !== undefined ? { law: pkg.law } : {}) }, pkg.pin);
  return loaded.ok ? loaded.program : undefined;
}

/** May `principal` see this card? (a card you may not see does not exist for you) */
export function canRead(card: Pick<CardDoc, 'readers'>, principal: string): boolean {
  return card.readers.includes('*') || card.readers.includes(principal);
}

/**
 * The document the cards projection would hold for `card` (its `height` is the height it was
 * made at: a fork's state does not keep the height of a card's last change, and no reply shows it).
 */
export async function lazyCardDoc(r: WorldReads, card: Card): Promise<CardDoc> {
  // The document the cards projection would write for it, as of its birth height.
  return projectedCardDoc(r.world, card, card.born, await packageOf(r, card.pin));
}

export async function cardDoc(r: WorldReads, id: string): Promise<CardDoc | null> {
  if (r.state) {
    const card = r.state().cards.get(id);
    return card ? lazyCardDoc(r, card) : null;
  }
  const kept = r.kept;
  if (kept === undefined || kept.world !== r.world) return cardDocs.in(r.reads).findOne({ _id: worldKey(r.world, id) });
  const hit = kept.get(r.reads, id);
  if (hit !== undefined) return hit;
  // The checkpoint before the read: the document read is at least as new as it.
  const at = kept.folded();
  const generation = r.reads.generation;
  const doc = await cardDocs.in(r.reads).findOne({ _id: worldKey(r.world, id) });
  return at === undefined ? doc : kept.keep(id, at, generation, doc);
}

/** The card's kept document (kept-cards.ts) when it is still good: no read, no promise. */
export function keptCardDoc(r: WorldReads, id: string): CardDoc | undefined {
  const kept = r.kept;
  return kept !== undefined && kept.world === r.world && r.state === undefined ? kept.get(r.reads, id) : undefined;
}

/** The refusal for a card that is absent or that the caller may not see: the same for both. */
export function unseenCard(id: string): TownError {
  return new TownError('unknown', `no card ${JSON.stringify(id)} that you may see`, { hintHref: '/AGENTS.md/world' });
}

/** Is there a card `id` that `principal` may see? (false alike for absent and unseen) */
export async function maySee(r: WorldReads, id: string, principal: string): Promise<boolean> {
  const doc = await cardDoc(r, id);
  return doc !== null && canRead(doc, principal);
}

/** The card as `principal` may see it; `unknown` (404) alike for absent and unseen. */
export async function visibleCardDoc(r: WorldReads, id: string, principal: string): Promise<CardDoc> {
  const doc = await cardDoc(r, id);
  if (!doc || !canRead(doc, principal)) throw unseenCard(id);
  return doc;
}

/** Spec 2.1: what a card id may be. Anything else is a name no spell can address. */
export const cardIdPattern = /^[A-Za-z0-9._:/-]{1,128}$/;

export function spellableId(id: string): string {
  if (!cardIdPattern.test(id)) {
    throw new TownError(
      'unspellable',
      `${JSON.stringify(id.slice(0, 140))} is no card id a spell can address: 1 to 128 of letters, digits and . _ : / - (a / inside an id is written %2F)`,
      { hintHref: '/AGENTS.md/world' },
    );
  }
  return id;
}

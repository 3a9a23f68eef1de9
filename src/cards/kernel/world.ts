/**
 * The world model: what a journal of entries adds up to. Built for a town of 100,000 cards:
 * every collection is a Map keyed by id, every value in it is treated as immutable (evolve
 * replaces values, never edits them), so a snapshot or a layer can share them safely.
 *
 * Ownership: `evolve` updates the Maps of the world it is given in place and returns it;
 * `decide` never mutates a world (it reads it, or lays a LayerMap over it).
 */
import type { Card, Offer, Package, Quiet, Send, WorldInfo } from './entry.js';
import { LayerMap, orderedOf } from './layer.js';
import type { Past, PastEpoch } from './past.js';

/** The principal that owns the town's own cards (rooms, doors, the town card): never abandoned. */
export const TOWN = 'town';

export interface IntentRecord {
  fingerprint: string;
  cid: string;
}

/**
 * What the world keeps of each receipt: where it is and what it was about, so a repeated intent
 * and a slug can be answered. Not the receipt itself: bodies were most of a long-lived World's
 * memory, and the journal holds them (a repeat's first receipt is read back from there).
 */
export interface ReceiptRecord {
  cid: string;
  slug: string;
  height: number;
  clock: number;
  principal: string;
  object: string;
  method: string;
  intent?: string;
}

export interface OfferRecord extends Offer {
  height: number;
}

/** What a run of sends has spent of its allowances, and how many of its sends still wait. */
export interface RunRecord {
  work: number;
  storage: number;
  waiting: number;
}

/** Turns counted per principal in the clock hour of their latest turn (the open-town quota). */
export interface TurnCount {
  hour: number;
  count: number;
}

export interface World extends WorldInfo {
  /** Entries applied so far: the height the next entry is appended at. */
  height: number;
  /** Clock of the latest entry. */
  clock: number;
  cards: Map<string, Card>;
  /** Packages by pin. */
  packages: Map<string, Package>;
  /** Library kinds: kind name → pin. */
  kinds: Map<string, string>;
  /** principal → avatar card id. */
  avatars: Map<string, string>;
  /** `<principal>\n<intent>` → the request's fingerprint and the receipt it produced. */
  intents: Map<string, IntentRecord>;
  /** Queued sends by id. */
  pending: Map<string, Send>;
  runs: Map<number, RunRecord>;
  /** principal → offers, oldest first, at most `offersKept`. */
  offers: Map<string, readonly OfferRecord[]>;
  /** cid → receipt record. */
  receipts: Map<string, ReceiptRecord>;
  /** slug → cids sharing it. */
  slugs: Map<string, readonly string[]>;
  quiet: Map<string, Quiet>;
  turns: Map<string, TurnCount>;
  /** principal → clock of their latest entry of any kind (the `adopt` abandonment rule reads it). */
  seen: Map<string, number>;
  /**
   * What the world keeps of the epochs before its latest carry (past.ts): used intents, slugs and
   * content ids of receipts the journal of this epoch no longer holds. Absent before a carry.
   */
  past?: Past;
  /**
   * A carry in parts being laid in (carry.ts `applyCarry`): the next part due and the past's
   * tables so far. Present only between a carry entry and its last continuation entry.
   */
  carrying?: CarryingParts;
}

export interface CarryingParts {
  parts: number;
  next: number;
  epochs: PastEpoch[];
  digests: Buffer[];
  slugs: Buffer[];
  intents: Buffer[];
}

export const linesKept = 32;
export const offersKept = 64;

/** A world before its first entry. */
export function blankWorld(): World {
  return {
    name: '',
    host: '',
    opener: '',
    entrance: '',
    height: 0,
    clock: 0,
    cards: new Map(),
    packages: new Map(),
    kinds: new Map(),
    avatars: new Map(),
    intents: new Map(),
    pending: new Map(),
    runs: new Map(),
    offers: new Map(),
    receipts: new Map(),
    slugs: new Map(),
    quiet: new Map(),
    turns: new Map(),
    seen: new Map(),
  };
}

/** A copy-on-write view of a world: evolve it freely, the world beneath stays as it was. */
export function layered(world: World): World {
  return {
    ...world,
    cards: new LayerMap(world.cards),
    packages: new LayerMap(world.packages),
    kinds: new LayerMap(world.kinds),
    avatars: new LayerMap(world.avatars),
    intents: new LayerMap(world.intents),
    pending: new LayerMap(world.pending),
    runs: new LayerMap(world.runs),
    offers: new LayerMap(world.offers),
    receipts: new LayerMap(world.receipts),
    slugs: new LayerMap(world.slugs),
    quiet: new LayerMap(world.quiet),
    turns: new LayerMap(world.turns),
    seen: new LayerMap(world.seen),
  };
}

export const intentKey = (principal: string, intent: string) => `${principal}\n${intent}`;

/** A card you may not see does not exist for you. */
export function canSee(card: Card, principal: string): boolean {
  if (card.visibility === 'everyone') return true;
  if (principal === card.owner) return true;
  if (card.lent.includes(principal)) return true;
  return Array.isArray(card.visibility) && card.visibility.includes(principal);
}

/** The card by id as `principal` sees it: undefined when absent or unseen, alike. */
export function visibleCard(world: World, id: string, principal: string): Card | undefined {
  const card = world.cards.get(id);
  return card && canSee(card, principal) ? card : undefined;
}

/** Ids of the cards `principal` may see, sorted, for listings (64 a page after `after`). */
export function visibleIds(world: World, principal: string, opts: { after?: string; prefix?: string; limit?: number } = {}): string[] {
  const ordered = orderedOf(world.cards);
  if (ordered && opts.limit !== undefined) return visibleIdsInOrder(world, ordered, principal, opts as typeof opts & { limit: number });
  const ids: string[] = [];
  for (const card of world.cards.values()) {
    if (opts.prefix !== undefined && !card.id.startsWith(opts.prefix)) continue;
    if (opts.after !== undefined && card.id <= opts.after) continue;
    if (canSee(card, principal)) ids.push(card.id);
  }
  ids.sort();
  return opts.limit === undefined ? ids : ids.slice(0, opts.limit);
}

/** The same page, from a map that walks its keys in order: only as far as the page goes. */
function visibleIdsInOrder(
  world: World,
  ordered: { keysFrom(from: string | undefined, inclusive: boolean): Iterable<string> },
  principal: string,
  opts: { after?: string; prefix?: string; limit: number },
): string[] {
  const { after, prefix, limit } = opts;
  const ids: string[] = [];
  if (limit <= 0) return ids;
  const fromPrefix = prefix !== undefined && (after === undefined || after < prefix);
  for (const id of ordered.keysFrom(fromPrefix ? prefix : after, fromPrefix)) {
    if (prefix !== undefined && !id.startsWith(prefix)) {
      if (id > prefix) break;
      continue;
    }
    const card = world.cards.get(id);
    if (card && canSee(card, principal) && ids.push(id) >= limit) break;
  }
  return ids;
}

/** Cards lying in a place (a room, or a card carrying things) that `principal` may see. */
export function cardsIn(world: World, place: string, principal: string): Card[] {
  const out: Card[] = [];
  for (const card of world.cards.values()) if (card.place === place && canSee(card, principal)) out.push(card);
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Newest lines of a card, newest last (the card reply shows the newest eight). */
export function newestLines(card: Card, n: number): string[] {
  return card.lines.slice(-n);
}

/** Turns `principal` has started in the clock hour of `clock`. */
export function turnsThisHour(world: World, principal: string, clock: number): number {
  const count = world.turns.get(principal);
  return count && count.hour === hourOf(clock) ? count.count : 0;
}

/** The open town's `me.turns`: turns left before the clock hour turns, and when it turns. */
export function turnsLeft(world: World, principal: string, clock: number, quota: number): { remaining: number; next: number } {
  return { remaining: Math.max(0, quota - turnsThisHour(world, principal, clock)), next: (hourOf(clock) + 1) * hourMs };
}

export const hourMs = 3_600_000;
export const hourOf = (clock: number) => Math.floor(clock / hourMs);

/** Receipts whose slug reads `slug` (more than one: `ambiguous`). */
export function receiptsBySlug(world: World, slug: string): ReceiptRecord[] {
  return (world.slugs.get(slug) ?? []).map((cid) => world.receipts.get(cid)!).filter(Boolean);
}

/** The receipt of `principal`'s own turn under `intent` (never one that merely reads the same). */
export function receiptByIntent(world: World, principal: string, intent: string): ReceiptRecord | undefined {
  const rec = world.intents.get(intentKey(principal, intent));
  return rec && world.receipts.get(rec.cid);
}

/** Offers made for `principal`, newer than `after` (a height) when given. */
export function offersFor(world: World, principal: string, after?: number): OfferRecord[] {
  const all = world.offers.get(principal) ?? [];
  return after === undefined ? [...all] : all.filter((o) => o.height > after);
}

/** Queued sends, oldest first. */
export function pendingSends(world: World): Send[] {
  return [...world.pending.values()].sort(bySendId);
}

export function bySendId(a: Send, b: Send): number {
  const [ah, an] = a.id.split('.').map(Number) as [number, number];
  const [bh, bn] = b.id.split('.').map(Number) as [number, number];
  return ah - bh || an - bn;
}

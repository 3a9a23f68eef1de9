/**
 * What the pages read beyond the world queries (src/queries): cards lying in a room, doors,
 * a card's receipts. Every read keeps to the cards the reader may see: a card the reader may not
 * see is never named on a page, not even by a door or a receipt line.
 */
import { carriedLine } from '../cards/kernel/outcome.js';
import { pastAt } from '../cards/kernel/past.js';
import { cardDocs, type CardDoc } from '../projections/cards.js';
import { receiptDocs, type ReceiptDoc } from '../projections/receipts.js';
import type { TypedData } from '../contract/typed.js';
import type { WorldReads } from '../queries/world-reads.js';
import { e } from './layout.js';

const seen = (reader: string) => ({ $in: reader ? ['*', reader] : ['*'] });

export async function visibleCards(r: WorldReads, reader: string, filter: Record<string, unknown> = {}, limit = 500, skip = 0): Promise<CardDoc[]> {
  return (await cardDocs
    .in(r.reads)
    .find({ world: r.world, readers: seen(reader), ...filter }, { sort: { id: 1 }, limit, ...(skip ? { skip } : {}) })) as CardDoc[];
}

/** Ids among `ids` the reader may see. */
export async function visibleIdSet(r: WorldReads, reader: string, ids: string[]): Promise<Set<string>> {
  const unique = [...new Set(ids.filter((id) => id !== ''))];
  if (!unique.length) return new Set();
  const docs = await r.reads.collection(cardDocs.name).find({ world: r.world, id: { $in: unique }, readers: seen(reader) }, { projection: { id: 1 } });
  return new Set(docs.map((d) => (d as unknown as CardDoc).id));
}

/**
 * The mark of a receipt from before a carry (its receipt is a pointer into the archive now,
 * spec 4.2), or '' for one of the current epoch.
 */
export function carriedMark(r: WorldReads, height: number): string {
  const past = r.past?.();
  const p = past && pastAt(past, height);
  return p ? ` <span class="carried" title="${e(carriedLine(p.pointer))}">archived in ${e(p.pointer.archive)}</span>` : '';
}

/** A card's newest receipts, newest first. */
export async function receiptsOf(r: WorldReads, object: string, limit: number): Promise<ReceiptDoc[]> {
  return (await r.reads.collection(receiptDocs.name).find({ world: r.world, object }, { sort: { height: -1 }, limit })) as ReceiptDoc[];
}

/**
 * A receipt or card line as a page says it: a guest's handle (`ann.<host>`, which lines name
 * the caller by) as the guest's name, `ann`.
 */
export function spoken(r: Pick<WorldReads, 'host'>, line: string): string {
  if (!r.host) return line;
  const host = r.host.replace(/:\d+$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return line.replace(new RegExp(`\\b([a-z0-9][a-z0-9-]*)\\.${host}\\b`, 'g'), '$1');
}

/** A field of a record state, when the state is a record that has it. */
export function fieldOf(state: TypedData, name: string): TypedData | undefined {
  return state.tag === 'record' ? state.fields.find((f) => f.name === name)?.value : undefined;
}

export function labelOf(state: TypedData, name: string): string | undefined {
  const v = fieldOf(state, name);
  return v?.tag === 'label' ? v.value : undefined;
}

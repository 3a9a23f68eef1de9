/**
 * `GET world`: ids of the cards the caller may see, 64 a page in id order, each with the names
 * of the spells it hears; `after` continues from the last id of a page, `prefix` keeps ids that
 * start with it.
 */
import { limits } from '../contract/limits.js';
import { cardDocs, type CardDoc } from '../projections/cards.js';
import type { Filter } from '../stores/read-store.js';
import { visibleIds } from '../cards/kernel/world.js';
import { lazyCardDoc, type WorldReads } from './world-reads.js';

export interface WorldPage {
  world: string;
  cards: { id: string; methods: string[] }[];
  /** The last id of this page when another page follows (pass it as `after`). */
  next?: string;
}

/** Ids are ASCII, so every id starting with `prefix` sorts below prefix + DEL. */
const afterAll = '\u007f';

export async function listWorld(r: WorldReads, principal: string, q: { after?: string; prefix?: string }): Promise<WorldPage> {
  const id: Record<string, string> = {};
  if (q.after !== undefined) id.$gt = q.after;
  if (q.prefix) {
    if (q.after === undefined || q.after < q.prefix) {
      delete id.$gt;
      id.$gte = q.prefix;
    }
    id.$lt = q.prefix + afterAll;
  }
  const state = r.state?.();
  if (state) {
    // A fork reading through: its cards are its state's (world-reads.ts), listed as the kernel lists them.
    const ids = visibleIds(state, principal, { ...q, limit: limits.idsPerPage + 1 });
    const page = ids.slice(0, limits.idsPerPage);
    const cards = await Promise.all(page.map(async (id) => ({ id, methods: (await lazyCardDoc(r, state.cards.get(id)!)).methods })));
    const out: WorldPage = { world: r.label ?? r.world, cards };
    if (ids.length > limits.idsPerPage) out.next = page[page.length - 1]!;
    return out;
  }
  const filter: Filter = { world: r.world, readers: { $in: ['*', principal] } };
  if (Object.keys(id).length) filter.id = id;
  const docs = (await cardDocs.in(r.reads).find(filter, {
    sort: { world: 1, id: 1 },
    limit: limits.idsPerPage + 1,
    projection: { id: 1, methods: 1 },
  })) as Pick<CardDoc, 'id' | 'methods'>[];
  const page = docs.slice(0, limits.idsPerPage);
  const out: WorldPage = { world: r.label ?? r.world, cards: page.map((d) => ({ id: d.id, methods: d.methods })) };
  if (docs.length > limits.idsPerPage) out.next = page[page.length - 1]!.id;
  return out;
}

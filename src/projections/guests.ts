/**
 * The guests projection: per guest of the town, its avatar and the turns it started in the
 * clock hour of its latest turn (what `me.turns` reports against the open-town quota). Counted
 * exactly as the kernel counts them (src/cards/kernel/evolve.ts): every journaled turn entry.
 *
 *   guests.guests  _id `<principal>`
 *
 * Idempotent: each document remembers the height of the last entry it counted.
 */
import { hourOf } from '../cards/kernel/world.js';
import { TOWN_WORLD, type StoredEntry } from '../events/world.js';
import type { Doc, Unit } from '../stores/read-store.js';
import { DocBatch, worldProjection } from './entries.js';
import type { Projection } from './projection.js';
import { readModel } from './read-model.js';

export interface GuestDoc extends Doc {
  principal: string;
  avatar?: string;
  /** Clock hour (ms / 3,600,000) of the latest turn, and the turns counted in it. */
  hour: number;
  count: number;
  /** Clock of the latest turn (0 before any). */
  lastTurn: number;
  turns: number;
  /** Height of the last town entry folded into this document. */
  height: number;
}

/** The guests read model and its collection, as the projection and its readers name them. */
export const guestsModel = readModel('guests');
export const guestDocs = guestsModel.collection<GuestDoc>('guests');

const fresh = (principal: string): GuestDoc => ({ _id: principal, principal, hour: 0, count: 0, lastTurn: 0, turns: 0, height: -1 });

export function guestsProjection(): Projection {
  async function fold(entries: StoredEntry[], unit: Unit): Promise<void> {
    const town = entries.filter((e) => e.world === TOWN_WORLD && (e.entry.kind === 'turn' || e.entry.avatars?.length));
    if (!town.length) return;
    const guests = new DocBatch(guestDocs.in(unit));
    await guests.load(town.flatMap(({ entry }) => [entry.principal, ...(entry.avatars ?? []).map((a) => a.principal)]));
    // One working copy per guest per batch, changed in place: a busy guest turns thousands of
    // times a batch, and a copy per turn was most of this fold's cost.
    const working = new Map<string, GuestDoc>();
    const change = (principal: string, height: number): GuestDoc | undefined => {
      let g = working.get(principal);
      if (!g) {
        const stored = guests.get(principal);
        if (stored && stored.height >= height) return undefined;
        g = stored ? { ...stored } : fresh(principal);
        working.set(principal, g);
        guests.set(g);
      }
      return g.height >= height ? undefined : g;
    };
    for (const { entry } of town) {
      for (const a of entry.avatars ?? []) {
        const g = change(a.principal, entry.height);
        if (!g) continue;
        g.avatar = a.object;
        g.height = entry.height;
      }
      if (entry.kind !== 'turn') continue;
      const g = change(entry.principal, entry.height);
      if (!g) continue;
      const hour = hourOf(entry.clock);
      g.count = g.hour === hour ? g.count + 1 : 1;
      g.hour = hour;
      g.lastTurn = entry.clock;
      g.turns += 1;
      g.height = entry.height;
    }
    await guests.flush();
  }
  return worldProjection({
    name: guestsModel.name,
    collections: [guestDocs.name],
    // Bump when `fold` changes what it writes.
    // 2: a carry entry lays the carried present's guests (avatars, turns this hour) over the town's.
    version: 2,
    fold,
    carry: async ({ world, entry }, unit) => {
      if (world !== TOWN_WORLD) return;
      const { present, part } = entry.carried!;
      if (!part) await guestDocs.in(unit).deleteMany({});
      // what the kernel keeps of a guest: its avatar and its turns in its latest clock hour; the
      // totals before the carry (`turns`, `lastTurn`) lie in the archive and start again at 0.
      // A guest's avatar and turns may lie in different parts of the carry: merged.
      const guests = new DocBatch(guestDocs.in(unit));
      await guests.load([...present.avatars.map((a) => a.principal), ...present.turns.map((t) => t.principal)]);
      const of = (principal: string) => {
        let g = guests.get(principal);
        if (!g) {
          g = { ...fresh(principal), height: entry.height };
          guests.set(g);
        }
        return g;
      };
      for (const a of present.avatars) guests.set({ ...of(a.principal), avatar: a.object });
      for (const t of present.turns) guests.set({ ...of(t.principal), hour: t.hour, count: t.count });
      await guests.flush();
    },
  });
}

/**
 * The pending projection: sends queued between cards and not yet delivered (spec 4.2 `pending`).
 *
 *   pending.sends  _id `<world> <send id>` (send ids are `<height>.<n>`)
 *
 * A send is written when the entry that queued it is folded and deleted when the delivery that
 * consumed it is. Replaying any tail of the journal in order leaves the same documents.
 */
import type { Send } from '../cards/kernel/entry.js';
import type { Doc, Unit } from '../stores/read-store.js';
import type { StoredEntry } from '../events/world.js';
import { DocBatch, worldKey, worldProjection } from './entries.js';
import type { Projection } from './projection.js';
import { readModel } from './read-model.js';

export interface PendingDoc extends Doc, Send {
  world: string;
  /** Height of the entry that queued it, and its place among that entry's sends (queue order). */
  queuedAt: number;
  n: number;
}

/** The pending read model and its collection, as the projection and its readers name them. */
export const pendingModel = readModel('pending');
/** A send's argument is kept as JSON text: its nesting grows with the data (read-model.ts). */
export const pendingDocs = pendingModel.collection<PendingDoc>('sends', { encoded: ['argument'] });

export function pendingProjection(): Projection {
  async function fold(entries: StoredEntry[], unit: Unit): Promise<void> {
    const moving = entries.filter((e) => e.entry.consumed !== undefined || e.entry.sends?.length);
    if (!moving.length) return;
    const sends = new DocBatch(pendingDocs.in(unit));
    await sends.load(
      moving.flatMap(({ world, entry }) => [
        ...(entry.consumed !== undefined ? [worldKey(world, entry.consumed)] : []),
        ...(entry.sends ?? []).map((s) => worldKey(world, s.id)),
      ]),
    );
    // In journal order: a send queued and delivered within one batch never reaches the store.
    for (const { world, entry } of moving) {
      if (entry.consumed !== undefined) sends.delete(worldKey(world, entry.consumed));
      for (const s of entry.sends ?? []) {
        const [h, n] = s.id.split('.').map(Number) as [number, number];
        sends.set({ _id: worldKey(world, s.id), world, ...s, queuedAt: h, n });
      }
    }
    await sends.flush();
  }
  return worldProjection({
    name: pendingModel.name,
    collections: [pendingDocs.name],
    indexes: [{ collection: pendingDocs.name, spec: { keys: { world: 1, queuedAt: 1, n: 1 }, name: 'world_queue' } }],
    // Bump when `fold` changes what it writes.
    // 2: an expired scratch world's documents are deleted (ScratchExpired).
    // 3: the argument is kept as JSON text (a deep argument reached MongoDB's 100 levels).
    // 4: a carry entry lays the carried present's queued sends over the world's.
    version: 4,
    perWorld: [pendingDocs.name],
    fold,
    carry: async ({ world, entry }, unit) => {
      const docs = pendingDocs.in(unit);
      if (!entry.carried!.part) await docs.deleteMany({ world });
      const sends = entry.carried!.present.pending.map((s) => {
        const [h, n] = s.id.split('.').map(Number) as [number, number];
        return { _id: worldKey(world, s.id), world, ...s, queuedAt: h, n };
      });
      for (let i = 0; i < sends.length; i += 1000) await docs.putMany(sends.slice(i, i + 1000));
    },
  });
}

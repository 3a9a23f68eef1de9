/**
 * The offers projection: every card made for a guest (spec 4.2 `offers`), in journal order.
 *
 *   offers.offers  _id `<world> <height>.<n>` (the n-th offer of the entry at that height)
 *
 * Idempotent: an offer is written whole under a key fixed by where it lies in the journal.
 */
import type { Doc, Unit } from '../stores/read-store.js';
import type { StoredEntry } from '../events/world.js';
import { DocBatch, worldKey, worldProjection } from './entries.js';
import type { Projection } from './projection.js';
import { readModel } from './read-model.js';

export interface OfferDoc extends Doc {
  world: string;
  principal: string;
  height: number;
  n: number;
  object: string;
  kind: string;
  text: string;
  /** Content id of the entry that made it (its receipt). */
  cid: string;
  slug: string;
}

/** The offers read model and its collection, as the projection and its readers name them. */
export const offersModel = readModel('offers');
export const offerDocs = offersModel.collection<OfferDoc>('offers');

export function offersProjection(): Projection {
  async function fold(entries: StoredEntry[], unit: Unit): Promise<void> {
    const offered = entries.filter((e) => e.entry.offers?.length);
    if (!offered.length) return;
    const offers = new DocBatch(offerDocs.in(unit));
    await offers.load(offered.flatMap(({ world, entry }) => entry.offers!.map((_, n) => worldKey(world, `${entry.height}.${n}`))));
    for (const { world, entry } of offered) {
      const list = entry.offers ?? [];
      for (let n = 0; n < list.length; n++) {
        const o = list[n]!;
        const doc: OfferDoc = {
          _id: worldKey(world, `${entry.height}.${n}`),
          world,
          principal: o.principal,
          height: entry.height,
          n,
          object: o.object,
          kind: o.kind,
          text: o.text,
          cid: entry.cid,
          slug: entry.slug,
        };
        if (!offers.has(doc._id)) offers.set(doc);
      }
    }
    await offers.flush();
  }
  return worldProjection({
    name: offersModel.name,
    collections: [offerDocs.name],
    indexes: [{ collection: offerDocs.name, spec: { keys: { principal: 1, world: 1, height: 1 }, name: 'principal_world_height' } }],
    // Bump when `fold` changes what it writes.
    // 2: an expired scratch world's documents are deleted (ScratchExpired).
    // 3: a carry entry keeps of the world's offers from before it those the kernel keeps
    //    (the newest 64 a guest), with the content id and slug of the entry that made each.
    version: 3,
    perWorld: [offerDocs.name],
    fold,
    carry: async ({ world, entry }, unit) => {
      const carried = entry.carried!;
      const docs = offerDocs.in(unit);
      if (!carried.part) await docs.deleteMany({ world, height: { $lt: entry.height } });
      const kept: OfferDoc[] = [];
      for (const { principal, offers } of carried.present.offers) {
        // n: the offer's place among the guest's kept offers (the key names the guest: two
        // guests' offers of one entry may lie in different parts of a carry)
        offers.forEach((o, n) => {
          kept.push({
            _id: worldKey(world, `${o.height}.${principal}.${n}`),
            world,
            principal: o.principal,
            height: o.height,
            n,
            object: o.object,
            kind: o.kind,
            text: o.text,
            cid: o.cid ?? '',
            slug: o.slug ?? '',
          });
        });
      }
      for (let i = 0; i < kept.length; i += 1000) await docs.putMany(kept.slice(i, i + 1000));
    },
  });
}

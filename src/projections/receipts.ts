/**
 * The receipts projection: one document per journal entry, found by its content id (`_id`), by
 * its spoken name (`slug`, which several receipts may share) or by its principal's intent.
 * A document holds what anyone may read of a receipt and what it is found by; the whole entry
 * its principal may read is the journal's own event, read by its height (the journal is the
 * record; a read model keeps no second copy of it, and rebuilds write one small document per
 * entry).
 *
 * Idempotent: a receipt is written whole, under its content id.
 */
import type { Entry, ReceiptBody } from '../cards/kernel/entry.js';
import type { Doc, Unit } from '../stores/read-store.js';
import type { StoredEntry } from '../events/world.js';
import { DocBatch, worldProjection } from './entries.js';
import type { Projection } from './projection.js';
import { readModel } from './read-model.js';

export interface ReceiptDoc extends Doc {
  world: string;
  slug: string;
  height: number;
  clock: number;
  kind: Entry['kind'];
  principal: string;
  intent?: string;
  object: string;
  method: string;
  status: ReceiptBody['status'];
  class?: string;
  line: string;
}

/** The receipts read model and its collection, as the projection and its readers name them. */
export const receiptsModel = readModel('receipts');
export const receiptDocs = receiptsModel.collection<ReceiptDoc>('receipts');

/** What a receipt is about: the object and method the receipt names, else the request's. */
export const receiptObject = (e: Entry) => e.receipt.object ?? e.request?.object ?? '';
export const receiptMethod = (e: Entry) => e.receipt.method ?? e.request?.method ?? '';

export function receiptDoc(world: string, entry: Entry): ReceiptDoc {
  const r = entry.receipt;
  return {
    _id: entry.cid,
    world,
    slug: entry.slug,
    height: entry.height,
    clock: entry.clock,
    kind: entry.kind,
    principal: entry.principal,
    ...(entry.intent ? { intent: entry.intent.intent } : {}),
    object: receiptObject(entry),
    method: receiptMethod(entry),
    status: r.status,
    ...(r.class !== undefined ? { class: r.class } : {}),
    line: r.line,
  };
}

export function receiptsProjection(): Projection {
  async function fold(entries: StoredEntry[], unit: Unit): Promise<void> {
    const receipts = new DocBatch(receiptDocs.in(unit));
    await receipts.load(entries.map((e) => e.entry.cid));
    for (const { world, entry } of entries) if (!receipts.has(entry.cid)) receipts.set(receiptDoc(world, entry));
    await receipts.flush();
  }
  return worldProjection({
    name: receiptsModel.name,
    collections: [receiptDocs.name],
    indexes: [
      { collection: receiptDocs.name, spec: { keys: { slug: 1 }, name: 'slug' } },
      { collection: receiptDocs.name, spec: { keys: { principal: 1, intent: 1 }, name: 'principal_intent' } },
      // A resident's commonplace book (/o/{handle}/book): their receipts, newest first.
      { collection: receiptDocs.name, spec: { keys: { principal: 1, height: -1 }, name: 'principal_height' } },
      // town.world.getEntry by height, without scanning every receipt.
      { collection: receiptDocs.name, spec: { keys: { world: 1, height: 1 }, name: 'world_height' } },
    ],
    // Bump when `fold` (or receiptDoc) changes what it writes.
    // 2: an expired scratch world's documents are deleted (ScratchExpired).
    // 3: a carry entry drops the world's receipts from before it (they are pointers now: the
    //    archive holds them, the kernel's past answers for them; queries/receipt.ts).
    version: 3,
    perWorld: [receiptDocs.name],
    fold,
    carry: async ({ world, entry }, unit) => {
      if (!entry.carried!.part) await receiptDocs.in(unit).deleteMany({ world, height: { $lt: entry.height } });
    },
  });
}

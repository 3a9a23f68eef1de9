/**
 * A projection is a fold from journal events to read-model documents. It must be idempotent:
 * re-applying an event it already applied (after a crash between writes and checkpoint on a
 * store without transactions, or a rebuild) leaves the documents as they were.
 */
import type { RecordedEvent } from '../stores/event-store.js';
import type { IndexSpec, Unit } from '../stores/read-store.js';

export interface Projection {
  /** Also the checkpoint's name and the prefix of every collection it owns. */
  name: string;
  /**
   * The version of its fold. Bump it with every change to the fold that changes what it writes
   * (a field added, renamed or computed otherwise, documents keyed otherwise): a start over a
   * read model built by another version rebuilds it from the journal (versions.ts) instead of
   * serving documents of the old shape. The store keeps the version a read model was built
   * with beside its checkpoint.
   */
  version: number;
  /** Collections this projection writes (all named `<name>.<something>`), for drop and digest. */
  collections: string[];
  /**
   * Collections dropped and rebuilt with it but left out of its digest: what depends on how the
   * journal arrived (how many entries one unit folded), not on what it holds.
   */
  digestOmits?: string[];
  /** Fields of a collection's documents left out of its digest, for the same reason (by collection). */
  digestOmitsFields?: Record<string, string[]>;
  indexes?: { collection: string; spec: IndexSpec }[];
  /** Event types it folds; others are skipped without a call (but still checkpointed). */
  handles(type: string): boolean;
  /** Fold one event into the unit. */
  apply(event: RecordedEvent, unit: Unit): Promise<void>;
  /**
   * Fold several events (in position order, all of types it handles) into the unit at once.
   * Projections that touch the same documents again and again (a card written by every turn)
   * read each document once per batch and write it once, which is what makes catch-up and
   * rebuilds fast. Without it, `apply` is called per event.
   */
  applyBatch?(events: RecordedEvent[], unit: Unit): Promise<void>;
  /**
   * Forgets what the fold remembers of its read model between units (a cache of documents the
   * store holds): called when the read model is dropped, so a projection object folded again
   * into the emptied store (a second rebuild in one process) writes everything again.
   */
  reset?(): void;
}

/** Folds a batch with applyBatch when the projection has it, else event by event. */
export async function applyEvents(projection: Projection, events: RecordedEvent[], unit: Unit): Promise<void> {
  const mine = events.filter((e) => projection.handles(e.type));
  if (!mine.length) return;
  if (projection.applyBatch) return projection.applyBatch(mine, unit);
  for (const event of mine) await projection.apply(event, unit);
}

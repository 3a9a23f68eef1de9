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
  /** Collections this projection writes (all named `<name>.<something>`), for drop and digest. */
  collections: string[];
  indexes?: { collection: string; spec: IndexSpec }[];
  /** Event types it folds; others are skipped without a call (but still checkpointed). */
  handles(type: string): boolean;
  /** Fold one event into the unit. */
  apply(event: RecordedEvent, unit: Unit): Promise<void>;
}

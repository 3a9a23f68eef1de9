/**
 * Chooses the EventStore adapter: EventStoreDB when a url is given (the app passes
 * EVENTSTORE_URL), otherwise the embedded LMDB store under the data directory.
 */
import type { EventStore } from './event-store.js';
import { openEmbeddedEventStore } from './embedded/event-store.js';
import type { JournalIo } from './embedded/journal.js';
import type { DiskGuard } from './embedded/disk-guard.js';

export interface OpenEventStoreOptions {
  /** `esdb://…` connection string; empty or absent means the embedded store. */
  url?: string;
  /** The app's data directory (./data by default, or TOWN_DATA). */
  dataDir: string;
  /** The embedded journal's file writes, replaced by tests that make the disk fail. */
  journalIo?: Partial<JournalIo>;
  /** The most bytes one append may carry (EVENTSTORE_MAX_APPEND_SIZE; default 1 MiB, as eventstore.conf). */
  maxAppendSize?: number;
  /** The free-space watermark the embedded journal checks before each group (embedded/disk-guard.ts). */
  diskGuard?: DiskGuard;
}

export async function openEventStore(options: OpenEventStoreOptions): Promise<EventStore> {
  const url = options.url?.trim();
  if (url) {
    // Loaded only when asked for, as the MongoDB driver is (open-read-store.ts).
    const { openEsdbEventStore } = await import('./esdb/event-store.js');
    return openEsdbEventStore({ url, ...(options.maxAppendSize !== undefined ? { maxAppendSize: options.maxAppendSize } : {}) });
  }
  return openEmbeddedEventStore({
    dataDir: options.dataDir,
    ...(options.journalIo ? { journalIo: options.journalIo } : {}),
    ...(options.diskGuard ? { diskGuard: options.diskGuard } : {}),
    ...(options.maxAppendSize !== undefined ? { maxAppendSize: options.maxAppendSize } : {}),
  });
}

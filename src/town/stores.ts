/**
 * The town's stores: the journal (EventStoreDB or the embedded one) and the read store (MongoDB
 * or the embedded one), and on the embedded stores the free-space watermark that guards both.
 * They open before any service, and close last (src/town/shutdown.ts).
 */
import { openEventStore } from '../stores/open-event-store.js';
import { openReadStore } from '../stores/open-read-store.js';
import { DiskGuard, defaultMinFreeBytes } from '../stores/embedded/disk-guard.js';
import type { EventStore } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import { SharedFronts } from '../stores/embedded/shared-fronts.js';
import { openJournalClient } from '../stores/embedded/journal-client.js';
import { type AppendServer, serveAppends } from '../stores/embedded/append-server.js';
import { appendSocketPath } from '../stores/embedded/append-protocol.js';
import { EmbeddedEventStore } from '../stores/embedded/event-store.js';
import type { Settings } from '../config.js';
import type { TownOptions } from './options.js';

export interface Stores {
  events: EventStore;
  reads: ReadStore;
  /** The free-space watermark, on the embedded stores only. */
  diskGuard?: DiskGuard;
}

export async function openStores({ settings, diskFree, journalIo }: TownOptions): Promise<Stores> {
  // The embedded stores keep free space on the data directory's disk (src/stores/embedded/disk-guard.ts).
  const diskGuard =
    settings.eventStoreUrl && settings.mongoUrl ? undefined : new DiskGuard(settings.dataDir, settings.minFreeBytes ?? defaultMinFreeBytes, diskFree);
  // An extra front reads the journal and appends through the town that owns it.
  const events = settings.front
    ? await openJournalClient({ dataDir: settings.dataDir, ...(settings.maxAppendSize !== undefined ? { maxAppendSize: settings.maxAppendSize } : {}) })
    : await openEventStore({
        url: settings.eventStoreUrl,
        ...(diskGuard ? { diskGuard } : {}),
        dataDir: settings.dataDir,
        maxAppendSize: settings.maxAppendSize,
        ...(journalIo ? { journalIo } : {}),
      });
  try {
    const reads = await openReadStore({
      url: settings.mongoUrl,
      dataDir: settings.dataDir,
      ...(diskGuard ? { diskGuard } : {}),
      // Projector workers beside this town fold into the embedded read store too.
      ...(!settings.inProcessProjectors && !settings.mongoUrl ? { shared: true } : {}),
    });
    return { events, reads, ...(diskGuard ? { diskGuard } : {}) };
  } catch (error) {
    await events.close();
    throw error;
  }
}

/**
 * lmdb keeps this thread's read snapshot of the read store (the versions and indexes just read)
 * until a timer of its own ends it, and loading the world holds the thread for up to seconds
 * without one firing. The projector threads write meanwhile, and a snapshot pinned across their
 * writes meets lmdb 3.5.6's free-list defect: a commit aborted, or the process
 * (docs/decisions/lmdb-defects.md). So the snapshot ends first: this lets that timer fire.
 */
export function endReadSnapshot(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * With projector workers on the embedded stores, the town that owns the journal takes the
 * appends of the box's other fronts on `<TOWN_DATA>/events/append.sock` (closed before the
 * journal: the fronts' calls in flight fail and are retried).
 */
export async function serveFronts(settings: Settings, { events }: Stores): Promise<AppendServer | undefined> {
  if (settings.front || !(events instanceof EmbeddedEventStore) || settings.inProcessProjectors) return undefined;
  return serveAppends(events, appendSocketPath(settings.dataDir));
}

/**
 * With projector workers on the embedded stores, the box may have several fronts: each keeps its
 * guests' read-your-writes notes and rate-limit logs where the others read them too
 * (src/stores/embedded/shared-fronts.ts).
 */
export function sharedFronts(settings: Settings): SharedFronts | undefined {
  return !settings.inProcessProjectors && !settings.eventStoreUrl && !settings.mongoUrl ? SharedFronts.open(settings.dataDir) : undefined;
}

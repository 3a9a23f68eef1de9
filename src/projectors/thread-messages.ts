/**
 * What the server's side of the projector thread (thread.ts) and the thread itself
 * (thread-worker.ts) say to each other: the data the thread starts with and the messages each
 * way. Its own module, so the two sides share it without importing each other.
 */
import type { Module } from '../cards/program.js';
import type { ProjectionName } from '../projections/index.js';
import type { RecordedEvent } from '../stores/event-store.js';
import type { OpenReadStoreOptions } from '../stores/open-read-store.js';

/** What the projector thread is started with (structured-cloned into it). */
export interface ThreadData {
  readStore: OpenReadStoreOptions;
  names: ProjectionName[];
  libraryModules: readonly Module[];
  batch: number;
  /** The data directory whose repository keys sign (absent: the repository is not signed here). */
  signing?: string;
  lingerMs?: number;
  /** ProjectorOptions.commitGapMs of the thread's projector. */
  commitGapMs: number;
  /** Nice value of the thread (Linux): how readily it gives way to the thread answering requests. */
  nice?: number;
  /**
   * Give way to a busy town (ProjectorOptions.giveWay): while the journal grows by
   * `journalBytesPerSecond` (only when the thread reads the journal itself) or the process spends
   * `cpuPerSecond` µs of CPU a second or more.
   */
  giveWay?: { journalBytesPerSecond: number; cpuPerSecond: number; maxLagMs: number };
  /**
   * Who holds the projections' leases: one name for every thread this projector spawns, so a
   * thread started again after a failure takes the leases over at once (and fences the old one).
   */
  leaseHolder: string;
}

/** Messages from this side to the projector thread. */
export type ToThread =
  /** `deleted`: the streams deleted so far, whose frames the thread passes over (it learns of later ones from the journal). */
  | { journal: { file: string; from: number; to: number; deleted: string[] } }
  | { durable: number }
  | { events: RecordedEvent[] }
  | { caughtUp: true }
  | { feedFailed: string }
  /** Fold nothing more: commit what was given, close the read store, answer `suspended`. */
  | { suspend: true }
  /** Open the read store again (at its generation now) and fold from its checkpoints. */
  | { resume: true }
  /** Someone waits for a position the thread has not committed: end a wait between units (Projector.nudge). */
  | { nudge: true }
  | { stop: true };

/** Messages from the projector thread. */
export type FromThread =
  | { subscribe: { after: bigint | undefined } }
  /** Reading the journal: everything up to this offset is read; the thread waits for more. */
  | { read: number }
  | { started: { checkpoints: [string, bigint | undefined][] } }
  | { took: number }
  | { advanced: { position: bigint; folded: number } }
  | { caughtUp: true }
  | { failed: string }
  | { suspended: true }
  | { stopped: true };

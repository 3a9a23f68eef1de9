/**
 * Rebuild: drop read models and fold the whole journal into them again, in large units,
 * reporting progress. Several projections are rebuilt in one pass over the journal (each event
 * is read and decoded once). Analysts run it against a copy of the data directory
 * (`npm run rebuild`); a start rebuilds the read models built by another version of their fold
 * (versions.ts). Either way the same progress bar is drawn (progressBar).
 */
import type { EventStore, RecordedEvent } from '../stores/event-store.js';
import { UnitTooLarge, type ReadStore } from '../stores/read-store.js';
import { entryOf } from './entries.js';
import { applyEvents, type Projection } from './projection.js';

export interface Progress {
  projection: string;
  events: number;
  position: bigint;
  head: bigint;
  eventsPerSecond: number;
  /** Seconds left, estimated from the share of positions still to fold. */
  etaSeconds: number | undefined;
}

export interface RebuildOptions {
  /** Events per unit (default 10,000: one durable commit per batch, so fewer is slower). */
  batch?: number;
  onProgress?(p: Progress): void;
  now?: () => number;
}

export async function rebuildProjection(events: EventStore, reads: ReadStore, projection: Projection, options: RebuildOptions = {}): Promise<RebuildResult> {
  return rebuildProjections(events, reads, [projection], options);
}

export interface RebuildResult {
  events: number;
  seconds: number;
  /** Units the store refused as too large (UnitTooLarge) and that were folded again in halves. */
  splits: number;
}

export async function rebuildProjections(
  events: EventStore,
  reads: ReadStore,
  projections: Projection[],
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  await prepareRebuild(reads, projections);
  return foldJournal(events, reads, projections, options);
}

/**
 * The first half of a rebuild: each read model dropped, its indexes made again and its version
 * set, with no checkpoint. A rebuild across processes (`npm run rebuild -- --workers=n`) does
 * this once, in the process that owns the store, before the others fold.
 */
export async function prepareRebuild(reads: ReadStore, projections: readonly Projection[]): Promise<void> {
  for (const projection of projections) {
    await reads.drop(`${projection.name}.`);
    await reads.drop(projection.name);
    projection.reset?.();
    for (const { collection, spec } of projection.indexes ?? []) {
      await reads.collection(collection).createIndex(spec);
    }
  }
  // Empty, with no checkpoint, and from now on built by this version of each fold: a rebuild
  // that stops part-way is resumed from its checkpoint by the next projector, not begun again.
  await reads.unit(async (unit) => {
    for (const projection of projections) unit.setVersion(projection.name, projection.version);
  });
}

export interface FoldJournalOptions extends RebuildOptions {
  /** The last position folded (default: the journal's head when the fold starts). */
  head?: bigint;
}

/**
 * The second half: the whole journal, up to its head, folded into read models that
 * prepareRebuild emptied, in units of `batch` events, each checkpoint at its unit's last event.
 */
export async function foldJournal(
  events: EventStore,
  reads: ReadStore,
  projections: readonly Projection[],
  options: FoldJournalOptions = {},
): Promise<RebuildResult> {
  const now = options.now ?? (() => performance.now());
  const batch = options.batch ?? 10_000;
  const label = projections.map((p) => p.name).join(',');
  const head = options.head ?? (await events.headPosition()) ?? 0n;
  const started = now();
  let count = 0;
  let first: bigint | undefined;
  let pending: RecordedEvent[] = [];
  // The unit folding the previous batch: the journal is read while it commits (its fsync runs
  // off the main thread), and it is awaited before the next unit starts, so at most one batch
  // waits in memory and an error stops the rebuild at the next batch.
  let inflight: Promise<void> | undefined;
  // A store that caps its units (MongoDB) may refuse a batch: it is folded in halves, and the
  // batches after it at most as large as the last unit that fitted.
  const sizing: ChunkSizing = { max: batch, splits: 0 };
  const commit = async (): Promise<void> => {
    if (!pending.length) return;
    const chunk = pending;
    pending = [];
    const last = await foldChunk(reads, projections, chunk, sizing);
    count += chunk.length;
    first ??= chunk[0]!.position;
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? count / seconds : 0;
    const done = Number(last - first) + 1;
    const left = Number(head - last);
    options.onProgress?.({
      projection: label,
      events: count,
      position: last,
      head,
      eventsPerSecond: rate,
      etaSeconds: done > 0 && seconds > 0 ? (left / done) * seconds : undefined,
    });
  };
  const startCommit = async (): Promise<void> => {
    if (inflight) await inflight;
    inflight = commit();
    inflight.catch(() => undefined); // observed here; rethrown where it is awaited
  };
  for await (const event of events.readAll()) {
    if (event.position > head) break; // what arrives during a rebuild is the live projector's
    // Checked as read, while the previous unit commits on LMDB's write thread (this thread
    // would wait for it otherwise); every world projection then finds the entry checked.
    entryOf(event);
    pending.push(event);
    if (pending.length >= batch) await startCommit();
  }
  await startCommit();
  await inflight;
  return { events: count, seconds: (now() - started) / 1000, splits: sizing.splits };
}

/** Where a progress bar is drawn: a terminal (redrawn in place) or a log (a line at a time). */
export interface ProgressOut {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressBar {
  onProgress(p: Progress): void;
  /** Draws the last progress reported (if any) and ends the line. */
  end(): void;
}

/**
 * The progress bar `npm run rebuild` draws: redrawn at most every 100 ms on a terminal, a line
 * a second into a log, and the last state always.
 */
export function progressBar(out: ProgressOut = process.stderr, now: () => number = () => performance.now()): ProgressBar {
  const tty = out.isTTY === true;
  let shown = Number.NEGATIVE_INFINITY;
  let last: Progress | undefined;
  let drawn: Progress | undefined;
  const draw = (p: Progress) => {
    drawn = p;
    out.write(tty ? `\r${progressLine(p)}` : `${progressLine(p)}\n`);
  };
  return {
    onProgress(p) {
      last = p;
      const at = now();
      if (at - shown < (tty ? 100 : 1000)) return;
      shown = at;
      draw(p);
    },
    end() {
      if (last && last !== drawn) draw(last);
      if (tty && drawn) out.write('\n');
    },
  };
}

/** One line of progress bar for a terminal: `cards [#####.....] 52% 61,230 ev/s ETA 3s`. */
export function progressLine(p: Progress, width = 30): string {
  const share = p.head > 0n ? Math.min(1, Number(p.position) / Number(p.head)) : 1;
  const filled = Math.round(share * width);
  const eta = p.etaSeconds === undefined ? '?' : `${Math.ceil(p.etaSeconds)}s`;
  return `${p.projection.padEnd(10)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(share * 100)).padStart(3)}% ${Math.round(p.eventsPerSecond).toLocaleString('en')} ev/s ETA ${eta}`;
}

/** How many events a unit takes at most, lowered each time the store refuses one as too large. */
export interface ChunkSizing {
  max: number;
  /** Units refused as too large (UnitTooLarge) and folded again in halves. */
  splits: number;
}

/**
 * Folds a chunk of events into every projection, each checkpoint at its last event: in one unit,
 * or, where the store refuses a unit as too large (UnitTooLarge: MongoDB's cap on a transaction),
 * in units of half as many events, halved again until they fit; `sizing` keeps the size that
 * fitted for the chunks after it. Nothing of a refused unit was written, and what the folds keep
 * in memory changes only when a unit commits (Unit.onCommit), so folding its events again is
 * folding them once.
 */
export async function foldChunk(reads: ReadStore, projections: readonly Projection[], chunk: RecordedEvent[], sizing?: ChunkSizing): Promise<bigint> {
  const size = sizing ?? { max: chunk.length, splits: 0 };
  let last = chunk[chunk.length - 1]!.position;
  for (let i = 0; i < chunk.length; ) {
    const n = Math.min(chunk.length - i, Math.max(1, size.max));
    const part = n === chunk.length ? chunk : chunk.slice(i, i + n);
    try {
      last = await foldUnit(reads, projections, part);
      i += n;
    } catch (error) {
      if (!(error instanceof UnitTooLarge) || n < 2) throw error;
      size.max = Math.ceil(n / 2);
      size.splits++;
    }
  }
  return last;
}

/** Folds events into every projection in one unit, each checkpoint at the last event. */
async function foldUnit(reads: ReadStore, projections: readonly Projection[], chunk: RecordedEvent[]): Promise<bigint> {
  const last = chunk[chunk.length - 1]!.position;
  await reads.unit(async (unit) => {
    for (const projection of projections) {
      await applyEvents(projection, chunk, unit);
      unit.setCheckpoint(projection.name, last);
    }
  });
  return last;
}

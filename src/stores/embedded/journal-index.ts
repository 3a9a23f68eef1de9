/**
 * The embedded store's index: where each event sits in the journal. It is DERIVED from the
 * journal (embedded/journal.ts), so it never costs the append path a sync: it is written in
 * batches, without syncing, while the journal waits for its own synced write; it may lag the
 * journal after a crash, and opening the store re-indexes the journal from the index's newest
 * entry.
 *
 * LMDB, one environment under `<dataDir>/events`:
 *   offsets        position            -> journal offset, for every CHECKPOINT-th position
 *                                         (a read of $all skips frame headers from there)
 *   stream-chunks  [stream, chunk]     -> journal offsets of revisions chunk * CHUNK onwards,
 *                                         at most CHUNK of them (one put per stream and commit
 *                                         instead of one per event)
 *   meta           'through'           -> newest indexed position: the journal must reach it
 *
 * LMDB without syncs is whole after a process crash (the OS has every write) but not after a
 * power cut or OS crash. `index-state.json` says whether the environment can be trusted: it is
 * written (and synced) as "in use on boot B" before the first write of a session and as "clean"
 * after a synced close. An index last used on another boot and not closed cleanly is thrown away
 * and rebuilt from the journal (the state file keeps `through` for it).
 *
 * Events that are durable in the journal but whose index commit is not yet visible are kept in
 * memory ("recent"), so every lookup answers at once for every durable event.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { survivingCommitFailures } from './lmdb-commit-failure.js';
import type { FrameLocation } from './frames.js';
import { bootId } from './lock.js';

const LAST_REVISION = Number.MAX_SAFE_INTEGER;
/** Every CHECKPOINT-th position has an `offsets` entry (positions 1, 1 + CHECKPOINT, ...). */
export const CHECKPOINT = 32;
/** Revisions per `stream-chunks` entry. */
export const CHUNK = 64;
/**
 * Entries go to LMDB in one commit at most this often, while the journal waits for a sync (or,
 * without syncs, after twice this long): fewer, bigger commits write fewer B-tree pages.
 */
const DRAIN_INTERVAL_MS = 20;
const STATE_FILE = 'index-state.json';

/** Events of one append, as the index keeps them. */
export interface IndexedAppend {
  stream: string;
  firstPosition: number;
  firstRevision: number;
  /** Journal offset of each event's frame. */
  offsets: number[];
}

export interface RecentStream {
  /** Revision of `offsets[0]`. */
  base: number;
  offsets: number[];
}

/** The index does not hold revisions below the ones being indexed: it does not match the journal. */
export class IndexGap extends Error {
  constructor(stream: string, revision: number) {
    super(`event index lacks revisions of ${stream} before ${revision}`);
    this.name = 'IndexGap';
  }
}

/** One stream's consecutive new revisions in a batch. */
interface Run {
  first: number;
  offsets: number[];
}

function addToRun(runs: Map<string, Run>, stream: string, revision: number, offset: number): void {
  const run = runs.get(stream);
  if (!run) runs.set(stream, { first: revision, offsets: [offset] });
  else if (revision === run.first + run.offsets.length) run.offsets.push(offset);
  else throw new IndexGap(stream, revision);
}

class IndexQueue {
  streams: string[] = [];
  revisions: number[] = [];
  offsets: number[] = [];
  /** Position of the last entry (entries are consecutive positions). */
  lastPosition = 0;
}

interface IndexState {
  boot: string | undefined;
  clean: boolean;
  /** `through` when the state was written. */
  through?: number;
}

export class JournalIndex {
  private readonly offsets: Database<number, number>;
  private readonly chunks: Database<number[], [string, number]>;
  private readonly meta: Database<number, string>;
  /** Position of `recentOffsets[0]`; every position below it is visible in LMDB. */
  private recentBase = 1;
  private recentOffsets: number[] = [];
  /** Per stream: the revisions not yet visible in LMDB (always the newest ones, contiguous). */
  private readonly recentStreams = new Map<string, RecentStream>();
  /** Entries not yet handed to LMDB, as parallel arrays (no object per event to collect). */
  private queue = new IndexQueue();
  private timer: NodeJS.Timeout | undefined;
  private lastDrain = 0;
  /** Set when LMDB refused a write: from then on the index stays in memory until the next open. */
  private failure: Error | undefined;
  private closed = false;

  /** Opens the index in `dir`, first throwing it away if it cannot be trusted. */
  static open(dir: string): JournalIndex {
    const boot = bootId();
    const state = readState(dir);
    const hasEnvironment = fs.existsSync(path.join(dir, 'data.mdb'));
    const trusted = state !== undefined && (state.clean || (boot !== undefined && state.boot === boot));
    if (hasEnvironment && !trusted) {
      fs.rmSync(path.join(dir, 'data.mdb'), { force: true });
      fs.rmSync(path.join(dir, 'lock.mdb'), { force: true });
    }
    survivingCommitFailures();
    const env = open({ path: dir, maxDbs: 4, noSync: true, overlappingSync: false });
    const index = new JournalIndex(dir, env, boot, state?.through ?? 0);
    // On disk before LMDB writes anything unsynced in this session; `through` outlives a rebuild.
    writeState(dir, { boot, clean: false, through: index.through() });
    return index;
  }

  private constructor(
    private readonly dir: string,
    private readonly env: RootDatabase,
    private readonly boot: string | undefined,
    /** `through` as the state file last recorded it (it survives the index being thrown away). */
    private readonly recordedThrough: number,
  ) {
    this.offsets = env.openDB<number, number>({ name: 'offsets' });
    this.chunks = env.openDB<number[], [string, number]>({ name: 'stream-chunks' });
    this.meta = env.openDB<number, string>({ name: 'meta' });
  }

  /**
   * Newest position ever indexed (0 for none). Only durable events are indexed, so the journal
   * must hold at least this many: anything less is damage, not a torn tail.
   */
  through(): number {
    return Math.max(this.meta.get('through') ?? 0, this.recordedThrough);
  }

  /** The newest checkpoint (where re-indexing the journal starts), if any. */
  newest(): { position: number; offset: number } | undefined {
    for (const { key, value } of this.offsets.getRange({ reverse: true, limit: 1 })) return { position: key, offset: value };
    return undefined;
  }

  /** Drops every entry: the journal did not match, so it is indexed again from its start. */
  clear(): void {
    // `through` stays: it is a claim about the journal, not about these entries.
    this.env.transactionSync(() => {
      this.offsets.clearSync();
      this.chunks.clearSync();
    });
    this.env.resetReadTxn();
  }

  /**
   * Indexes events found while opening (which may index some again: they start at a checkpoint).
   * Throws IndexGap when the index lacks revisions before them: it does not match the journal.
   */
  load(frames: FrameLocation[]): void {
    if (frames.length === 0) return;
    const runs = new Map<string, Run>();
    for (const f of frames) addToRun(runs, f.stream, f.revision, f.offset);
    this.env.transactionSync(() => {
      for (const f of frames) if (f.position % CHECKPOINT === 1) this.offsets.putSync(f.position, f.offset);
      this.writeRuns(runs, true);
      // Never lowered: should opening then refuse a journal shorter than it, the next try must too.
      this.meta.putSync('through', Math.max(this.through(), frames[frames.length - 1]!.position));
    });
    this.env.resetReadTxn();
  }

  /**
   * Puts each stream's run of new revisions into its chunks (inside a write transaction). With
   * `again`, a run may start below what a chunk already holds (re-indexing after a crash).
   */
  private writeRuns(runs: Map<string, Run>, again: boolean): void {
    for (const [stream, run] of runs) {
      let revision = run.first;
      let i = 0;
      while (i < run.offsets.length) {
        const chunk = Math.floor(revision / CHUNK);
        const inChunk = revision - chunk * CHUNK;
        const take = Math.min(CHUNK - inChunk, run.offsets.length - i);
        let value: number[] = [];
        if (inChunk > 0) {
          const existing = this.chunks.get([stream, chunk]) ?? [];
          if (existing.length < inChunk || (!again && existing.length !== inChunk)) throw new IndexGap(stream, revision);
          value = existing.length === inChunk ? existing : existing.slice(0, inChunk);
        }
        for (let k = 0; k < take; k++) value.push(run.offsets[i + k]!);
        this.chunks.putSync([stream, chunk], value);
        revision += take;
        i += take;
      }
    }
  }

  /** Ready for appends: everything up to `lastPosition` is in LMDB. */
  start(lastPosition: number): void {
    this.recentBase = lastPosition + 1;
  }

  /** A durable append: answerable at once, handed to LMDB by a later `drain`. */
  add(append: IndexedAppend): void {
    const { offsets } = append;
    for (let i = 0; i < offsets.length; i++) this.recentOffsets.push(offsets[i]!);
    const recent = this.recentStreams.get(append.stream);
    if (recent) for (let i = 0; i < offsets.length; i++) recent.offsets.push(offsets[i]!);
    else this.recentStreams.set(append.stream, { base: append.firstRevision, offsets: offsets.slice() });
    if (this.failure) return;
    const q = this.queue;
    for (let i = 0; i < offsets.length; i++) {
      q.streams.push(append.stream);
      q.revisions.push(append.firstRevision + i);
      q.offsets.push(offsets[i]!);
    }
    q.lastPosition = append.firstPosition + offsets.length - 1;
    this.timer ??= setTimeout(() => this.drain(true), 2 * DRAIN_INTERVAL_MS);
  }

  /**
   * Hands what is queued to LMDB in one commit, unless the last one is too recent; the entries
   * leave memory once LMDB has committed them.
   */
  drain(now = false): void {
    const batch = this.queue;
    if (batch.offsets.length === 0 || this.failure) return;
    const at = performance.now();
    if (!now && at - this.lastDrain < DRAIN_INTERVAL_MS) return;
    this.lastDrain = at;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = new IndexQueue();
    try {
      const { streams, revisions, offsets } = batch;
      const n = offsets.length;
      const runs = new Map<string, Run>();
      for (let i = 0; i < n; i++) addToRun(runs, streams[i]!, revisions[i]!, offsets[i]!);
      // Synchronous: without syncs a commit is only page writes to the OS, cheaper here (the
      // main thread is waiting for the journal anyway) than a hand-over to LMDB's writer thread.
      this.env.transactionSync(() => {
        const firstPosition = batch.lastPosition - n + 1;
        for (let i = 0; i < n; i++) {
          if ((firstPosition + i) % CHECKPOINT === 1) this.offsets.putSync(firstPosition + i, offsets[i]!);
        }
        this.writeRuns(runs, false);
        this.meta.putSync('through', batch.lastPosition);
      });
      // Reads from here on must see the commit before memory lets go of the entries.
      this.env.resetReadTxn();
    } catch (error) {
      this.fail(error);
      return;
    }
    this.forget(batch);
  }

  /**
   * LMDB refused a write. The journal still has every event and the next open re-indexes it;
   * until then the in-memory entries answer (they are no longer dropped).
   */
  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = error instanceof Error ? error : new Error(String(error));
    this.queue = new IndexQueue();
    process.emitWarning(`event index write failed, keeping it in memory: ${this.failure.message}`);
  }

  /** `batch` is visible in LMDB now: drop it from memory. */
  private forget(batch: IndexQueue): void {
    if (this.failure) return;
    // Batches are written in position order, so they are always the oldest recent entries.
    const { streams } = batch;
    const events = streams.length;
    let i = 0;
    while (i < events) {
      // Runs of one stream (an append) are forgotten together.
      const stream = streams[i]!;
      let n = 1;
      while (i + n < events && streams[i + n] === stream) n++;
      const recent = this.recentStreams.get(stream)!;
      if (n >= recent.offsets.length) this.recentStreams.delete(stream);
      else {
        recent.offsets.splice(0, n);
        recent.base += n;
      }
      i += n;
    }
    this.recentOffsets.splice(0, events);
    this.recentBase += events;
  }

  /**
   * Where to start reading for `position`: its own offset when it is recent, else the nearest
   * checkpoint at or below it (the caller skips `position - checkpoint` frames from there).
   */
  locate(position: number): { position: number; offset: number } | undefined {
    if (position >= this.recentBase) {
      const offset = this.recentOffsets[position - this.recentBase];
      return offset === undefined ? undefined : { position, offset };
    }
    for (const { key, value } of this.offsets.getRange({ start: position, reverse: true, limit: 1 })) return { position: key, offset: value };
    return undefined;
  }

  /** Revision of the stream's last durable event, or undefined for an absent stream. */
  lastRevision(stream: string): number | undefined {
    return lastRevisionIn(this.chunks, stream, this.recentStreams.get(stream));
  }

  /** Offsets of a stream's events, in the order asked for. Synchronous: one consistent view. */
  streamOffsets(stream: string, backwards: boolean, from: number | undefined, limit: number): number[] {
    return streamOffsetsIn(this.chunks, stream, backwards, from, limit, this.recentStreams.get(stream));
  }

  /** Writes what is queued, syncs LMDB, marks the index clean and closes it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.drain(true);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    let synced = false;
    if (!this.failure) {
      try {
        await new Promise<void>((resolve, reject) =>
          (this.env as unknown as { sync(cb: (error?: Error) => void): void }).sync((error) => (error ? reject(error) : resolve())),
        );
        synced = true;
      } catch {
        // Left marked "in use": the next open on another boot rebuilds it.
      }
    }
    const through = this.through();
    await this.env.close();
    if (synced) writeState(this.dir, { boot: this.boot, clean: true, through });
  }
}

/** The index's `stream-chunks` database, as the owner writes it and other processes read it. */
export type StreamChunks = Database<number[], [string, number]>;

/**
 * Revision of the stream's last event: the newest in `recent` (revisions not in LMDB yet), else
 * the newest in its chunks; undefined for an absent stream.
 */
export function lastRevisionIn(chunks: StreamChunks | undefined, stream: string, recent: RecentStream | undefined): number | undefined {
  if (recent && recent.offsets.length > 0) return recent.base + recent.offsets.length - 1;
  for (const { key, value } of chunks?.getRange({ start: [stream, LAST_REVISION], end: [stream, -1], reverse: true, limit: 1 }) ?? []) {
    return key[1] * CHUNK + value.length - 1;
  }
  return undefined;
}

/**
 * Offsets of a stream's events in the order asked for: revisions from `recent.base` on are in
 * `recent`, those below it in the chunks (none without an index). Synchronous, so LMDB answers from one snapshot.
 */
export function streamOffsetsIn(
  chunks: StreamChunks | undefined,
  stream: string,
  backwards: boolean,
  from: number | undefined,
  limit: number,
  recent: RecentStream | undefined,
): number[] {
  const out: number[] = [];
  if (limit <= 0) return out;
  // Revisions from `split` on are in memory, those below it in LMDB.
  const split = recent ? recent.base : LAST_REVISION + 1;
  const top = recent ? recent.base + recent.offsets.length - 1 : LAST_REVISION;
  if (!backwards) {
    const start = from ?? 0;
    if (start < split) {
      for (const { key, value } of chunks?.getRange({ start: [stream, Math.floor(start / CHUNK)], end: [stream, LAST_REVISION] }) ?? []) {
        const base = key[1] * CHUNK;
        for (let j = Math.max(0, start - base); j < value.length && base + j < split && out.length < limit; j++) out.push(value[j]!);
        if (out.length >= limit || base + value.length >= split) break;
      }
    }
    if (recent) {
      for (let r = Math.max(start, split); r <= top && out.length < limit; r++) out.push(recent.offsets[r - split]!);
    }
    return out;
  }
  const highest = Math.min(from ?? LAST_REVISION, top);
  if (recent) for (let r = highest; r >= split && out.length < limit; r--) out.push(recent.offsets[r - split]!);
  const below = Math.min(highest, split - 1);
  if (out.length < limit && below >= 0) {
    const range = { start: [stream, Math.floor(below / CHUNK)] as [string, number], end: [stream, -1] as [string, number], reverse: true };
    for (const { key, value } of chunks?.getRange(range) ?? []) {
      const base = key[1] * CHUNK;
      for (let j = Math.min(value.length - 1, below - base); j >= 0 && out.length < limit; j--) out.push(value[j]!);
      if (out.length >= limit) break;
    }
  }
  return out;
}

function readState(dir: string): IndexState | undefined {
  try {
    const state = JSON.parse(fs.readFileSync(path.join(dir, STATE_FILE), 'utf8')) as IndexState;
    return typeof state === 'object' && state !== null && typeof state.clean === 'boolean' ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Written in place and synced: a torn write reads as no state at all, which means "rebuild". */
function writeState(dir: string, state: IndexState): void {
  const file = path.join(dir, STATE_FILE);
  const existed = fs.existsSync(file);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, JSON.stringify(state));
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  if (!existed) {
    const dirFd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  }
}

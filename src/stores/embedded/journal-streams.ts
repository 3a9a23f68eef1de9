/**
 * Per-stream reads of the embedded journal from a process that does not own it (an HTTP front
 * beside the town): readStream and streamRevision with the embedded store's meaning, seeing
 * every event below the durable mark at the time of the call.
 *
 * The bulk comes from the owner's index (LMDB `stream-chunks`, opened read-only). The index is
 * drained from the owner's memory every ~20 ms, so what it does not hold yet (the frames after
 * its `through`) is read off the journal's frame heads into a tail kept here, incrementally on
 * each call, and let go once the index has caught up. Deleted streams are learnt from the
 * `$deleted` stream through the same reads.
 *
 * The index is derived and may be missing, thrown away or rebuilt by its owner: it is used only
 * while its newest checkpoint names the frame at that position in the journal, and a frame it
 * points to that is not the revision asked for makes it distrusted until it moves on. Without
 * it the tail holds the whole journal (read from its start).
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { ReadStreamOptions, RecordedEvent } from '../event-store.js';
import { checkReadStream } from '../event-store-checks.js';
import { DELETED_STREAM, toRecorded } from './event-store.js';
import { FrameFile } from './frame-file.js';
import { JOURNAL_MAGIC } from './frames.js';
import { CHECKPOINT, lastRevisionIn, streamOffsetsIn, type StreamChunks } from './journal-index.js';
import { JournalTail } from './journal-tail.js';
import type { Durable } from './durable-mark.js';

/** How often the index file is looked at again (it may have appeared or been replaced). */
const RECHECK_MS = 1000;

/** The index does not match the journal. */
class IndexMismatch extends Error {}

interface IndexEnv {
  env: RootDatabase;
  ino: number;
  offsets: Database<number, number>;
  chunks: StreamChunks;
  meta: Database<number, string>;
}

export class JournalStreams {
  private index: IndexEnv | undefined;
  private lookedAt = Number.NEGATIVE_INFINITY;
  /** The index's `through` when it was found not to match the journal: unused until it moves. */
  private distrusted: number | undefined;
  /** The newest checkpoint found to name its frame in the journal. */
  private checkedCheckpoint: { position: number; offset: number } | undefined;
  /** Whether the index is used by the reads of the current call. */
  private usingIndex = false;
  private readonly tail = new JournalTail();
  private readonly frames: FrameFile;
  private readonly deleted = new Set<string>();
  /** Revisions of `$deleted` learnt so far. */
  private tombstones = 0;
  private closed = false;

  constructor(
    private readonly dir: string,
    file: string,
    /** The durable end as the owner last published it. */
    private readonly durable: () => Durable,
  ) {
    this.frames = new FrameFile(file, () => this.durable().offset);
  }

  readStream(stream: string, options: ReadStreamOptions = {}): RecordedEvent[] {
    const { backwards, from, limit } = checkReadStream(stream, options);
    return this.attempt(() => {
      this.refresh();
      if (this.deleted.has(stream)) return [];
      const events: RecordedEvent[] = [];
      let previous: number | undefined;
      for (const offset of this.offsetsOf(stream, backwards, from, limit)) {
        const { payload } = this.frames.readAt(offset);
        // Forwards the first is the revision asked for; every next one follows the one before.
        const first = backwards ? payload.r : (from ?? 0);
        const expected = previous === undefined ? first : previous + (backwards ? -1 : 1);
        if (payload.s !== stream || payload.r !== expected) throw new IndexMismatch(`${stream} ${expected}`);
        previous = payload.r;
        events.push(toRecorded(payload));
      }
      return events;
    });
  }

  streamRevision(stream: string): bigint | undefined {
    checkReadStream(stream, {});
    return this.attempt(() => {
      this.refresh();
      if (this.deleted.has(stream)) return undefined;
      const head = lastRevisionIn(this.chunks(), stream, this.tail.stream(stream));
      if (head === undefined) return undefined;
      const [offset] = this.offsetsOf(stream, true, head, 1);
      const { payload } = this.frames.headAt(offset!);
      if (payload.s !== stream || payload.r !== head) throw new IndexMismatch(`${stream} ${head}`);
      return BigInt(head);
    });
  }

  /** The streams deleted below the durable mark. */
  deletedStreams(): string[] {
    return this.attempt(() => {
      this.refresh();
      return [...this.deleted];
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.frames.close();
    await this.index?.env.close();
    this.index = undefined;
  }

  /** Runs a read; when the index turns out not to match the journal, runs it again without it. */
  private attempt<T>(read: () => T): T {
    if (this.closed) throw new Error('event store is closed');
    try {
      return read();
    } catch (error) {
      if (!(error instanceof IndexMismatch) || !this.index) throw error;
      this.distrusted = this.throughOf(this.index);
      this.checkedCheckpoint = undefined;
      return read();
    }
  }

  /** Brings the tail up to the durable mark, and learns the deletions up to it. */
  private refresh(): void {
    const mark = this.durable();
    const through = this.indexThrough();
    const tail = this.tail;
    if (through < tail.start - 1 || through > tail.last) {
      // The index holds less than the tail was read after (rebuilt, or not used), or more than it
      // holds: read on from what the index holds.
      tail.resetAfter(through, -1);
    } else tail.prune(through);
    if (mark.position > tail.last) {
      if (!tail.placed) tail.place(this.offsetAfter(tail.last));
      tail.read(this.frames, mark.offset, mark.position);
    }
    for (const offset of this.offsetsOf(DELETED_STREAM, false, this.tombstones, Number.POSITIVE_INFINITY)) {
      const { payload } = this.frames.readAt(offset);
      if (payload.s !== DELETED_STREAM || payload.r !== this.tombstones) throw new IndexMismatch(`${DELETED_STREAM} ${this.tombstones}`);
      this.deleted.add((payload.d as { stream: string }).stream);
      this.tombstones++;
    }
  }

  private offsetsOf(stream: string, backwards: boolean, from: number | undefined, limit: number): number[] {
    return streamOffsetsIn(this.chunks(), stream, backwards, from, limit, this.tail.stream(stream));
  }

  private chunks(): StreamChunks | undefined {
    return this.usingIndex ? this.index?.chunks : undefined;
  }

  /**
   * The newest position the index holds for this call's reads (0: the index is not used), from
   * a fresh snapshot that the rest of the call's synchronous reads share.
   */
  private indexThrough(): number {
    this.usingIndex = false;
    const now = performance.now();
    if (now - this.lookedAt >= RECHECK_MS) {
      this.lookedAt = now;
      this.lookAtIndexFile();
    }
    const index = this.index;
    if (!index) return 0;
    let through: number;
    try {
      index.env.resetReadTxn();
      through = this.throughOf(index);
      if (through === 0 || through === this.distrusted) return 0;
      // Its newest checkpoint must be there (an index being rebuilt lacks it) and name its frame.
      const checkpoint = through - ((through - 1) % CHECKPOINT);
      const offset = index.offsets.get(checkpoint);
      if (offset === undefined) return 0;
      const checked = this.checkedCheckpoint;
      if (!checked || checked.position !== checkpoint || checked.offset !== offset) {
        if (this.frames.headAt(offset).payload.p !== checkpoint) return 0;
        this.checkedCheckpoint = { position: checkpoint, offset };
      }
    } catch {
      // Being replaced under us, or not a frame start: read without it.
      return 0;
    }
    this.distrusted = undefined;
    this.usingIndex = true;
    return through;
  }

  private throughOf(index: IndexEnv): number {
    return index.meta.get('through') ?? 0;
  }

  /** Offset of the first frame after `position`, from the index's checkpoint at or below it. */
  private offsetAfter(position: number): number {
    if (position === 0) return JOURNAL_MAGIC.length;
    const index = this.index;
    if (!index || !this.usingIndex) throw new IndexMismatch(`no index for position ${position + 1}`);
    for (const { key, value } of index.offsets.getRange({ start: position + 1, reverse: true, limit: 1 })) {
      if ((key - 1) % CHECKPOINT !== 0) break;
      return this.frames.skip(value, position + 1 - key);
    }
    throw new IndexMismatch(`no checkpoint at or below ${position + 1}`);
  }

  /** Opens the index when it appeared, again when its owner replaced it, closes it when gone. */
  private lookAtIndexFile(): void {
    let ino: number | undefined;
    try {
      ino = fs.statSync(path.join(this.dir, 'data.mdb')).ino;
    } catch {
      ino = undefined;
    }
    if (this.index && this.index.ino === ino) return;
    if (this.index) {
      void this.index.env.close().catch(() => {});
      this.index = undefined;
      this.checkedCheckpoint = undefined;
    }
    if (ino === undefined) return;
    try {
      const env = open({ path: this.dir, maxDbs: 4, readOnly: true });
      this.index = {
        env,
        ino,
        offsets: env.openDB<number, number>({ name: 'offsets' }),
        chunks: env.openDB<number[], [string, number]>({ name: 'stream-chunks' }),
        meta: env.openDB<number, string>({ name: 'meta' }),
      };
    } catch {
      // Being created by its owner: looked at again later.
    }
  }
}

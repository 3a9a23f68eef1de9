/**
 * The embedded store's journal: one append-only file that is THE durable record of `$all`: an
 * 8-byte magic, then one frame per event in position order (embedded/frames.ts).
 *
 * Group commit: frames reserved while the disk is busy (or in the same event-loop turn) go out in
 * ONE positional write on a file opened O_DSYNC (write and fdatasync in one system call, one trip
 * to the thread pool), and only then is their group acknowledged. A torn tail (short frame, bad
 * checksum, an append whose last frame is missing) can only hold unacknowledged bytes; recovery
 * cuts it off so that an append is all there or not at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  decodeFrame,
  FRAME_HEADER_BYTES,
  JOURNAL_MAGIC,
  MAX_BODY_BYTES,
  parseHead,
  parsePayload,
  worstCase,
  writeFrame,
  type FrameHead,
  type FrameLocation,
  type FramePayload,
} from './frames.js';

/** A group buffer's usual size, and the most a grown one may keep. */
const GROUP_BYTES = 256 * 1024;
const MAX_KEPT_GROUP_BYTES = 4 * 1024 * 1024;
/** Bytes read at a time by scans and by the read window. */
const READ_CHUNK_BYTES = 256 * 1024;

/** The file operations the journal's writer uses; replaced in tests to make the disk fail. */
export interface JournalIo {
  /** A synced write: the file is open with O_DSYNC, so this returns once the bytes are on disk. */
  writev(fd: number, buffers: Buffer[], position: number): Promise<number>;
  /** Only where the platform has no O_DSYNC: then every group's write is followed by this. */
  fdatasync(fd: number): Promise<void>;
  ftruncate(fd: number, length: number): Promise<void>;
}

/** Undefined on platforms without it (Windows): there the journal syncs after each write. */
const O_DSYNC: number | undefined = fs.constants.O_DSYNC;

export const fileIo: JournalIo = {
  writev: (fd, buffers, position) =>
    new Promise((resolve, reject) => fs.writev(fd, buffers, position, (error, written) => (error ? reject(error) : resolve(written)))),
  fdatasync: promisify(fs.fdatasync),
  ftruncate: promisify(fs.ftruncate),
};

export class JournalCorrupt extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    why: string,
  ) {
    super(`journal ${file} is corrupt at byte ${offset}: ${why}`);
    this.name = 'JournalCorrupt';
  }
}

export interface JournalHandlers<T> {
  /** A group is on disk: its entries in reservation order. */
  durable(entries: T[]): void;
  /** A group's synced write is under way: the main thread would otherwise wait idle. */
  syncing?(): void;
  /** A group's write failed: these entries (the group and all queued behind it) are lost. */
  failed(entries: T[], error: Error): void;
}

export interface RecoveredJournal<T> {
  journal: Journal<T>;
  /** Last position in the journal (0 for none). */
  lastPosition: number;
  /** Bytes cut off a torn tail (kept beside the journal for inspection). */
  truncatedBytes: number;
}

export interface RecoverOptions {
  /** An indexed frame (the index's newest checkpoint): scanning starts there. */
  from?: { position: number; offset: number };
  /** Called with each run of complete appends found from `from` on, in order. */
  found(frames: FrameLocation[]): Promise<void> | void;
  /** Events up to this position are known to have been acknowledged (the index had them). */
  acknowledged?: number;
  /** `from` does not match the journal: everything is found again from the start. */
  indexInvalid?(): Promise<void> | void;
  io?: JournalIo;
}

/**
 * Opens (or creates) the journal file, checks it from `from` on, cuts off a torn tail and
 * reports every complete append from `from` on so that the caller can re-index it.
 */
export async function recoverJournal<T>(file: string, options: RecoverOptions, handlers: JournalHandlers<T>): Promise<RecoveredJournal<T>> {
  const fd = openJournalFile(file);
  try {
    const size = fs.fstatSync(fd).size;
    let start = JOURNAL_MAGIC.length;
    let first = 1;
    if (options.from) {
      const at = checkedFrameAt(fd, options.from.offset, size);
      if (at && at.payload.p === options.from.position) {
        start = options.from.offset;
        first = options.from.position;
      } else {
        await options.indexInvalid?.();
      }
    }
    const { validEnd, lastPosition } = await scan(fd, size, start, first, options.found);
    const reached = lastPosition ?? first - 1;
    if (options.acknowledged !== undefined && reached < options.acknowledged) {
      // Not a torn tail: these were on disk once. Cutting them off would lose them silently.
      throw new JournalCorrupt(
        file,
        validEnd,
        `events ${reached + 1} to ${options.acknowledged} were acknowledged but are damaged or missing; the file is left ` +
          `as it is (to accept the loss and go on from what the journal holds, delete data.mdb and index-state.json beside it)`,
      );
    }
    let truncatedBytes = 0;
    if (validEnd < size) {
      truncatedBytes = size - validEnd;
      keepTornTail(file, fd, validEnd, size);
      // Cut for good before anything new is written there: stale frames must never follow new ones.
      fs.ftruncateSync(fd, validEnd);
      fs.fdatasyncSync(fd);
    }
    const journal = new Journal<T>(file, fd, validEnd, options.io ?? fileIo, handlers);
    return { journal, lastPosition: reached, truncatedBytes };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

function openJournalFile(file: string): number {
  const existed = fs.existsSync(file);
  // O_DSYNC: every write returns only once its data (and the file size) is on disk.
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | (O_DSYNC ?? 0), 0o644);
  const size = fs.fstatSync(fd).size;
  if (size < JOURNAL_MAGIC.length) {
    // New, or its creation was torn before the magic reached the disk.
    fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, JOURNAL_MAGIC, 0, JOURNAL_MAGIC.length, 0);
    fs.fdatasyncSync(fd);
    if (!existed) syncDirectory(path.dirname(file));
    return fd;
  }
  const magic = Buffer.alloc(JOURNAL_MAGIC.length);
  fs.readSync(fd, magic, 0, magic.length, 0);
  if (!magic.equals(JOURNAL_MAGIC)) {
    fs.closeSync(fd);
    throw new Error(`${file} is not a Town journal (bad magic)`);
  }
  return fd;
}

/** A new file's directory entry must be on disk too, or a power cut can lose the whole file. */
function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function checkedFrameAt(fd: number, offset: number, size: number): { payload: FrameHead; next: number } | undefined {
  if (offset < JOURNAL_MAGIC.length || offset + FRAME_HEADER_BYTES > size) return undefined;
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  fs.readSync(fd, header, 0, FRAME_HEADER_BYTES, offset);
  const length = header.readUInt32LE(0);
  if (length === 0 || length > MAX_BODY_BYTES || offset + FRAME_HEADER_BYTES + length > size) return undefined;
  const buf = Buffer.alloc(FRAME_HEADER_BYTES + length);
  fs.readSync(fd, buf, 0, buf.length, offset);
  const decoded = decodeFrame(buf, 0, buf.length, parseHead);
  return 'payload' in decoded ? { payload: decoded.payload, next: offset + decoded.next } : undefined;
}

/**
 * Reads frames from `start` on while they are whole, checksummed, and continue the positions
 * and appends before them. Only complete appends are reported and counted as valid.
 */
async function scan(
  fd: number,
  size: number,
  start: number,
  firstPosition: number,
  found: (frames: FrameLocation[]) => Promise<void> | void,
): Promise<{ validEnd: number; lastPosition: number | undefined }> {
  let buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  let bufStart = start;
  let bufEnd = start;
  let at = start;
  let expected = firstPosition;
  let validEnd = start;
  let lastPosition: number | undefined;
  let append: FrameLocation[] = [];
  let previous: FrameHead | undefined;
  let complete: FrameLocation[] = [];
  while (at < size) {
    let decoded = decodeFrame(buf, at - bufStart, bufEnd - bufStart, parseHead);
    // Twice at most: a frame whose header was not buffered tells its whole length only once read.
    for (let refills = 0; refills < 2 && 'bad' in decoded && decoded.need !== undefined && bufEnd < size; refills++) {
      // Frame runs past what is buffered: refill from this frame on, big enough to hold it.
      const want = Math.min(Math.max(READ_CHUNK_BYTES, decoded.need), size - at);
      if (buf.length < want) buf = Buffer.allocUnsafe(want);
      bufStart = at;
      bufEnd = at + readFully(fd, buf, want, at);
      if (complete.length) {
        await found(complete);
        complete = [];
      }
      decoded = decodeFrame(buf, 0, bufEnd - bufStart, parseHead);
    }
    if ('bad' in decoded) break;
    const p = decoded.payload;
    if (p.p !== expected) break;
    if (previous && previous.n > 0 && (p.n !== previous.n - 1 || p.s !== previous.s || p.r !== previous.r + 1)) break;
    append.push({ position: p.p, stream: p.s, revision: p.r, offset: at });
    at = bufStart + decoded.next;
    expected++;
    previous = p;
    if (p.n === 0) {
      validEnd = at;
      lastPosition = p.p;
      for (const f of append) complete.push(f);
      append = [];
    }
  }
  if (complete.length) await found(complete);
  return { validEnd, lastPosition };
}

/** Whole frames of a journal file up to the first bad one, read without changing it (tests, tools). */
export function listFrames(file: string): Array<{ position: number; offset: number; end: number; more: number }> {
  const buf = fs.readFileSync(file);
  const out: Array<{ position: number; offset: number; end: number; more: number }> = [];
  let at = JOURNAL_MAGIC.length;
  for (;;) {
    const decoded = decodeFrame(buf, at, buf.length, parseHead);
    if ('bad' in decoded) return out;
    out.push({ position: decoded.payload.p, offset: at, end: decoded.next, more: decoded.payload.n });
    at = decoded.next;
  }
}

function readFully(fd: number, buf: Buffer, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** The cut bytes never came back as events, but are kept in case a person wants to look. */
function keepTornTail(file: string, fd: number, from: number, size: number): void {
  const length = Math.min(size - from, 64 * 1024 * 1024);
  const buf = Buffer.allocUnsafe(length);
  const got = readFully(fd, buf, length, from);
  fs.writeFileSync(`${file}.torn-${from}-${Date.now()}`, buf.subarray(0, got));
}

/**
 * The open journal: reserves space for appends, writes them in groups with one synced write each,
 * and reads frames back (never past what is durable).
 */
export class Journal<T> {
  /** Where the next reserved frame goes. */
  private end: number;
  /** Everything before this offset is on disk. */
  private durable: number;
  /** The next group: frames encoded in place, and the entries they belong to. */
  private group = Buffer.allocUnsafe(GROUP_BYTES);
  private groupLength = 0;
  private entries: T[] = [];
  /** The buffer of the group being written; reused for the group after next. */
  private spare = Buffer.allocUnsafe(GROUP_BYTES);
  private flushing: Promise<void> | undefined;
  private broken: Error | undefined;
  private closed = false;
  /** Groups written (one synced write each). */
  syncs = 0;
  private window = Buffer.alloc(0);
  private windowStart = 0;
  private windowEnd = 0;

  constructor(
    readonly file: string,
    private readonly fd: number,
    end: number,
    private readonly io: JournalIo,
    private readonly handlers: JournalHandlers<T>,
  ) {
    this.end = end;
    this.durable = end;
  }

  /**
   * Encodes one append's frames into the next group and returns their offsets. Synchronous, so
   * the caller can check, number and reserve in one step.
   */
  reserve(bodies: string[], entry: T): number[] {
    if (this.broken) throw this.broken;
    if (this.closed) throw new Error('journal is closed');
    let worst = 0;
    for (const body of bodies) worst += worstCase(body);
    if (this.group.length - this.groupLength < worst) this.grow(worst);
    const offsets: number[] = new Array(bodies.length);
    for (let i = 0; i < bodies.length; i++) {
      offsets[i] = this.end;
      const length = writeFrame(this.group, this.groupLength, bodies[i]!);
      this.groupLength += length;
      this.end += length;
    }
    this.entries.push(entry);
    if (!this.flushing) this.flushing = new Promise<void>((resolve) => setImmediate(() => void this.flush(resolve)));
    return offsets;
  }

  private grow(needed: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(2 * this.group.length, this.groupLength + needed));
    this.group.copy(bigger, 0, 0, this.groupLength);
    this.group = bigger;
  }

  private async flush(done: () => void): Promise<void> {
    try {
      while (this.entries.length) {
        const current = this.group;
        const bytes = current.subarray(0, this.groupLength);
        const entries = this.entries;
        // The next group is encoded into the buffer of the group before this one (written by now);
        // this one's buffer serves the group after next, unless an outsized append grew it.
        this.group = this.spare;
        this.spare = current.length > MAX_KEPT_GROUP_BYTES ? Buffer.allocUnsafe(GROUP_BYTES) : current;
        this.groupLength = 0;
        this.entries = [];
        const start = this.durable;
        try {
          const written = this.writeAll(bytes, start);
          this.handlers.syncing?.();
          await written;
        } catch (error) {
          await this.fail(entries, error instanceof Error ? error : new Error(String(error)));
          continue;
        }
        this.durable = start + bytes.length;
        this.syncs++;
        this.handlers.durable(entries);
        // A writer released by `durable` that appends again at once (the world service's next
        // batch, decided while this group was on its way) has done so by the next microtask: its
        // group goes out now, before the released writers' replies are made. With nothing queued
        // yet, the writers just released get the rest of this event-loop turn to queue theirs.
        await undefined;
        if (!this.entries.length) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      // Only a bug gets here (a handler threw): stop taking appends rather than guess.
      this.broken = error instanceof Error ? error : new Error(String(error));
      const lost = this.dropQueued();
      if (lost.length) this.handlers.failed(lost, this.broken);
    }
    // In the same synchronous step as the last look at `entries`: an append reserved from here
    // on starts a new flush.
    this.flushing = undefined;
    done();
  }

  private dropQueued(): T[] {
    const lost = this.entries;
    this.entries = [];
    this.groupLength = 0;
    this.end = this.durable;
    return lost;
  }

  private async writeAll(bytes: Buffer, position: number): Promise<void> {
    let written = 0;
    while (written < bytes.length) {
      const n = await this.io.writev(this.fd, [written === 0 ? bytes : bytes.subarray(written)], position + written);
      // A short write (rare on files) goes on from where it stopped.
      if (n <= 0) throw new Error(`short write to ${this.file}`);
      written += n;
    }
    if (O_DSYNC === undefined) await this.io.fdatasync(this.fd);
  }

  /**
   * The group's bytes may be partly on disk: refuse it and everything queued behind it (their
   * positions follow it), and cut the file back to what is durable before writing again.
   */
  private async fail(group: T[], error: Error): Promise<void> {
    this.handlers.failed(group.concat(this.dropQueued()), error);
    try {
      await this.io.ftruncate(this.fd, this.durable);
    } catch (truncateError) {
      this.broken = new Error(`journal ${this.file} unusable after a failed write (${error.message}); reopen the store`, {
        cause: truncateError,
      });
      const more = this.dropQueued();
      if (more.length) this.handlers.failed(more, this.broken);
    }
  }

  /** Bytes of the file that are durable: frames below this end are whole and never change. */
  get durableEnd(): number {
    return this.durable;
  }

  /** The frame at `offset` (which must be a frame start below the durable end) and the next offset. */
  readAt(offset: number): { payload: FramePayload; next: number } {
    return this.frameAt(offset, parsePayload);
  }

  /**
   * The head (position, revision, stream) of the frame at `offset`, checksummed like readAt but
   * without parsing the event's data: what a filtered reader needs to pass a frame over.
   */
  headAt(offset: number): { payload: FrameHead; next: number } {
    return this.frameAt(offset, parseHead);
  }

  private frameAt<P>(offset: number, parse: (body: Buffer) => P | undefined): { payload: P; next: number } {
    if (offset < JOURNAL_MAGIC.length || offset >= this.durable) throw new JournalCorrupt(this.file, offset, 'no frame there');
    if (offset < this.windowStart || offset + FRAME_HEADER_BYTES > this.windowEnd) this.fill(offset, FRAME_HEADER_BYTES);
    let decoded = decodeFrame(this.window, offset - this.windowStart, this.windowEnd - this.windowStart, parse);
    if ('bad' in decoded && decoded.need !== undefined) {
      this.fill(offset, decoded.need);
      decoded = decodeFrame(this.window, 0, this.windowEnd - this.windowStart, parse);
    }
    if ('bad' in decoded) throw new JournalCorrupt(this.file, offset, decoded.bad);
    return { payload: decoded.payload, next: this.windowStart + decoded.next };
  }

  /** Offset of the frame `count` frames after the one at `offset` (reads only frame headers). */
  skip(offset: number, count: number): number {
    for (let i = 0; i < count; i++) {
      if (offset < JOURNAL_MAGIC.length || offset + FRAME_HEADER_BYTES > this.durable) {
        throw new JournalCorrupt(this.file, offset, 'no frame there');
      }
      if (offset < this.windowStart || offset + FRAME_HEADER_BYTES > this.windowEnd) this.fill(offset, FRAME_HEADER_BYTES);
      offset += FRAME_HEADER_BYTES + this.window.readUInt32LE(offset - this.windowStart);
    }
    return offset;
  }

  /** Loads the read window from `offset`: at least `need` bytes, never past the durable end. */
  private fill(offset: number, need: number): void {
    const want = Math.min(Math.max(READ_CHUNK_BYTES, need), this.durable - offset);
    if (this.window.length < want) this.window = Buffer.allocUnsafe(Math.max(want, READ_CHUNK_BYTES));
    this.windowStart = offset;
    this.windowEnd = offset + readFully(this.fd, this.window, want, offset);
  }

  /** Waits for every reserved group to be written (or refused), then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    fs.closeSync(this.fd);
  }
}

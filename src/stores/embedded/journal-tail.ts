/**
 * Where each event of the journal's newest frames is, for a process that does not own the
 * journal: the owner's index (LMDB) lags the journal by up to a drain, so a reader beside it
 * keeps the frames after the index's `through` in memory, read off their heads up to the
 * durable end, and lets them go once the index has them (journal-streams.ts).
 */
import type { FrameFile } from './frame-file.js';
import { JournalCorrupt } from './journal.js';
import type { RecentStream } from './journal-index.js';

export class JournalTail {
  /** Position of the first frame held (everything before it is the index's). */
  private first = 1;
  /** The last position read, and the offset of the frame after it (-1: not known yet). */
  private lastPosition = 0;
  private nextOffset = -1;
  /** The stream of each frame held, in position order from `first`. */
  private order: string[] = [];
  private readonly streams = new Map<string, RecentStream>();

  /** The last position read into the tail. */
  get last(): number {
    return this.lastPosition;
  }

  /** The first position the tail holds (or would hold next). */
  get start(): number {
    return this.first;
  }

  /** Whether the offset after `last` is known. */
  get placed(): boolean {
    return this.nextOffset >= 0;
  }

  /** Holds nothing, and reads on from the frame after `position` (at `offset`, -1 when not known yet). */
  resetAfter(position: number, offset: number): void {
    this.first = position + 1;
    this.lastPosition = position;
    this.nextOffset = offset;
    this.order = [];
    this.streams.clear();
  }

  /** The offset of the frame after `last` is `offset`. */
  place(offset: number): void {
    this.nextOffset = offset;
  }

  /** Reads the heads of the frames up to the durable end (`end` bytes, `endPosition` the last). */
  read(frames: FrameFile, end: number, endPosition: number): void {
    if (this.nextOffset < 0) throw new Error('the tail of the journal is not placed');
    let offset = this.nextOffset;
    while (this.lastPosition < endPosition && offset < end) {
      const { payload, next } = frames.headAt(offset);
      if (payload.p !== this.lastPosition + 1) throw new JournalCorrupt(frames.file, offset, `expected position ${this.lastPosition + 1}, found ${payload.p}`);
      const held = this.streams.get(payload.s);
      if (!held) this.streams.set(payload.s, { base: payload.r, offsets: [offset] });
      else if (payload.r === held.base + held.offsets.length) held.offsets.push(offset);
      else throw new JournalCorrupt(frames.file, offset, `expected revision ${held.base + held.offsets.length} of ${payload.s}, found ${payload.r}`);
      this.order.push(payload.s);
      this.lastPosition = payload.p;
      offset = next;
    }
    this.nextOffset = offset;
  }

  /** Lets go of the frames up to `position`: the index holds them. */
  prune(position: number): void {
    const n = Math.min(position - this.first + 1, this.order.length);
    if (n <= 0) return;
    let i = 0;
    while (i < n) {
      // A run of one stream's frames leaves together.
      const stream = this.order[i]!;
      let run = 1;
      while (i + run < n && this.order[i + run] === stream) run++;
      const held = this.streams.get(stream)!;
      if (run >= held.offsets.length) this.streams.delete(stream);
      else {
        held.offsets.splice(0, run);
        held.base += run;
      }
      i += run;
    }
    this.order.splice(0, n);
    this.first += n;
  }

  /** The stream's newest revisions held here (undefined: none). */
  stream(stream: string): RecentStream | undefined {
    return this.streams.get(stream);
  }
}

/**
 * Frames of an embedded journal read at any offset by a process that does not own it (a front
 * beside the town, journal-streams.ts). Its callers only ask below a durable end the owner
 * published (durable-mark.ts) or its index names, where frames are whole and never change, so it
 * needs no lock.
 * Every frame is checked (length, checksum) as the owner's own reads check it.
 */
import fs from 'node:fs';
import { decodeFrame, FRAME_HEADER_BYTES, parseHead, parsePayload, type FrameHead, type FramePayload } from './frames.js';
import { JournalCorrupt } from './journal.js';

/** Bytes read at once: a stream's events are scattered, so the window stays small. */
const WINDOW_BYTES = 64 * 1024;

export class FrameFile {
  private readonly fd: number;
  private window = Buffer.allocUnsafe(WINDOW_BYTES);
  private windowStart = 0;
  private windowEnd = 0;

  constructor(
    readonly file: string,
    /**
     * The byte end of the durable frames: the window never holds a byte past it, since a group
     * being written there may fail and be written again differently (durable-mark.ts).
     */
    private readonly durableEnd: () => number,
  ) {
    this.fd = fs.openSync(file, 'r');
  }

  /** The whole frame at `offset` (a durable frame's start) and the offset after it. */
  readAt(offset: number): { payload: FramePayload; next: number } {
    return this.frameAt(offset, parsePayload);
  }

  /** Position, revision and stream of the frame at `offset`, without decoding its data. */
  headAt(offset: number): { payload: FrameHead; next: number } {
    return this.frameAt(offset, parseHead);
  }

  /** Offset of the frame `count` frames after the one at `offset` (reads only frame headers). */
  skip(offset: number, count: number): number {
    for (let i = 0; i < count; i++) {
      if (offset < this.windowStart || offset + FRAME_HEADER_BYTES > this.windowEnd) this.fill(offset, FRAME_HEADER_BYTES);
      offset += FRAME_HEADER_BYTES + this.window.readUInt32LE(offset - this.windowStart);
    }
    return offset;
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  private frameAt<P>(offset: number, parse: (body: Buffer) => P | undefined): { payload: P; next: number } {
    if (offset < this.windowStart || offset + FRAME_HEADER_BYTES > this.windowEnd) this.fill(offset, FRAME_HEADER_BYTES);
    let decoded = decodeFrame(this.window, offset - this.windowStart, this.windowEnd - this.windowStart, parse);
    if ('bad' in decoded && decoded.need !== undefined) {
      this.fill(offset, decoded.need);
      decoded = decodeFrame(this.window, 0, this.windowEnd - this.windowStart, parse);
    }
    if ('bad' in decoded) throw new JournalCorrupt(this.file, offset, decoded.bad);
    return { payload: decoded.payload, next: this.windowStart + decoded.next };
  }

  /** Loads the window from `offset`: as much as it holds, at least `need` bytes (the frames asked for are durable). */
  private fill(offset: number, need: number): void {
    const want = Math.min(Math.max(WINDOW_BYTES, need), Math.max(need, this.durableEnd() - offset));
    if (this.window.length < want) this.window = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const n = fs.readSync(this.fd, this.window, got, want - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    if (got < need) throw new JournalCorrupt(this.file, offset + got, 'the journal ends before its durable end');
    this.windowStart = offset;
    this.windowEnd = offset + got;
  }
}

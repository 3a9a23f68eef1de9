/**
 * Reads durable frames of an embedded journal from another thread of the process that owns it
 * (the projector thread). The owner says where the durable frames end (JournalShare); below that
 * end frames are whole and never change, so this reader needs no lock and never sees an
 * unacknowledged event. Every frame is checked (length, checksum, consecutive positions) as the
 * owner's own reads check it.
 */
import fs from 'node:fs';
import type { RecordedEvent } from '../event-store.js';
import { DELETED_STREAM, toRecorded } from './event-store.js';
import { decodeFrame, FRAME_HEADER_BYTES, parsePayload, type FramePayload } from './frames.js';
import { JournalCorrupt } from './journal.js';

const CHUNK_BYTES = 256 * 1024;

export class JournalReader {
  private readonly fd: number;
  private window = Buffer.allocUnsafe(CHUNK_BYTES);
  private windowStart = 0;
  private windowEnd = 0;
  private lastPosition: number | undefined;
  /** Deleted streams, whose frames are passed over (more are learnt from the journal's tombstones). */
  private readonly deleted: Set<string>;

  constructor(
    readonly file: string,
    deleted: Iterable<string> = [],
  ) {
    this.fd = fs.openSync(file, 'r');
    this.deleted = new Set(deleted);
  }

  /**
   * Events of the frames from `offset` up to `end` (a durable end the owner gave), at most
   * `max`, leaving out deleted streams and their tombstones; and the offset after the last one read.
   */
  read(offset: number, end: number, max: number): { events: RecordedEvent[]; next: number } {
    const events: RecordedEvent[] = [];
    while (offset < end && events.length < max) {
      const { payload, next } = this.frame(offset, end);
      offset = next;
      // A tombstone is the store's own; a deleted stream's events are nobody's any more.
      if (payload.s !== DELETED_STREAM && !this.deleted.has(payload.s)) events.push(toRecorded(payload));
    }
    return { events, next: offset };
  }

  /**
   * The offset `count` frames after the one at `offset`, below `end`: each frame checked and
   * counted whatever its stream (a tombstone and a deleted stream's frame are positions too), and
   * tombstones learnt, so the read that follows passes over the streams they delete.
   */
  skip(offset: number, count: number, end: number): number {
    for (let i = 0; i < count; i++) {
      if (offset >= end) throw new JournalCorrupt(this.file, offset, 'the journal ends before the position asked for');
      offset = this.frame(offset, end).next;
    }
    return offset;
  }

  /**
   * The frame at `offset` (below `end`), checked: length, checksum, the position after the last
   * one read. A tombstone's stream is learnt as deleted.
   */
  private frame(offset: number, end: number): { payload: FramePayload; next: number } {
    if (offset < this.windowStart || offset + FRAME_HEADER_BYTES > this.windowEnd) this.fill(offset, FRAME_HEADER_BYTES, end);
    let decoded = decodeFrame(this.window, offset - this.windowStart, this.windowEnd - this.windowStart, parsePayload);
    if ('bad' in decoded && decoded.need !== undefined && offset + decoded.need <= end) {
      this.fill(offset, decoded.need, end);
      decoded = decodeFrame(this.window, 0, this.windowEnd - this.windowStart, parsePayload);
    }
    if ('bad' in decoded) throw new JournalCorrupt(this.file, offset, decoded.bad);
    const { payload } = decoded;
    if (this.lastPosition !== undefined && payload.p !== this.lastPosition + 1) {
      throw new JournalCorrupt(this.file, offset, `expected position ${this.lastPosition + 1}, found ${payload.p}`);
    }
    this.lastPosition = payload.p;
    if (payload.s === DELETED_STREAM) this.deleted.add((payload.d as { stream: string }).stream);
    return { payload, next: this.windowStart + decoded.next };
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  private fill(offset: number, need: number, end: number): void {
    const want = Math.min(Math.max(CHUNK_BYTES, need), end - offset);
    if (this.window.length < want) this.window = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const n = fs.readSync(this.fd, this.window, got, want - got, offset + got);
      if (n === 0) throw new JournalCorrupt(this.file, offset + got, 'the journal ends before its durable end');
      got += n;
    }
    this.windowStart = offset;
    this.windowEnd = offset + got;
  }
}

/**
 * The newest durable frames of this session, by position: each one's stream and journal offset,
 * as the store learned them when it wrote them. A scan for some streams (a reactor's
 * subscription: invitations, the feed) passes over the world's entries by the stream kept here
 * instead of reading, checksumming and parsing each frame's head from the journal again: the
 * writer knows what it just wrote (no re-reading of frames the writer just encoded).
 *
 * Positions are kept contiguous, oldest first, up to `capacity`; older ones are read as before.
 */
export class RecentFrames {
  private readonly streams: (string | undefined)[];
  private readonly offsets: Float64Array;
  /** Position held at slot `first % capacity`; `first > last` when empty. */
  private first = 1;
  private last = 0;

  constructor(private readonly capacity = 4096) {
    this.streams = new Array(capacity);
    this.offsets = new Float64Array(capacity);
  }

  /** Frames made durable, in position order: each position must follow the last one kept. */
  add(firstPosition: number, stream: string, offsets: readonly number[]): void {
    if (firstPosition !== this.last + 1) {
      // A gap (the journal's first positions this session follow earlier ones): start over.
      this.first = firstPosition;
      this.last = firstPosition - 1;
    }
    for (let i = 0; i < offsets.length; i++) {
      const position = firstPosition + i;
      const slot = position % this.capacity;
      this.streams[slot] = stream;
      this.offsets[slot] = offsets[i]!;
      this.last = position;
    }
    if (this.last - this.first + 1 > this.capacity) this.first = this.last - this.capacity + 1;
  }

  /** Whether `position` is kept. */
  has(position: number): boolean {
    return position >= this.first && position <= this.last;
  }

  /** The stream of a kept position. */
  streamAt(position: number): string {
    return this.streams[position % this.capacity]!;
  }

  /** The journal offset of a kept position's frame. */
  offsetAt(position: number): number {
    return this.offsets[position % this.capacity]!;
  }
}

/**
 * Where the embedded journal's durable frames end, for readers in other processes (projector
 * workers beside the town: docs/decisions/embedded-workers.md). The owner of the journal writes
 * the newest durable position and the byte end of the durable frames to `<events>/durable`
 * after every group that reached the disk; a follower reads frames only below that end, so it
 * never sees an event the owner has not acknowledged (a group whose write failed is cut off the
 * journal again, and its bytes may have reached the file before that).
 *
 * The mark is one 24-byte positional write of the page cache, never synced: it only tells live
 * followers how far to read. After a crash the owner's recovery writes it again before anything
 * else. The third word checks the first two, so a follower that read the file while the owner
 * was writing it reads it again.
 */
import fs from 'node:fs';
import path from 'node:path';

const FILE = 'durable';
const BYTES = 24;
const CHECK = 0x746f776e646d61726bn;
/** An odd multiplier: the check mixes the position in, so a mark torn between two writes does not check. */
const MIX = 0x9e3779b97f4a7c15n;

/** The check word of a mark. */
const checkOf = (position: bigint, offset: bigint): bigint => BigInt.asUintN(64, (position * MIX + offset) ^ CHECK);

export interface Durable {
  /** The newest durable position (0: none yet). */
  position: number;
  /** The byte end of the durable frames. */
  offset: number;
}

/** The file of the mark in an events directory. */
export const durableMarkFile = (eventsDir: string): string => path.join(eventsDir, FILE);

/** The owner's side: publishes each new durable end. */
export class DurableMarkWriter {
  private readonly fd: number;
  private readonly buffer = Buffer.alloc(BYTES);

  constructor(eventsDir: string) {
    this.fd = fs.openSync(durableMarkFile(eventsDir), 'w');
  }

  publish(durable: Durable): void {
    const position = BigInt(durable.position);
    const offset = BigInt(durable.offset);
    this.buffer.writeBigUInt64LE(position, 0);
    this.buffer.writeBigUInt64LE(offset, 8);
    this.buffer.writeBigUInt64LE(checkOf(position, offset), 16);
    fs.writeSync(this.fd, this.buffer, 0, BYTES, 0);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** A follower's side: the durable end as the owner last published it (undefined: none yet). */
export class DurableMarkReader {
  private fd: number | undefined;
  private readonly buffer = Buffer.alloc(BYTES);

  constructor(private readonly eventsDir: string) {}

  read(): Durable | undefined {
    if (this.fd === undefined) {
      try {
        this.fd = fs.openSync(durableMarkFile(this.eventsDir), 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    }
    for (let attempt = 0; attempt < 100; attempt++) {
      if (fs.readSync(this.fd, this.buffer, 0, BYTES, 0) < BYTES) return undefined;
      const position = this.buffer.readBigUInt64LE(0);
      const offset = this.buffer.readBigUInt64LE(8);
      if (this.buffer.readBigUInt64LE(16) === checkOf(position, offset)) {
        return { position: Number(position), offset: Number(offset) };
      }
    }
    throw new Error(`the durable mark in ${this.eventsDir} does not check`);
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * A server's request log written in blocks: lines are gathered here and handed to the destination
 * (sonic-boom, asynchronous) one block of at least `minBytes` at a time, and whatever waits every
 * `everyMs`, at `flush` and at exit.
 *
 * Why not sonic-boom's own `minLength`: it appends each line to its pending text and measures that
 * text (`Buffer.byteLength`) on every write, which flattens the whole pending block, a copy of up
 * to 16 KiB per line; under a turn load that was the largest allocation on the main thread
 * (docs/decisions/metrics-logs-and-readiness.md). Here a line is measured alone, and a block is joined once.
 */
import type { DestinationStream } from 'pino';

/** What the blocks are written to: sonic-boom (pino.destination). */
export interface BlockSink {
  write(text: string): unknown;
  flush?(cb?: (err?: Error) => void): void;
  flushSync?(): void;
  end?(): void;
}

/**
 * A block: ~60 request lines, one write (sonic-boom writes up to 16 KiB at once). Each write is
 * handed to a thread of libuv's pool, which wakes it; 4 KiB blocks woke it ~175 times a second
 * under the turns bench.
 */
export const blockBytes = 12 * 1024;

export class LineBlocks implements DestinationStream {
  private lines: string[] = [];
  private bytes = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly atExit = () => this.flushSync();

  constructor(
    private readonly sink: BlockSink,
    private readonly minBytes = blockBytes,
    everyMs = 250,
  ) {
    // A quiet town's lines still appear within a quarter second; a process killed outright loses
    // at most that, as before.
    this.timer = setInterval(() => this.pass(), everyMs).unref();
    process.once('exit', this.atExit);
  }

  write(line: string): boolean {
    this.lines.push(line);
    // UTF-16 units, not bytes: only the block's threshold depends on it.
    this.bytes += line.length;
    if (this.bytes >= this.minBytes) this.pass();
    return true;
  }

  /** Hands what waits here to the sink (asynchronous there). */
  private pass(): void {
    if (this.lines.length === 0) return;
    const block = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.bytes = 0;
    this.sink.write(block);
  }

  flush(cb?: (err?: Error) => void): void {
    this.pass();
    try {
      if (this.sink.flush) this.sink.flush(cb);
      else cb?.();
    } catch (err) {
      // Nothing buffered there, or the stream is closing.
      cb?.(err as Error);
    }
  }

  flushSync(): void {
    this.pass();
    try {
      this.sink.flushSync?.();
    } catch {
      // The stream is closing or was never opened: nothing more can be written.
    }
  }

  end(): void {
    clearInterval(this.timer);
    process.removeListener('exit', this.atExit);
    this.pass();
    this.sink.end?.();
  }
}

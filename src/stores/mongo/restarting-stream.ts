/**
 * A change stream kept open for the life of its store: when it fails (a primary stepped down,
 * the cursor was killed, the resume token fell off the oplog) it is closed and opened again after
 * a backoff that doubles from `firstMs` up to `maxMs`, and falls back to `firstMs` once a stream
 * has delivered a change. Each restart is counted (`restarts`, shown in /metrics as
 * town_read_store_change_stream_restarts_total). While none is open, whoever listens falls back
 * to what it does without one (the read store's waits poll with their backoff).
 *
 * Apart from the MongoDB adapter so that it is tested without a server (test/stores/restarting-stream.test.ts).
 */

/** What a change stream is to this module: it emits `change` and `error`, and closes. */
export interface StreamLike {
  on(event: 'change', listener: (change: unknown) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  close(): Promise<unknown>;
}

export interface RestartingStreamOptions {
  /** Opens a new stream (throws when it cannot: retried as a failure is). */
  open(): StreamLike;
  onChange(change: unknown): void;
  /** Told of each failure, before the restart waits (for a log). */
  onError?(error: unknown): void;
  firstMs?: number;
  maxMs?: number;
  /** The timer (tests pass a manual one). */
  setTimer?(fn: () => void, ms: number): { cancel(): void };
}

const defaultTimer = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return { cancel: () => clearTimeout(t) };
};

export class RestartingStream {
  /** Streams opened again after a failure. */
  restarts = 0;
  private stream: StreamLike | undefined;
  private timer: { cancel(): void } | undefined;
  private delay: number;
  private closed = false;
  private readonly firstMs: number;
  private readonly maxMs: number;
  private readonly setTimer: (fn: () => void, ms: number) => { cancel(): void };

  constructor(private readonly options: RestartingStreamOptions) {
    this.firstMs = options.firstMs ?? 100;
    this.maxMs = options.maxMs ?? 30_000;
    this.delay = this.firstMs;
    this.setTimer = options.setTimer ?? defaultTimer;
    this.openNow();
  }

  /** Whether a stream is open now (not waiting to restart). */
  get open(): boolean {
    return this.stream !== undefined;
  }

  /** The wait before the next restart. */
  get nextDelayMs(): number {
    return this.delay;
  }

  private openNow(): void {
    if (this.closed) return;
    let stream: StreamLike;
    try {
      stream = this.options.open();
    } catch (error) {
      this.failed(undefined, error);
      return;
    }
    this.stream = stream;
    stream.on('change', (change) => {
      if (this.stream !== stream) return;
      this.delay = this.firstMs; // it works again: the next failure starts the backoff afresh
      this.options.onChange(change);
    });
    stream.on('error', (error) => this.failed(stream, error));
  }

  private failed(stream: StreamLike | undefined, error: unknown): void {
    if (this.closed || (stream !== undefined && this.stream !== stream)) return;
    this.stream = undefined;
    if (stream) void stream.close().catch(() => undefined);
    this.options.onError?.(error);
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.maxMs);
    this.timer = this.setTimer(() => {
      this.timer = undefined;
      if (this.closed) return;
      this.restarts++;
      this.openNow();
    }, wait);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    const stream = this.stream;
    this.stream = undefined;
    if (stream) await stream.close().catch(() => undefined);
  }
}

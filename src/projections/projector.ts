/**
 * Runs one projection: subscribes to `$all` after its checkpoint, folds events in batches, and
 * writes each batch with the checkpoint in one read-store unit, so a crash never leaves the
 * checkpoint ahead of the data it covers.
 *
 * Batching is what makes rebuilds and catch-up fast (one durable commit per batch, not per
 * event); backpressure (onEvent awaits the flush when the batch is full) keeps a long catch-up
 * from buffering the whole journal in memory.
 */
import type { EventStore, RecordedEvent, Subscription } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import type { Projection } from './projection.js';

export interface ProjectorOptions {
  /** Events per unit at most. */
  batch?: number;
  onError?(error: Error): void;
}

export class Projector {
  private position: bigint | undefined;
  private buffer: RecordedEvent[] = [];
  private flushing: Promise<void> | undefined;
  private subscription: Subscription | undefined;
  private waiters: { position: bigint; resolve(ok: boolean): void }[] = [];
  private caughtUp = false;
  private caughtUpWaiters: (() => void)[] = [];
  private readonly batch: number;
  private failed: Error | undefined;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    readonly projection: Projection,
    private readonly options: ProjectorOptions = {},
  ) {
    this.batch = options.batch ?? 500;
  }

  /** The last position folded and committed. */
  get checkpoint(): bigint | undefined {
    return this.position;
  }

  async start(): Promise<void> {
    for (const { collection, spec } of this.projection.indexes ?? []) {
      await this.reads.collection(collection).createIndex(spec);
    }
    this.position = await this.reads.checkpoint(this.projection.name);
    this.subscription = this.events.subscribeToAll(this.position, {
      onEvent: (event) => this.onEvent(event),
      onCaughtUp: () => {
        void this.flush().then(() => {
          this.caughtUp = true;
          for (const resolve of this.caughtUpWaiters.splice(0)) resolve();
        });
      },
      onError: (error) => this.fail(error),
    });
  }

  /** Resolves once the projection has folded everything that was in the journal at start. */
  whenCaughtUp(): Promise<void> {
    if (this.caughtUp) return Promise.resolve();
    return new Promise((resolve) => this.caughtUpWaiters.push(resolve));
  }

  /**
   * Read-your-writes: resolves true as soon as the checkpoint reaches `position`, false when
   * `timeoutMs` passes first.
   */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.position !== undefined && this.position >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (ok: boolean) => {
          clearTimeout(timer);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    this.subscription = undefined;
    await this.flush();
    for (const waiter of this.waiters.splice(0)) waiter.resolve(false);
  }

  private async onEvent(event: RecordedEvent): Promise<void> {
    if (this.failed) return;
    this.buffer.push(event);
    if (this.buffer.length >= this.batch) await this.flush();
    else this.scheduleFlush();
  }

  private scheduled = false;
  private scheduleFlush(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // A macrotask, so a burst of live events arriving together lands in one unit.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  /** Commits the buffered events; serialised so units never overlap. */
  flush(): Promise<void> {
    const run = async (): Promise<void> => {
      while (this.buffer.length && !this.failed) {
        const events = this.buffer.splice(0, this.batch);
        const last = events[events.length - 1]!.position;
        try {
          await this.reads.unit(async (unit) => {
            for (const event of events) {
              if (this.projection.handles(event.type)) await this.projection.apply(event, unit);
            }
            unit.setCheckpoint(this.projection.name, last);
          });
        } catch (error) {
          this.fail(error as Error);
          return;
        }
        this.position = last;
        this.wake();
      }
    };
    this.flushing = (this.flushing ?? Promise.resolve()).then(run);
    return this.flushing;
  }

  private wake(): void {
    const position = this.position;
    if (position === undefined) return;
    const ready = this.waiters.filter((w) => w.position <= position);
    if (!ready.length) return;
    this.waiters = this.waiters.filter((w) => w.position > position);
    for (const waiter of ready) waiter.resolve(true);
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = error;
    (this.options.onError ?? ((e: Error) => console.error(`projector ${this.projection.name} stopped:`, e)))(error);
  }
}

/**
 * Read-your-writes across processes: when the projector runs in another process, the front
 * polls the checkpoint the worker commits to the read store.
 */
export async function waitForCheckpoint(
  reads: ReadStore,
  projection: string,
  position: bigint,
  timeoutMs: number,
  pollMs = 5,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const checkpoint = await reads.checkpoint(projection);
    if (checkpoint !== undefined && checkpoint >= position) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

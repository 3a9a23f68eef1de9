/**
 * Runs projections: follows `$all` after their checkpoints, folds events in batches, and writes
 * each batch with the checkpoints in one read-store unit, so a crash never leaves a checkpoint
 * ahead of the data it covers.
 *
 * One projector may run several projections off one subscription (the server runs all of them
 * so each event is read and decoded once); each keeps its own checkpoint and skips what it has
 * already folded, so projections rebuilt or started at different times can share a projector.
 *
 * Batching is what makes rebuilds and catch-up fast (one durable commit per batch, not per
 * event); backpressure (onEvent awaits the flush when the batch is full) keeps a long catch-up
 * from buffering the whole journal in memory.
 */
import type { EventStore, RecordedEvent, SubscribeHandlers, Subscription } from '../stores/event-store.js';
import { UnitTooLarge, type ReadStore } from '../stores/read-store.js';
import { CheckpointWatch } from './checkpoint-watch.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { applyEvents, type Projection } from './projection.js';

export interface ProjectorOptions {
  /** Events per unit at most. */
  batch?: number;
  onError?(error: Error): void;
  /**
   * Follow the journal by reading it every `pollMs` instead of subscribing: for a worker whose
   * store does not tell it of appends made by another process.
   */
  pollMs?: number;
  /**
   * Wait this long after the first live event before folding (default: the next macrotask), so
   * that a projection whose every unit costs much (the repository signs a commit per unit) folds
   * what arrived meanwhile in one unit.
   */
  lingerMs?: number;
  /**
   * Give way to a busy town (the repository's projector: docs/decisions/repository-commits.md):
   * before a unit is folded, the projector watches its meters (how fast the journal
   * grows, how much CPU the process spends), and while one of them runs at its `busyPerSecond`
   * or more it waits, holding at most a unit of events, so the unit's CPU goes to the turns and
   * reads. An event waits at most `maxLagMs` from when it was recorded: past that the projector
   * folds whatever the load, so under a load that never stops it stays about `maxLagMs` behind
   * and folds at its own pace.
   */
  giveWay?: GiveWay;
  /**
   * While live events keep arriving (some came in while the last unit committed), wait this long
   * after a unit before the next one. A unit's cost is much of it what its commit rewrites
   * whatever it holds (the B-tree paths and hot index leaves it touches, the free list, the
   * synced write), so under load fewer, larger units cost each event less (docs/decisions/projector-thread.md). An idle projector's next event is folded at once, as without
   * it. Default 0: no wait.
   */
  commitGapMs?: number;
  /**
   * The leases of the projections, already taken (LeaseKeeper.take): every unit is fenced with
   * them, and losing one stops the projector with LeaseLost.
   */
  leases?: LeaseKeeper;
}

export interface GiveWay {
  meters: LoadMeter[];
  maxLagMs: number;
  /**
   * How long one look at the meters lasts (default 1 s): long enough that a stall of the whole
   * machine (other processes, the collector) is not taken for the load pausing.
   */
  lookMs?: number;
}

/** A counter that only grows (the journal's bytes, the process's CPU µs): busy while it grows at `busyPerSecond` or more. */
export interface LoadMeter {
  read(): number;
  busyPerSecond: number;
}

/**
 * What the rest of the town uses of a running projector, wherever it runs: in this thread
 * (Projector), or on a thread of its own (ThreadProjector, thread.ts).
 */
export interface ProjectorHandle {
  readonly names: string[];
  /** The last position every projection has folded and committed. */
  readonly checkpoint: bigint | undefined;
  readonly error: Error | undefined;
  /** Events folded since start. */
  readonly folded: number;
  checkpointOf(name: string): bigint | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Stops folding after the unit in hand, keeping the read-your-writes waits and listeners
   * (a live rebuild's switch, live-rebuild.ts): reads are served meanwhile from what is folded.
   */
  suspend(): Promise<void>;
  /**
   * Folds again from the checkpoints the read store holds now (after a switch, the new
   * generation's), and tells the waits and listeners where that is.
   */
  resume(): Promise<void>;
  whenCaughtUp(): Promise<void>;
  onAdvance(listener: (position: bigint) => void): () => void;
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
}

/** Creates the projections' indexes (an index that exists already is left as it is). */
export async function ensureIndexes(reads: ReadStore, projections: Projection[]): Promise<void> {
  for (const p of projections) for (const { collection, spec } of p.indexes ?? []) await reads.collection(collection).createIndex(spec);
}

/**
 * What every projector keeps and answers the same way, wherever it folds: its checkpoints, its
 * failure, and the checkpoint watch (advances, read-your-writes waits, caught up).
 */
export abstract class ProjectorBase implements ProjectorHandle {
  protected readonly watch = new CheckpointWatch();
  protected readonly checkpoints = new Map<string, bigint | undefined>();
  protected failed: Error | undefined;
  /** Events folded since start. */
  folded = 0;
  abstract readonly names: string[];
  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
  abstract suspend(): Promise<void>;
  abstract resume(): Promise<void>;

  /** After a resume: the waits the new checkpoint satisfies end, listeners hear where it is. */
  protected resumedAt(): void {
    if (this.watch.position !== undefined) this.watch.advance(this.watch.position);
  }

  /** The last position every projection of this projector has folded and committed. */
  get checkpoint(): bigint | undefined {
    return this.watch.position;
  }

  get error(): Error | undefined {
    return this.failed;
  }

  checkpointOf(name: string): bigint | undefined {
    return this.checkpoints.get(name);
  }

  /** Resolves once the projections have folded everything that was in the journal at start. */
  whenCaughtUp(): Promise<void> {
    return this.watch.whenCaughtUp();
  }

  /** Called after every committed batch with the new checkpoint. */
  onAdvance(listener: (position: bigint) => void): () => void {
    return this.watch.onAdvance(listener);
  }

  /**
   * Read-your-writes: resolves true as soon as the checkpoint reaches `position`, false when
   * `timeoutMs` passes first (at once when the projector has failed).
   */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.watch.waitFor(position, timeoutMs, this.failed !== undefined);
  }
}

export class Projector extends ProjectorBase {
  private readonly projections: Projection[];
  private buffer: RecordedEvent[] = [];
  private flushing: Promise<void> | undefined;
  private subscription: Subscription | undefined;
  private readonly batch: number;
  /** Ends the wait between units in progress (stop, suspend, a reader waiting: nudge). */
  private endGap: (() => void) | undefined;
  /** A reader waits (nudge): the next unit follows the last without a wait. */
  private wanted = false;
  /** Events a unit takes at most: the batch, halved each time the store refuses a unit as too large. */
  private unitMax = Number.POSITIVE_INFINITY;
  /** Units the store refused as too large and that were folded again in halves. */
  splits = 0;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    projections: Projection | Projection[],
    private readonly options: ProjectorOptions = {},
  ) {
    super();
    this.projections = Array.isArray(projections) ? projections : [projections];
    if (!this.projections.length) throw new Error('a projector needs at least one projection');
    this.batch = options.batch ?? 500;
  }

  get names(): string[] {
    return this.projections.map((p) => p.name);
  }

  async start(): Promise<void> {
    this.halting = false;
    this.options.leases?.onLost((error) => this.fail(error));
    await ensureIndexes(this.reads, this.projections);
    for (const p of this.projections) this.checkpoints.set(p.name, await this.reads.checkpoint(p.name));
    this.watch.position = this.lowest();
    const handlers: SubscribeHandlers = {
      onEvent: (event) => this.onEvent(event),
      onCaughtUp: () => {
        void this.flush().then(() => this.watch.markCaughtUp());
      },
      onError: (error) => this.fail(error),
    };
    this.subscription =
      this.options.pollMs !== undefined
        ? pollAll(this.events, this.watch.position, handlers, this.options.pollMs)
        : this.events.subscribeToAll(this.watch.position, handlers);
  }

  async stop(): Promise<void> {
    this.halt();
    await this.subscription?.close();
    this.subscription = undefined;
    await this.flush();
    this.watch.giveUp();
    await this.options.leases?.release();
  }

  /**
   * Stops at once as a killed process would: nothing more is folded or committed, and the leases
   * are left to expire (tests use it to stand for `kill -9`).
   */
  async kill(): Promise<void> {
    this.killed = true;
    this.halt();
    this.buffer = [];
    this.options.leases?.abandon();
    await this.subscription?.close();
    this.subscription = undefined;
    this.watch.giveUp();
  }

  private killed = false;

  async suspend(): Promise<void> {
    this.halt();
    await this.subscription?.close();
    this.subscription = undefined;
    await this.flush();
    this.buffer = [];
  }

  async resume(): Promise<void> {
    this.failed = undefined;
    await this.start();
    this.resumedAt();
  }

  private lowest(): bigint | undefined {
    let low: bigint | undefined;
    for (const p of this.projections) {
      const c = this.checkpoints.get(p.name);
      if (c === undefined) return undefined;
      if (low === undefined || c < low) low = c;
    }
    return low;
  }

  private async onEvent(event: RecordedEvent): Promise<void> {
    if (this.failed) return;
    this.buffer.push(event);
    if (this.buffer.length >= this.batch) {
      // Waiting here holds the feed too: nothing more is read or decoded while the town is busy.
      if (this.options.giveWay) await this.giveWay(this.options.giveWay);
      await this.flush();
    } else this.scheduleFlush();
  }

  /** Stopping, suspending or killed: no more giving way or gaps between units, what is held is folded (or dropped) now. */
  private halting = false;
  /** The looks at the meters in progress, cut short when halting. */
  private readonly wakers = new Set<() => void>();

  private halt(): void {
    this.halting = true;
    for (const wake of [...this.wakers]) wake();
    this.endGap?.();
  }

  /** Resolves when every meter runs below its `busyPerSecond`, or when the oldest event held is `maxLagMs` old. */
  private async giveWay(g: GiveWay): Promise<void> {
    for (;;) {
      const oldest = this.buffer[0];
      if (!oldest || this.halting) return;
      const left = g.maxLagMs - (Date.now() - oldest.created);
      if (left <= 0) return;
      const before = g.meters.map((m) => m.read());
      const started = performance.now();
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.wakers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(g.lookMs ?? 1000, left));
        this.wakers.add(wake);
      });
      if (this.halting) return;
      const seconds = (performance.now() - started) / 1000;
      if (!g.meters.some((m, i) => m.read() - before[i]! >= m.busyPerSecond * seconds)) return;
    }
  }

  private scheduled = false;
  private scheduleFlush(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // A macrotask, so a burst of live events arriving together lands in one unit.
    const fold = () => {
      const g = this.options.giveWay;
      if (!g) {
        this.scheduled = false;
        void this.flush();
        return;
      }
      // Still scheduled while giving way: one wait at a time, the events arriving meanwhile join it.
      void this.giveWay(g).then(() => {
        this.scheduled = false;
        return this.flush();
      });
    };
    if (this.options.lingerMs) setTimeout(fold, this.options.lingerMs);
    else setImmediate(fold);
  }

  /** Commits the buffered events; serialised so units never overlap. */
  flush(): Promise<void> {
    const run = async (): Promise<void> => {
      while (this.buffer.length && !this.failed && !this.killed) {
        const events = this.buffer.splice(0, Math.min(this.batch, this.unitMax));
        const last = events[events.length - 1]!.position;
        try {
          await this.reads.unit(async (unit) => {
            this.options.leases?.fence(unit);
            for (const p of this.projections) {
              const from = this.checkpoints.get(p.name);
              const fresh = from === undefined ? events : events.filter((e) => e.position > from);
              if (fresh.length) await applyEvents(p, fresh, unit);
              unit.setCheckpoint(p.name, last);
            }
          });
        } catch (error) {
          if (error instanceof UnitTooLarge && events.length > 1) {
            // The store caps its units (MongoDB): the events go back, and units take half as many
            // from now on (nothing of the refused one was written, nor kept by the folds).
            this.buffer.unshift(...events);
            this.unitMax = Math.ceil(events.length / 2);
            this.splits++;
            continue;
          }
          this.fail(error as Error);
          return;
        }
        for (const p of this.projections) this.checkpoints.set(p.name, last);
        this.folded += events.length;
        this.watch.advance(last);
        await this.gap();
      }
    };
    this.flushing = (this.flushing ?? Promise.resolve()).then(run);
    return this.flushing;
  }

  /**
   * Under load (events came in while the unit committed, fewer than a full batch), waits
   * `commitGapMs` before the next unit, so that it carries more.
   */
  private gap(): Promise<void> | undefined {
    const wanted = this.wanted || this.watch.waiting;
    this.wanted = false;
    const wait = this.options.commitGapMs ?? 0;
    if (!wait || wanted || this.halting || this.killed || this.failed || !this.buffer.length || this.buffer.length >= this.batch) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.endGap = undefined;
        resolve();
      };
      const timer = setTimeout(done, wait);
      this.endGap = done;
    });
  }

  /**
   * Someone waits for a position not committed yet (read-your-writes): the wait between units in
   * progress ends, so a reader never pays the gap, only turns that nobody reads at once save it.
   */
  nudge(): void {
    this.wanted = true;
    this.endGap?.();
  }

  override waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    const at = this.watch.position;
    if (at === undefined || at < position) this.nudge();
    return super.waitFor(position, timeoutMs);
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = error;
    this.watch.giveUp();
    (this.options.onError ?? ((e: Error) => console.error(`projector ${this.names.join(',')} stopped:`, e)))(error);
  }
}

/**
 * A catch-up subscription made of reads: every `pollMs` it reads `$all` after the last event it
 * delivered. Same promises as subscribeToAll (order, no gaps, no duplicates, caught-up once).
 */
export function pollAll(events: EventStore, after: bigint | undefined, handlers: SubscribeHandlers, pollMs: number): Subscription {
  let closed = false;
  let last = after;
  let wake: (() => void) | undefined;
  let caughtUp = false;
  const page = 1024;
  const done = (async () => {
    while (!closed) {
      let n = 0;
      try {
        for await (const event of events.readAll({ ...(last !== undefined ? { after: last } : {}), maxCount: page })) {
          if (closed) return;
          await handlers.onEvent(event);
          last = event.position;
          n++;
        }
      } catch (error) {
        if (!closed) handlers.onError?.(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (n === page) continue;
      if (!caughtUp) {
        caughtUp = true;
        handlers.onCaughtUp?.(last);
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, pollMs);
      });
    }
  })();
  return {
    async close() {
      closed = true;
      wake?.();
      await done;
    },
  };
}

/**
 * Read-your-writes across processes: when the projector runs in another process, the front
 * waits for the checkpoint the worker commits to the read store (told of it by a change stream
 * where the store has one, else polling with a backoff: ReadStore.waitForCheckpoint).
 */
export function waitForCheckpoint(reads: ReadStore, projection: string, position: bigint, timeoutMs: number): Promise<boolean> {
  return reads.waitForCheckpoint(projection, position, timeoutMs);
}

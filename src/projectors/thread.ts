/**
 * The server's projector on a thread of its own. Folding events into read models (document
 * writes, index entries, commits) is most of what a turn costs the server after deciding it;
 * on its own thread it runs beside the event loop that answers requests instead of inside it.
 *
 * The journal stays with this thread (the embedded store has a single owner). With the embedded
 * store, this side tells the projector thread where the journal's durable frames end, after
 * every group, and the thread reads and decodes them itself: copying events between threads
 * costs more than reading them. With another store, this side subscribes to `$all` and forwards
 * what it hears, in batches. Either way only acknowledged events reach the thread, so a read
 * model never holds an entry the journal could lose. The thread runs the same Projector as a
 * worker process would, against its own connection to the read store, and reports each
 * committed checkpoint back; read-your-writes and `/live` wait on those reports exactly as on a
 * projector in this thread.
 *
 * Backpressure: forwarding, at most `highWater` events are forwarded and not yet folded, and
 * the subscription waits beyond that; reading the journal, the thread reads at its own pace.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Module } from '../cards/program.js';
import type { JournalShare } from '../stores/embedded/event-store.js';
import type { EventStore, RecordedEvent, Subscription } from '../stores/event-store.js';
import type { OpenReadStoreOptions } from '../stores/open-read-store.js';
import type { ProjectionName } from '../projections/index.js';
import type { FromThread, ThreadData, ToThread } from './thread-messages.js';
import { ProjectorBase } from '../projections/projector.js';

export interface ThreadProjectorOptions {
  events: EventStore;
  /** The embedded journal: the thread reads its durable frames itself (nothing is copied to it). */
  journal?: JournalShare;
  readStore: OpenReadStoreOptions;
  names: ProjectionName[];
  libraryModules: readonly Module[];
  batch?: number;
  /** See ThreadData. */
  signing?: string;
  lingerMs?: number;
  /** See ProjectorOptions.commitGapMs (default `defaultCommitGapMs`). */
  commitGapMs?: number;
  nice?: number;
  giveWay?: ThreadData['giveWay'];
  /** Events forwarded and not yet folded before the subscription waits. */
  highWater?: number;
  /** First wait before a thread that failed is started again (doubling up to 30 s). */
  restartMs?: number;
  onError?(error: Error): void;
}

/**
 * Under a steady load, the projector thread waits this long between units (ProjectorOptions.
 * commitGapMs). Measured on the turns bench at 48 connections (2 shared cores, strace over 3 s
 * of turns): 3.4–3.5 read-store writes (pwrite, writev, fdatasync) a turn with no wait, 3.2
 * with 30 ms, 2.0–2.8 with 60 ms, 1.7 with 100 ms; the thread pool's CPU a turn (where LMDB
 * writes and syncs) 160–176 µs with none, 106 µs with 60 ms. A read right after one's own turn
 * waits for the projection, so a loaded town adds up to this much to that wait; an idle one
 * folds at once, as before.
 */
export const defaultCommitGapMs = 60;

/** The longest wait between two restarts of a thread that keeps failing. */
const maxRestartMs = 30_000;

export class ThreadProjector extends ProjectorBase {
  readonly names: string[];
  private worker: Worker | undefined;
  private subscription: Subscription | undefined;
  private buffer: RecordedEvent[] = [];
  private posting = false;
  /** Forwarded, not yet taken by the thread. */
  private outstanding = 0;
  private drained: (() => void)[] = [];
  private stopped: Promise<void> | undefined;
  private exited: Promise<void> | undefined;
  private readonly highWater: number;
  /** Reading the journal: the offset the thread has read to while it waits for more. */
  private threadRead: number | undefined;
  private readTo: ((offset: number) => void) | undefined;
  /** Whether a thread ever started: after that, a failed one is started again. */
  private running = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartMs: number;
  /** Suspended (suspend, resume): the thread folds nothing and is not restarted. */
  private suspended = false;
  private whenStarted: (() => void) | undefined;
  private whenSuspended: (() => void) | undefined;
  private resumeFailed: ((error: Error) => void) | undefined;

  constructor(private readonly o: ThreadProjectorOptions) {
    super();
    this.names = [...o.names];
    this.highWater = o.highWater ?? 20_000;
    this.restartMs = o.restartMs ?? 1000;
  }

  /**
   * Starts the thread; resolves once its projections have read their checkpoints. A thread that
   * fails later (a projection's error, a crash) is reported and started again after a wait, and
   * resumes from its checkpoints; reads answer from the read models as they stand meanwhile.
   */
  private readonly leaseHolder = `${hostname()}:${process.pid}:front-${randomUUID().slice(0, 8)}`;

  async start(): Promise<void> {
    await this.spawn();
    this.running = true;
  }

  private spawn(): Promise<void> {
    const data: ThreadData = {
      readStore: this.o.readStore,
      names: this.o.names,
      libraryModules: this.o.libraryModules,
      batch: this.o.batch ?? 1000,
      ...(this.o.signing !== undefined ? { signing: this.o.signing } : {}),
      ...(this.o.lingerMs !== undefined ? { lingerMs: this.o.lingerMs } : {}),
      commitGapMs: this.o.commitGapMs ?? defaultCommitGapMs,
      ...(this.o.nice !== undefined ? { nice: this.o.nice } : {}),
      ...(this.o.giveWay ? { giveWay: this.o.giveWay } : {}),
      leaseHolder: this.leaseHolder,
    };
    const worker = new Worker(new URL('./thread-worker.js', import.meta.url), { workerData: data });
    this.worker = worker;
    // A nudge the thread given up on never answered: the new one is told afresh.
    this.nudged = false;
    this.buffer = [];
    this.outstanding = 0;
    this.posting = false;
    this.threadRead = undefined;
    this.readTo = undefined;
    this.subscription = undefined;
    const current = () => this.worker === worker;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      /** Why a thread that has not started yet failed: the start's own error, not a failure's. */
      let why: Error | undefined;
      this.exited = new Promise<void>((exited) => {
        worker.once('exit', (code) => {
          if (current()) {
            this.closeFeed();
            if (!started) reject(why ?? new Error(`the projector thread exited (${code}) before it started`));
            else if (!this.stopped && (!this.suspended || this.resumeFailed)) this.fail(new Error(`the projector thread exited (${code})`));
          }
          exited();
        });
      });
      worker.on('error', (error) => {
        if (!current()) return;
        if (started) this.fail(error);
        else why ??= error;
      });
      worker.on('message', (m: FromThread) => {
        // A thread given up on may still have messages on their way: they are not this one's.
        if (!current()) return;
        if (!started && 'failed' in m) why ??= new Error(m.failed);
        else if ('started' in m) {
          for (const [name, at] of m.started.checkpoints) this.checkpoints.set(name, at);
          this.watch.position = lowest(m.started.checkpoints.map(([, at]) => at));
          this.failed = undefined;
          started = true;
          resolve();
          this.whenStarted?.();
        } else this.onMessage(m);
      });
    });
  }

  private restartLater(): void {
    if (!this.running || this.stopped || this.suspended || this.restartTimer) return;
    const old = this.worker;
    this.worker = undefined;
    void old?.terminate();
    const wait = this.restartMs;
    this.restartMs = Math.min(maxRestartMs, wait * 2);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopped) return;
      this.spawn().then(
        () => {
          // Folding again: the next failure waits from the start again.
          this.restartMs = this.o.restartMs ?? 1000;
        },
        (error: Error) => {
          this.report(error);
          this.restartLater();
        },
      );
    }, wait);
  }

  /** No restart, no new events: what was forwarded goes to the thread; the thread, if there is one. */
  private async quietFeed(): Promise<Worker | undefined> {
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    await this.subscription?.close();
    this.subscription = undefined;
    if (this.worker) this.post();
    return this.worker;
  }

  /** Stops the feed, lets the thread fold and commit what it was given, and ends it. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      const worker = await this.quietFeed();
      if (!worker) return;
      worker.postMessage({ stop: true } satisfies ToThread);
      // A thread that cannot finish its last unit in this long is cut off (its checkpoint is
      // never ahead of its data, so nothing is lost: the next start folds the rest again).
      const cut = setTimeout(() => void worker.terminate(), 30_000);
      await this.exited;
      clearTimeout(cut);
      this.watch.giveUp();
      for (const resolve of this.drained.splice(0)) resolve();
    })();
    return this.stopped;
  }

  /**
   * The thread folds and commits what it was given and closes its read store, but stays up:
   * resume() has it open the store again, which is quicker than starting a thread. The waits
   * and listeners stay for resume().
   */
  async suspend(): Promise<void> {
    if (this.stopped) throw new Error('the projector thread is stopped');
    this.suspended = true;
    const worker = await this.quietFeed();
    if (!worker) return;
    await new Promise<void>((resolve) => {
      this.whenSuspended = resolve;
      worker.postMessage({ suspend: true } satisfies ToThread);
      // A thread that ends meanwhile (a failure) is suspended too.
      void this.exited?.then(resolve);
    });
    this.whenSuspended = undefined;
  }

  /** The thread opens the read store as it stands now and resumes from its checkpoints. */
  async resume(): Promise<void> {
    if (this.stopped) throw new Error('the projector thread is stopped');
    const worker = this.worker;
    if (worker) {
      try {
        await new Promise<void>((resolve, reject) => {
          this.whenStarted = resolve;
          this.resumeFailed = reject;
          worker.postMessage({ resume: true } satisfies ToThread);
        });
      } finally {
        this.whenStarted = undefined;
        this.resumeFailed = undefined;
      }
    } else await this.spawn();
    this.suspended = false;
    this.resumedAt();
  }

  private onMessage(m: FromThread): void {
    if ('subscribe' in m) this.subscribe(m.subscribe.after);
    else if ('read' in m) this.readTo?.(m.read);
    else if ('took' in m) {
      this.outstanding -= m.took;
      if (this.outstanding < this.highWater / 2) for (const resolve of this.drained.splice(0)) resolve();
    } else if ('advanced' in m) {
      // Told a tick late: lmdb-js keeps this thread's read snapshot until a timer it set when the
      // snapshot was taken (read.js, `setTimeout(resetReadTxn, 0)`). A report that arrives in the
      // same turn of the loop as an earlier read would otherwise let a reader waiting on this
      // checkpoint (read-your-writes, kept cards) read that older snapshot, without the unit the
      // report is about. A timer set now fires after lmdb-js's, so the next read takes a fresh one.
      setTimeout(() => {
        const { position, folded } = m.advanced;
        this.folded = folded;
        for (const name of this.names) this.checkpoints.set(name, position);
        this.nudged = false;
        this.watch.advance(position);
        if (this.watch.waiting) this.nudge();
      }, 0);
    } else if ('caughtUp' in m) {
      // after the reports before it (above), in order
      setTimeout(() => this.watch.markCaughtUp(), 0);
    } else if ('suspended' in m) {
      this.whenSuspended?.();
    } else if ('failed' in m) {
      this.fail(new Error(m.failed));
    }
  }

  private subscribe(after: bigint | undefined): void {
    if (this.subscription || this.stopped) return;
    const share = this.o.journal;
    if (share) {
      const worker = this.worker!;
      worker.postMessage({
        journal: { file: share.file, from: share.offsetAfter(after), to: share.durable().offset, deleted: share.deleted() },
      } satisfies ToThread);
      // Told of a new end only when it has read everything it knew of: one message (and one
      // wake of the thread) per round of reading, however many groups became durable meanwhile.
      const off = share.onDurable(() => {
        if (this.threadRead === undefined) return;
        this.threadRead = undefined;
        worker.postMessage({ durable: share.durable().offset } satisfies ToThread);
      });
      this.readTo = (offset) => {
        const end = share.durable().offset;
        if (end > offset) worker.postMessage({ durable: end } satisfies ToThread);
        else this.threadRead = offset;
      };
      this.subscription = { close: async () => void off() };
      return;
    }
    this.subscription = this.o.events.subscribeToAll(after, {
      onEvent: (event) => {
        this.buffer.push(event);
        this.outstanding++;
        if (!this.posting) {
          this.posting = true;
          // A macrotask: the events of one append (and of appends settling together) go as one message.
          setImmediate(() => this.post());
        }
        if (this.outstanding >= this.highWater && !this.failed && !this.stopped) {
          return new Promise<void>((resolve) => this.drained.push(resolve));
        }
      },
      onCaughtUp: () => {
        this.post();
        this.worker?.postMessage({ caughtUp: true } satisfies ToThread);
      },
      onError: (error) => {
        this.worker?.postMessage({ feedFailed: error.message } satisfies ToThread);
        this.fail(error);
      },
    });
  }

  private post(): void {
    this.posting = false;
    if (!this.buffer.length || !this.worker) return;
    const events = this.buffer;
    this.buffer = [];
    this.worker.postMessage({ events } satisfies ToThread);
  }

  /**
   * A reader waits for a position the thread has not committed: the thread is told to end a wait
   * between units (one message however many wait, until the next advance).
   */
  override waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    const at = this.watch.position;
    const waits = super.waitFor(position, timeoutMs);
    if (at === undefined || at < position) this.nudge();
    return waits;
  }

  /** One message however many wait, until the thread's next advance (which nudges again while some still wait). */
  private nudge(): void {
    if (this.nudged || !this.worker || this.failed) return;
    this.nudged = true;
    this.worker.postMessage({ nudge: true } satisfies ToThread);
  }

  private nudged = false;

  private closeFeed(): void {
    void this.subscription?.close();
    this.subscription = undefined;
    for (const resolve of this.drained.splice(0)) resolve();
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = error;
    // A thread that failed while resuming: the resume fails, and the thread is started again
    // as after any failure (it opens the store at the generation it has now).
    const resuming = this.resumeFailed;
    if (resuming) {
      this.resumeFailed = undefined;
      this.suspended = false;
      resuming(error);
    }
    this.watch.giveUp();
    this.closeFeed();
    this.report(error);
    this.restartLater();
  }

  private report(error: Error): void {
    (this.o.onError ?? ((e: Error) => console.error(`projector thread ${this.names.join(',')} failed (started again after a wait):`, e)))(error);
  }
}

function lowest(checkpoints: (bigint | undefined)[]): bigint | undefined {
  let low: bigint | undefined;
  for (const c of checkpoints) {
    if (c === undefined) return undefined;
    if (low === undefined || c < low) low = c;
  }
  return low;
}

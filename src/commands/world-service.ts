/**
 * The world service: keeps the in-memory World of one world current from its journal stream
 * (`world-<world>`), decides commands with the kernel, and appends what they journal at the
 * expected height.
 *
 * Turns are pipelined, because deciding is fast and a durable append is slow:
 * - A command is decided at once, in arrival order, against the speculative world: the
 *   committed world with every entry decided so far laid over it (a copy-on-write layer).
 * - Entries decided while an append is in flight gather in the next batch; when the append
 *   commits, the whole next batch goes out as ONE append at the expected revision. One append in
 *   flight at a time keeps every append's expectation exact: a batch decided on a failed batch is
 *   never written on top of someone else's entries.
 * - A command is answered only when everything it saw is durable (its own entries, and the
 *   entries decided before it): a repeat of an intent whose first turn is still in flight waits
 *   for that turn, so 50 racing identical requests all get the one durable receipt.
 * - When an append fails (another front wrote first: WrongExpectedVersion), every batch decided
 *   since is dropped, the committed world catches up from the stream, and the commands are
 *   decided again in their order. A command that keeps losing is refused `staleRoot`.
 * - After every journaled turn, queued sends are delivered (up to 16) in the same batch.
 * - A carry (commands/carry.ts) runs between batches: commands wait, then are decided in the new
 *   epoch.
 *
 * Over 500 lines: the pipeline, recovery, snapshots and the carry all move the same committed
 * world, queues and stream; apart, each would reach into the others' fields.
 */
import type { Command } from '../cards/kernel/commands.js';
import { worldDecider } from '../cards/kernel/decide.js';
import type { Entry } from '../cards/kernel/entry.js';
import type { KernelOptions } from '../cards/kernel/options.js';
import { answerOf, needsFirst, type Answer, type Outcome } from '../cards/kernel/outcome.js';
import type { Programs } from '../cards/kernel/programs.js';
import { refusedBody } from '../cards/kernel/receipt.js';
import { blankWorld, layered, type World } from '../cards/kernel/world.js';
import { type Pin, WorldHistory } from '../cards/kernel/history.js';
import type { TownLayout } from '../cards/kernel/genesis.js';
import { limits } from '../contract/limits.js';
import { currentEpoch } from '../events/epochs.js';
import { decodeWorldEntry, encodedEntryEvent, entryEvent, epochStream, worldStream } from '../events/world.js';
import { carry, CarryRefused, type Carried } from './carry.js';
import type { Clock } from '../contract/clock.js';
import { WrongExpectedVersion, type EventData, type EventStore } from '../stores/event-store.js';
import { eventSize } from '../stores/event-store-checks.js';
import { frozenSnapshot, noSnapshots, snapshotFormat, type SnapshotStore } from './snapshot/world-snapshot.js';

/**
 * The world's decider, in the one Decider shape of src/contract/decider.ts: the service runs it
 * against the journal, adding the batching, pipelining and catch-up above (the identity streams
 * need none of that, and go through src/commands/streams.ts's handler instead).
 */
const { decide, evolve, initialState } = worldDecider;

/** Commands the service takes from the outside (genesis is its own business). */
export type WorldCommand = Exclude<Command, { kind: 'genesis' | 'empty' | 'fork' }>;

export interface Decided {
  outcome: Answer;
  /**
   * `$all` position at or after every entry this answer depends on (its own, and those decided
   * before it): a read that waits for its projections to pass it sees the turn.
   */
  position: bigint | undefined;
  /** Height of the journal once the answer was given (entries before it are durable). */
  height: number;
  /** Deliveries of queued sends the host ran right after this turn (same batch). */
  deliveries?: Entry[];
}

export interface WorldServiceOptions {
  events: EventStore;
  programs: Programs;
  clock: Clock;
  /** Kernel options for the next decision (the open-town quota can change while running). */
  options: () => KernelOptions;
  world?: string;
  /** Genesis of a world whose stream is empty. */
  genesis: { host: string; opener: string; layout?: TownLayout };
  /**
   * The first entry of a world whose stream is empty, when it is not the genesis town: a scratch
   * world's `empty` or `fork` (the fork's source already replayed to the height asked for).
   */
  first?: () => Extract<Command, { kind: 'genesis' | 'empty' | 'fork' }>;
  /**
   * The world a fork that reads through (`from.through`) starts from, given its first entry: its
   * source as it stood at the fork's height, as the forker may see it (history.ts, `forkBase`).
   */
  layer?: (fork: Entry) => Promise<World>;
  snapshots?: SnapshotStore;
  /** Committed entries between snapshots. */
  snapshotEvery?: number;
  /** Lost races a command may suffer before it is refused `staleRoot`. */
  maxAttempts?: number;
  /**
   * Appends in flight at once. More than one is only sound when this service is the stream's
   * ONLY writer (the embedded store, owned by this process, with one service per world): a
   * store that refuses an append also refuses every append queued behind it there. With a store
   * other fronts write to (EventStoreDB) keep 1: a batch decided on a failed one could land on
   * top of another front's entries when its expected revision happens to match.
   */
  appendsInFlight?: number;
  /** Told of every command decided and its outcome (the operator's turn counts, src/operations). */
  onDecided?: (command: WorldCommand, outcome: Outcome) => void;
}

interface Waiter {
  command: WorldCommand;
  attempts: number;
  resolve(d: Decided): void;
  reject(e: Error): void;
  outcome?: Outcome;
  deliveries?: Entry[];
}

interface Batch {
  entries: Entry[];
  /** The entries' events, encoded once when decided, and the bytes each counts towards an append. */
  events: EventData[];
  sizes: number[];
  bytes: number;
  waiters: Waiter[];
  /** Set once its append settled. */
  settled?: { position: bigint } | { error: Error };
}

/**
 * Entries read per page when catching up. Small on purpose: a page's decoded entries are all
 * alive until it is folded, and whatever is alive when the young generation is collected gets
 * copied and promoted. 128 against 2048 on 200,000 entries: about a fifth less CPU (measured
 * 32, 128, 512, 2048; docs/decisions/world-snapshots.md).
 */
const replayPage = 128;

const emptyBatch = (): Batch => ({ entries: [], events: [], sizes: [], bytes: 0, waiters: [] });

export class WorldService {
  readonly world: string;
  /** The journal stream of the current epoch (`world-<world>`, or `…@<start>` after a carry). */
  stream: string;
  /** Height of the current epoch's first entry: an entry's stream revision is its height minus this. */
  private start = 0;
  /** The committed world; never changed while the speculative layer lies over it. */
  private base: World = initialState();
  /** Committed entries not yet folded into `base`. */
  private acked: Entry[] = [];
  private spec: World = layered(this.base);
  /** Batches whose appends are in flight, oldest first. */
  private inflight: Batch[] = [];
  /** A batch failed: nothing is decided or sent until every batch in flight has settled. */
  private failing = false;
  private next: Batch = emptyBatch();
  private recovering: Promise<void> | undefined;
  private queued: Waiter[] = [];
  private lastPosition: bigint | undefined;
  private lastCid = '';
  private snapshotHeight = 0;
  /** A snapshot being written in steps (src/commands/snapshot/world-snapshot.ts); it never rejects. */
  private writing: Promise<void> | undefined;
  private closed = false;
  private closing = false;
  /** A carry is under way: commands wait for it in `queued` (decided in the new epoch). */
  private carrying = false;
  private readonly snapshots: SnapshotStore;
  private readonly snapshotEvery: number;
  private readonly maxAttempts: number;
  private readonly appendsInFlight: number;
  /** Repeats whose first receipt is being read back (close waits for them before the store goes). */
  private readonly reading = new Set<Promise<void>>();
  /** Listeners told of every committed batch (the `/live` channel and tests may use it). */
  private readonly listeners = new Set<(entries: readonly Entry[], position: bigint) => void>();
  /** A fork that reads through: the world and height it reads (its cards are read from its state). */
  readsThrough: { world: string; height: number } | undefined;
  /** What changed since the heights forks of this world hold (history.ts). */
  readonly history = new WorldHistory(() => this.base);
  /** Figures for the bench and the operator. */
  readonly stats = { batches: 0, entries: 0, conflicts: 0, replayed: 0, snapshotLoaded: 0 };
  /** Milliseconds each of the latest appends took, issue to settle (for the bench). */
  readonly appendMs: number[] = [];

  constructor(private readonly o: WorldServiceOptions) {
    this.world = o.world ?? 'town';
    this.stream = worldStream(this.world);
    this.snapshots = o.snapshots ?? noSnapshots;
    this.snapshotEvery = o.snapshotEvery ?? 50_000;
    this.maxAttempts = o.maxAttempts ?? 16;
    this.appendsInFlight = Math.max(1, o.appendsInFlight ?? 1);
  }

  /** Loads the snapshot (when it fits the journal), replays the rest, founds an empty world. */
  async open(): Promise<void> {
    const epoch = await currentEpoch(this.o.events, this.world);
    this.stream = epoch.stream;
    this.start = epoch.start;
    const snap = this.snapshots.loadAhead ? await this.snapshots.loadAhead(this.world) : this.snapshots.load(this.world);
    // a snapshot of an epoch before the current one does not fit its journal
    if (snap && snap.world.height > this.start) {
      const at = await this.o.events.readStream(this.stream, { fromRevision: this.revisionOf(snap.world.height - 1), maxCount: 1 });
      const same = at[0] !== undefined && decodeWorldEntry(at[0]).cid === snap.lastCid;
      if (same) {
        this.base = snap.world;
        this.lastCid = snap.lastCid;
        this.snapshotHeight = snap.world.height;
        this.stats.snapshotLoaded = snap.world.height;
      }
    }
    await this.catchUp();
    if (this.base.height === 0 && this.start === 0) await this.found();
    if (this.base.height <= this.start && this.start > 0)
      throw new Error(`${this.stream} holds no carry entry: the epoch pointer names an epoch that was never begun`);
    if (this.base.height - this.snapshotHeight >= Math.min(this.snapshotEvery, 5_000)) this.snapshot();
    this.spec = layered(this.base);
  }

  /** The committed world (read-only for callers: queries must not change it). */
  get committed(): World {
    this.rebase();
    return this.base;
  }

  /**
   * Holds the committed world as it stands now (or at a height another fork holds) for a fork
   * to read through to; undefined for another height (replay the journal to it instead).
   */
  pin(height?: number): Pin | undefined {
    this.rebase();
    return this.history.pin(height ?? this.base.height);
  }

  /** The world as decided so far, including entries still being made durable. */
  get current(): World {
    return this.spec;
  }

  get height(): number {
    return this.base.height + this.acked.length;
  }

  get position(): bigint | undefined {
    return this.lastPosition;
  }

  onCommit(listener: (entries: readonly Entry[], position: bigint) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reads what other fronts appended to this world's stream (several fronts on one journal)
   * into the committed world, and announces it to onCommit's listeners as its own commits are
   * (the live pages, the MCP card watch). Only while the service is idle: with a batch in
   * flight or waiting, the foreign entries are left to that append, which meets them as a
   * conflict and catches up. Commands that arrive meanwhile wait, as during a recovery.
   */
  follow(): Promise<void> {
    const busy = this.recovering || this.failing || this.carrying || this.inflight.length > 0 || this.next.entries.length > 0 || this.next.waiters.length > 0;
    if (this.closed || busy) return Promise.resolve();
    this.rebase();
    const following = (async () => {
      try {
        const caught: Entry[] = [];
        await this.catchUp(caught);
        if (!caught.length) return;
        this.spec = layered(this.base);
        for (const l of this.listeners) l(caught, this.lastPosition!);
      } finally {
        const queued = this.queued;
        this.queued = [];
        this.recovering = undefined;
        for (const w of queued) this.decideNow(w);
        this.kick();
      }
    })();
    this.recovering = following;
    return following;
  }

  /** Decides a command; resolves once what it depends on is durable. */
  submit(command: WorldCommand): Promise<Decided> {
    if (this.closed) return Promise.reject(new Error('the world service is closed'));
    return new Promise<Decided>((resolve, reject) => {
      const w: Waiter = { command, attempts: 0, resolve, reject };
      if (this.recovering || this.failing || this.carrying) this.queued.push(w);
      else this.decideNow(w);
    });
  }

  /**
   * Carries the world into a new epoch while it runs (commands/carry.ts): commands arriving from
   * now on wait; what was decided before is made durable; then the carry runs on the store, and
   * the world goes on from the carry entry with the commands that waited, decided in the new
   * epoch. No turn is decided in both: each is in the old epoch's journal before the carry entry
   * or in the new one after it. Refused while a fork reads through to a height of this world.
   */
  async carry(archiveDir: string): Promise<Carried> {
    if (this.closed || this.closing) throw new CarryRefused('the world service is closed');
    if (this.carrying) throw new CarryRefused(`a carry of ${this.world} is under way already`);
    if (this.history.held > 0)
      throw new CarryRefused(`scratch worlds read through to ${this.history.held} height(s) of ${this.world}: carry once they have expired`);
    this.carrying = true;
    try {
      while (this.inflight.length || this.recovering || this.failing || this.next.entries.length || this.next.waiters.length) {
        await (this.recovering ?? new Promise((r) => setTimeout(r, 5)));
        this.kick();
      }
      await Promise.all([...this.reading]);
      // a snapshot of the old epoch still being written would land after the new epoch's
      await this.writing;
      this.rebase();
      const done = await carry({ events: this.o.events, world: this.world, archiveDir, clock: this.o.clock, committed: this.base });
      const [recorded] = await this.o.events.readStream(epochStream(this.world, done.height), { direction: 'backwards', maxCount: 1 });
      this.stream = epochStream(this.world, done.height);
      this.start = done.height;
      this.base = done.parts.reduce(evolve, blankWorld());
      this.acked = [];
      this.spec = layered(this.base);
      this.lastCid = done.parts[done.parts.length - 1]!.cid;
      if (recorded && (this.lastPosition === undefined || recorded.position > this.lastPosition)) this.lastPosition = recorded.position;
      this.snapshotHeight = 0;
      this.snapshot();
      return done;
    } finally {
      this.carrying = false;
      const queued = this.queued;
      this.queued = [];
      for (const w of queued) this.decideNow(w);
    }
  }

  /** Waits for what is in flight, writes a snapshot, and refuses further commands. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    while (this.inflight.length || this.recovering || this.failing || this.next.entries.length || this.next.waiters.length) {
      await (this.recovering ?? new Promise((r) => setTimeout(r, 5)));
      this.kick();
    }
    await Promise.all([...this.reading]);
    this.closed = true;
    await this.writing;
    this.rebase();
    if (this.base.height > this.snapshotHeight) this.saveSnapshot();
  }

  // ---- deciding -----------------------------------------------------------------------------

  private decideNow(w: Waiter): void {
    let outcome: Outcome;
    try {
      outcome = decide(this.spec, w.command, this.o.clock(), this.o.programs, this.o.options());
    } catch (error) {
      // A kernel bug must not take the pipeline down with it: this command alone fails.
      w.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (outcome.kind === 'journal' && !this.batched(outcome.entries)) {
      // An entry larger than one append could carry: refused before it is journaled.
      w.outcome = this.refusal(w.command, { class: 'capacity', reason: this.tooLarge });
      this.next.waiters.push(w);
      this.kick();
      return;
    }
    w.outcome = outcome;
    this.o.onDecided?.(w.command, outcome);
    if (outcome.kind === 'journal') {
      for (const e of outcome.entries) evolve(this.spec, e);
      if (w.command.kind === 'turn' && this.spec.pending.size > 0) w.deliveries = this.deliverQueued();
    }
    this.next.waiters.push(w);
    this.kick();
  }

  /** The host delivers queued sends after every turn; they ride in the same batch. */
  private deliverQueued(): Entry[] | undefined {
    let outcome: Outcome;
    try {
      outcome = decide(this.spec, { kind: 'deliver', max: limits.deliverPerCall }, this.o.clock(), this.o.programs, this.o.options());
    } catch {
      return undefined; // a send that cannot be decided stays queued for `deliver`
    }
    // A delivery too large for one append stays queued (`deliver` then answers `capacity`).
    if (outcome.kind !== 'journal' || !this.batched(outcome.entries)) return undefined;
    for (const e of outcome.entries) evolve(this.spec, e);
    return outcome.entries;
  }

  /**
   * Adds entries to the next batch with their encoded events, unless one of them is larger than
   * the store's maximum append size (then nothing is added and `tooLarge` says why).
   */
  private batched(entries: Entry[]): boolean {
    const max = this.o.events.maxAppendSize;
    const batch = this.next;
    const had = batch.entries.length;
    const hadBytes = batch.bytes;
    for (const entry of entries) {
      const event = encodedEntryEvent(this.world, entry);
      const size = eventSize(event.type, event.json);
      if (size > max) {
        // Taken back whole: the command is refused, none of its entries is journaled.
        batch.entries.length = batch.events.length = batch.sizes.length = had;
        batch.bytes = hadBytes;
        this.tooLarge = `maxAppendSize: the entry would take ${size} bytes of the journal, and one append carries at most ${max}`;
        return false;
      }
      batch.entries.push(entry);
      batch.events.push(event);
      batch.sizes.push(size);
      batch.bytes += size;
    }
    return true;
  }

  private tooLarge = '';

  /**
   * The next batch to append: all of it, or, when it is larger than one append may be, the
   * entries from its start that fit (the rest stays next, with every waiter: a waiter is
   * answered when everything it saw is durable, and the rest commits after the part).
   */
  private takeNext(): Batch {
    const batch = this.next;
    const max = this.o.events.maxAppendSize;
    if (batch.bytes <= max) {
      this.next = emptyBatch();
      return batch;
    }
    let n = 0;
    let bytes = 0;
    while (n < batch.sizes.length && bytes + batch.sizes[n]! <= max) bytes += batch.sizes[n++]!;
    batch.bytes -= bytes;
    return { entries: batch.entries.splice(0, n), events: batch.events.splice(0, n), sizes: batch.sizes.splice(0, n), bytes, waiters: [] };
  }

  // ---- appending ----------------------------------------------------------------------------

  private kick(): void {
    if (this.recovering || this.failing) return;
    const batch = this.next;
    if (!batch.entries.length) {
      if (!batch.waiters.length) return;
      this.next = emptyBatch();
      const last = this.inflight[this.inflight.length - 1];
      if (last) {
        // They saw what is in flight: they are answered when the last batch in flight commits.
        last.waiters.push(...batch.waiters);
        return;
      }
      // Nothing to write, and nothing in flight: everything these saw is durable.
      for (const w of batch.waiters) this.answer(w, this.lastPosition);
      this.settleLayer();
      return;
    }
    if (this.inflight.length >= this.appendsInFlight) return;
    const out = this.takeNext();
    this.inflight.push(out);
    const first = out.entries[0]!.height;
    const expected = first === 0 ? ('noStream' as const) : this.revisionOf(first - 1);
    const issued = performance.now();
    const took = () => {
      if (this.appendMs.length >= 1024) this.appendMs.shift();
      this.appendMs.push(performance.now() - issued);
    };
    this.o.events.append(this.stream, out.events, expected).then(
      (r) => {
        took();
        this.settled(out, { position: r.position });
      },
      (error: unknown) => {
        took();
        this.settled(out, { error: error instanceof Error ? error : new Error(String(error)) });
      },
    );
  }

  /** Takes settled batches in order: commits until the first failure, which voids the rest. */
  private settled(batch: Batch, how: NonNullable<Batch['settled']>): void {
    batch.settled = how;
    if ('error' in how) this.failing = true;
    while (this.inflight[0]?.settled && 'position' in this.inflight[0].settled) {
      const done = this.inflight.shift()!;
      this.committedBatch(done, (done.settled as { position: bigint }).position);
    }
    if (!this.failing) {
      this.kick();
      this.settleLayer();
      return;
    }
    if (this.inflight.some((b) => !b.settled)) return; // wait for the rest to settle
    const failed = this.inflight;
    this.inflight = [];
    this.failing = false;
    const first = failed[0]!.settled as { error: Error };
    this.failedBatches(failed, first.error);
  }

  private committedBatch(batch: Batch, position: bigint): void {
    this.lastPosition = position;
    this.acked.push(...batch.entries);
    this.lastCid = batch.entries[batch.entries.length - 1]!.cid;
    this.stats.batches++;
    this.stats.entries += batch.entries.length;
    for (const w of batch.waiters) this.answer(w, position);
    for (const l of this.listeners) l(batch.entries, position);
  }

  private answer(w: Waiter, position: bigint | undefined): void {
    const outcome = w.outcome!;
    const height = this.height;
    if (outcome.kind !== 'repeat') {
      const d: Decided = { outcome, position, height };
      if (w.deliveries) d.deliveries = w.deliveries;
      return w.resolve(d);
    }
    // A repeat of a pre-carry intent is answered with its pointer: this journal does not hold it.
    if (!needsFirst(outcome)) return w.resolve({ outcome: answerOf(outcome), position, height, ...(w.deliveries ? { deliveries: w.deliveries } : {}) });
    // A repeat is answered once everything it saw is durable, its first entry included: read it back.
    const reading = this.entryAt(outcome.first.height)
      .then((first) => w.resolve({ outcome: answerOf(outcome, first), position, height, ...(w.deliveries ? { deliveries: w.deliveries } : {}) }))
      .catch(w.reject)
      .finally(() => this.reading.delete(reading));
    this.reading.add(reading);
  }

  /** The durable entry at `height` of this world's journal (its stream revision is its height). */
  private async entryAt(height: number): Promise<Entry | undefined> {
    if (height < this.start) return undefined; // before a carry: the past answers for it, not this journal
    const [event] = await this.o.events.readStream(this.stream, { fromRevision: this.revisionOf(height), maxCount: 1 });
    return event ? decodeWorldEntry(event) : undefined;
  }

  /**
   * Folds committed entries into the base when nothing speculative lies over them (or the layer
   * has grown long), so the layer stays short and lookups stay fast.
   */
  private settleLayer(): void {
    const quiet = !this.inflight.length && !this.next.entries.length && !this.recovering && !this.failing;
    if (quiet ? this.acked.length === 0 : this.acked.length < 4096) return;
    this.rebase();
  }

  private rebase(): void {
    if (this.acked.length === 0) return;
    for (const e of this.acked) this.fold(e);
    this.acked = [];
    const spec = layered(this.base);
    for (const b of this.inflight) for (const e of b.entries) evolve(spec, e);
    for (const e of this.next.entries) evolve(spec, e);
    this.spec = spec;
    if (this.base.height - this.snapshotHeight >= this.snapshotEvery) this.snapshot();
  }

  /** A committed entry into the base, its history kept first for the forks that read through. */
  private fold(entry: Entry): void {
    this.history.before(entry);
    evolve(this.base, entry);
  }

  private failedBatches(failed: Batch[], error: Error): void {
    const conflict = error instanceof WrongExpectedVersion || error.name === 'WrongExpectedVersion';
    if (conflict) this.stats.conflicts++;
    // Everything decided on the failed batch is void: decide it all again on the journal as it is
    // (what a later batch may have written regardless is read back by the catch-up, and its
    // commands come out as repeats).
    const again = [...failed.flatMap((b) => b.waiters), ...this.next.waiters, ...this.queued];
    this.next = emptyBatch();
    this.queued = [];
    this.recovering = this.recover(again, conflict, error);
  }

  private async recover(again: Waiter[], conflict: boolean, error: Error): Promise<void> {
    for (;;) {
      try {
        for (const e of this.acked) this.fold(e);
        this.acked = [];
        await this.catchUp();
        break;
      } catch (e) {
        // The store is not answering: fail what waits rather than spin.
        for (const w of again) w.reject(e instanceof Error ? e : new Error(String(e)));
        again = [];
        if (this.closing) {
          for (const w of this.queued.splice(0)) w.reject(e instanceof Error ? e : new Error(String(e)));
          this.recovering = undefined;
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    this.spec = layered(this.base);
    const queued = this.queued;
    this.queued = [];
    this.recovering = undefined;
    for (const w of [...again, ...queued]) {
      w.attempts++;
      if (w.attempts > (conflict ? this.maxAttempts : 2)) {
        if (conflict) w.resolve({ outcome: this.stale(w.command), position: this.lastPosition, height: this.height });
        else w.reject(error);
        continue;
      }
      w.outcome = undefined;
      w.deliveries = undefined;
      this.decideNow(w);
    }
    // Sends whose delivery was dropped with a failed batch are delivered now.
    if (this.spec.pending.size > 0 && !this.next.entries.some((e) => e.kind === 'delivery')) this.deliverQueued();
    this.kick();
  }

  private stale(command: WorldCommand): Answer {
    return this.refusal(command, { class: 'staleRoot', reason: `the journal kept moving under this turn (${this.maxAttempts} tries); resend the same turn` });
  }

  /** A refusal the service gives itself, journaling nothing. */
  private refusal(command: WorldCommand, refusal: { class: 'staleRoot' | 'capacity'; reason: string }): Extract<Outcome, { kind: 'refused' }> {
    const object = 'object' in command && typeof command.object === 'string' ? command.object : '';
    const method = command.kind === 'turn' ? command.method : command.kind;
    return { kind: 'refused', receipt: refusedBody(refusal, { ticks: 0, heap: 0, bytes: 0 }, object, method) };
  }

  // ---- loading ------------------------------------------------------------------------------

  /** Reads the stream after the committed height into the base (`caught`: what it read). */
  private async catchUp(caught?: Entry[]): Promise<void> {
    for (;;) {
      // a blank world reads an epoch from its carry entry, at revision 0
      const page = await this.o.events.readStream(this.stream, {
        fromRevision: this.base.height < this.start ? 0n : this.revisionOf(this.base.height),
        maxCount: replayPage,
      });
      for (const recorded of page) {
        const entry = decodeWorldEntry(recorded);
        if (entry.height === 0 && entry.from?.through) {
          if (!this.o.layer) throw new Error(`${this.world} is a fork of ${entry.from.world} that reads through to it, and nothing gives its source`);
          this.base = layered(await this.o.layer(entry));
          this.readsThrough = entry.from;
        }
        this.fold(entry);
        caught?.push(entry);
        this.lastCid = entry.cid;
        if (this.lastPosition === undefined || recorded.position > this.lastPosition) this.lastPosition = recorded.position;
        this.stats.replayed++;
      }
      if (page.length < replayPage) return;
    }
  }

  /** Where the entry at `height` lies in the current epoch's stream. */
  private revisionOf(height: number): bigint {
    return BigInt(height - this.start);
  }

  private async found(): Promise<void> {
    const first = this.o.first?.() ?? { kind: 'genesis', name: this.world, ...this.o.genesis };
    const outcome = decide(this.base, first, this.o.clock(), this.o.programs, this.o.options());
    if (outcome.kind !== 'journal') throw new Error(`genesis of ${this.world} decided ${outcome.kind}`);
    try {
      await this.o.events.append(
        this.stream,
        outcome.entries.map((e) => entryEvent(this.world, e)),
        'noStream',
      );
    } catch (error) {
      // Another front founded it first: theirs is the world.
      if (!(error instanceof WrongExpectedVersion)) throw error;
    }
    await this.catchUp();
  }

  /**
   * Writes a snapshot of the committed world in the background, one at a time: the world is
   * frozen now (milliseconds) and encoded a block at a time between other work (seconds for a
   * large town, which a start or a turn must not wait for).
   */
  private snapshot(): void {
    if (this.acked.length || this.writing || this.closed) return;
    if (this.snapshots === noSnapshots) {
      // Nothing to write (scratch worlds, EventStoreDB): nothing to freeze either.
      this.snapshotHeight = this.base.height;
      return;
    }
    const frozen = frozenSnapshot({ format: snapshotFormat, world: this.base, lastCid: this.lastCid });
    this.writing = this.snapshots.saveInSteps(this.world, frozen).then(
      () => {
        this.snapshotHeight = Math.max(this.snapshotHeight, frozen.height);
        this.writing = undefined;
      },
      () => {
        // A snapshot is an optimisation; a full disk must not stop turns.
        this.writing = undefined;
      },
    );
  }

  /** Writes a snapshot of the committed world now (at close: nothing runs after it). */
  private saveSnapshot(): void {
    try {
      this.snapshots.save(this.world, { format: snapshotFormat, world: this.base, lastCid: this.lastCid });
      this.snapshotHeight = this.base.height;
    } catch {
      // A snapshot is an optimisation; a full disk must not stop a close.
    }
  }
}

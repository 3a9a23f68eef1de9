/**
 * The embedded EventStore adapter, in process. Two parts under `<dataDir>/events`:
 *
 *   journal   an append-only file of checksummed frames, one per event in `$all` order: THE
 *             durable record (embedded/journal.ts). Appends are group-committed: every append
 *             reserved while the previous group is being written goes out in the next group's
 *             single synced write, and resolves only once that write has returned.
 *   index     LMDB: where each event is in the journal (embedded/journal-index.ts). Derived from the
 *             journal, written without syncs while the journal waits for the disk, caught up
 *             from the journal's tail (or rebuilt) on open.
 *
 * Stream heads are checked in memory, synchronously, in the same step that numbers the events and
 * reserves their place in the journal, so two appends can never both pass the same check.
 * Readers only ever see what is durable. See docs/decisions/event-journal-file.md.
 *
 * Over 500 lines on purpose: appends, retries, deletions (tombstones) and the scans readers and
 * subscriptions share one set of in-memory heads, and checking them is one synchronous step.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import fs from 'node:fs';
import {
  DEFAULT_MAX_APPEND_SIZE,
  StreamDeleted,
  streamFilter,
  WrongExpectedVersion,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeHandlers,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.js';
import { checkAppend, checkExpected, checkMaxAppendSize, checkReadAll, checkReadStream, checkStreamName, type CheckedEvent } from '../event-store-checks.js';
import { frameBodies, type FrameLocation, type FramePayload } from './frames.js';
import { fileIo, JournalCorrupt, recoverJournal, type Journal, type JournalIo } from './journal.js';
import { IndexGap, JournalIndex, type IndexedAppend } from './journal-index.js';
import { lockEventsDirectory } from './lock.js';
import type { DiskGuard } from './disk-guard.js';
import { RecentFrames } from './recent-frames.js';
import { DurableMarkWriter } from './durable-mark.js';

/** Events read per page by readAll and by subscriptions, so a long journal never sits in memory. */
export const PAGE_SIZE = 256;
const MAX_CACHED_HEADS = 100_000;
/**
 * The store's own stream of tombstones, one event `{stream}` per deleted stream: a deletion is a
 * frame of the journal like any event, so the index (rebuilt from the journal) and a reader of
 * the frames (the projector thread) learn of it from the journal itself. Callers cannot name it
 * (`$` streams are refused) and never see it.
 */
export const DELETED_STREAM = '$deleted';
const TOMBSTONE = '$streamDeleted';

export interface EmbeddedEventStoreOptions {
  /** The app's data directory; the journal and its index live in `<dataDir>/events`. */
  dataDir: string;
  /**
   * The most bytes one append may carry (default EventStoreDB's 1 MiB): refused as EventStoreDB
   * refuses it, so the embedded store accepts nothing a production server would not.
   */
  maxAppendSize?: number;
  /** Replaces the journal's writes and syncs (tests use it to make the disk fail). */
  journalIo?: Partial<JournalIo>;
  /** The free-space watermark, checked before each group is written (embedded/disk-guard.ts). */
  diskGuard?: DiskGuard;
}

/** An append numbered and reserved in the journal, waiting for its group's synced write. */
interface PendingAppend extends IndexedAppend {
  events: CheckedEvent[];
  done: Promise<AppendResult>;
  resolve(result: AppendResult): void;
  reject(error: Error): void;
}

/** A stream with appends in flight: its head counts them, so the next check sees them. */
interface PendingStream {
  head: number;
  appends: PendingAppend[];
}

export async function openEmbeddedEventStore(options: EmbeddedEventStoreOptions): Promise<EmbeddedEventStore> {
  const maxAppendSize = checkMaxAppendSize(options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE);
  const dir = path.join(options.dataDir, 'events');
  fs.mkdirSync(dir, { recursive: true });
  const release = lockEventsDirectory(dir);
  let index: JournalIndex | undefined;
  try {
    const journalFile = path.join(dir, 'journal');
    const idx = (index = JournalIndex.open(dir));
    let store: EmbeddedEventStore | undefined;
    const handlers = {
      durable: (entries: PendingAppend[]) => store!.durable(entries),
      // The disk is busy with the group: a good time for the index's share of the work.
      syncing: () => idx.drain(),
      failed: (entries: PendingAppend[], error: Error) => store!.failed(entries, error),
    };
    const acknowledged = idx.through();
    const given = { ...fileIo, ...options.journalIo };
    const guard = options.diskGuard;
    // A group goes out in one writev (more only after a short write): the watermark is looked at
    // before each, so a disk below it refuses the group before any of its bytes is written.
    const io: JournalIo = guard
      ? {
          ...given,
          writev: (fd, buffers, position) => {
            guard.check();
            return given.writev(fd, buffers, position);
          },
        }
      : given;
    const found = (frames: FrameLocation[]) => idx.load(frames);
    const indexInvalid = () => idx.clear();
    const recovered = await recoverJournal(journalFile, { from: idx.newest(), acknowledged, found, indexInvalid, io }, handlers).catch((error: unknown) => {
      if (!(error instanceof IndexGap)) throw error;
      // The index does not match the journal before its newest checkpoint: index it all again.
      idx.clear();
      return recoverJournal(journalFile, { acknowledged, found, io }, handlers);
    });
    idx.start(recovered.lastPosition);
    // Followers in other processes read below the mark (durable-mark.ts): it starts where recovery left the journal.
    const mark = new DurableMarkWriter(dir);
    mark.publish({ position: recovered.lastPosition, offset: recovered.journal.durableEnd });
    store = new EmbeddedEventStore(recovered.journal, idx, release, recovered.lastPosition, recovered.truncatedBytes, maxAppendSize, mark);
    store.loadDeleted();
    return store;
  } catch (error) {
    await index?.close();
    release();
    throw error;
  }
}

/** What a reader of the journal file in another thread of this process needs (share()). */
export interface JournalShare {
  file: string;
  /** Offset of the first frame after position `after` (the durable end when there is none yet). */
  offsetAfter(after: bigint | undefined): number;
  /** The newest durable position and the byte end of the durable frames, taken together. */
  durable(): { position: number; offset: number };
  /** Called after every group that became durable. */
  onDurable(listener: () => void): () => void;
  /** The newest position reserved so far: once it is durable, so is every append made before now. */
  reserved(): number;
  /** Streams deleted so far (a reader passes over their frames, and learns of later deletions from the journal). */
  deleted(): string[];
}

export class EmbeddedEventStore implements EventStore {
  private readonly subscribers = new Set<Subscriber>();
  private closed = false;
  private readonly pending = new Map<string, PendingStream>();
  /** Durable heads of streams seen this session, so a hot stream's check never reads LMDB. */
  private readonly heads = new Map<string, number>();
  /** Position the next reserved event gets. */
  private nextPosition: number;
  /** Newest durable position (0 for an empty journal): what readers may see. */
  private durableHead: number;
  private readonly durableListeners = new Set<() => void>();
  /** Deleted streams (durable tombstones): they read as absent, their events leave `$all`. */
  private readonly deleted = new Set<string>();
  /** Streams whose tombstone is on its way to the disk: appends to them are refused already. */
  private readonly deleting = new Map<string, Promise<unknown>>();
  /** This session's newest durable frames: the stream and offset of each (scan passes over them unread). */
  private readonly recent = new RecentFrames();

  constructor(
    private readonly journal: Journal<PendingAppend>,
    private readonly index: JournalIndex,
    private readonly release: () => void,
    lastPosition: number,
    /** Bytes of torn tail cut off the journal when this store was opened. */
    readonly truncatedOnOpen: number,
    readonly maxAppendSize = DEFAULT_MAX_APPEND_SIZE,
    /** Where followers in other processes learn of each durable group. */
    private readonly mark?: DurableMarkWriter,
  ) {
    this.nextPosition = lastPosition + 1;
    this.durableHead = lastPosition;
  }

  /** Journal groups written, one synced write each (lets the bench prove that commits are grouped). */
  get commits(): number {
    return this.journal.syncs;
  }

  append(stream: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      this.assertOpen();
      return this.checkAndReserve(stream, checkAppend(stream, events, expected, this.maxAppendSize), expected);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Reads the tombstones (on open): the deleted streams. */
  loadDeleted(): void {
    for (const offset of this.index.streamOffsets(DELETED_STREAM, false, 0, Number.MAX_SAFE_INTEGER)) {
      this.deleted.add((this.journal.readAt(offset).payload.d as { stream: string }).stream);
    }
  }

  async deleteStream(stream: string, expected: ExpectedRevision = 'any'): Promise<void> {
    this.assertOpen();
    checkStreamName(stream);
    checkExpected(expected);
    // Appends already reserved go first: the expectation is checked against what they leave.
    for (let inFlight = this.pending.get(stream); inFlight; inFlight = this.pending.get(stream)) {
      await inFlight.appends[inFlight.appends.length - 1]!.done.then(nothing, nothing);
      this.assertOpen();
    }
    const going = this.deleting.get(stream);
    if (going) return void (await going);
    if (this.deleted.has(stream)) return;
    const head = this.pending.get(stream)?.head ?? this.durableRevision(stream);
    if (!expectationHolds(expected, head)) throw new WrongExpectedVersion(stream, expected, head === undefined ? 'noStream' : BigInt(head));
    const json = JSON.stringify({ stream });
    const tombstone: CheckedEvent = { id: randomUUID(), type: TOMBSTONE, data: { stream }, metadata: undefined, json, metadataJson: undefined };
    // From here appends to it are refused; it reads as absent once the tombstone is durable.
    const done = this.checkAndReserve(DELETED_STREAM, [tombstone], 'any');
    this.deleting.set(stream, done);
    try {
      await done;
    } finally {
      this.deleting.delete(stream);
    }
  }

  /**
   * From the check to `reserve` nothing awaits: the check, the numbering and the reservation are
   * one step, so no other append can slip between them.
   */
  private checkAndReserve(stream: string, checked: CheckedEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.deleted.has(stream) || this.deleting.has(stream)) throw new StreamDeleted(stream);
    const inFlight = this.pending.get(stream);
    const head = inFlight ? inFlight.head : this.durableRevision(stream);
    if (!expectationHolds(expected, head)) {
      const retried = this.recognisedRetry(stream, checked, expected, inFlight);
      if (retried) return retried;
      if (inFlight) {
        // Refused only by appends not on disk yet (which readers cannot see, and which may still
        // fail): decide once they are settled, so that a caller who re-reads after a refusal
        // sees what refused it.
        const settled = inFlight.appends[inFlight.appends.length - 1]!.done.then(nothing, nothing);
        return settled.then(() => {
          this.assertOpen();
          return this.checkAndReserve(stream, checked, expected);
        });
      }
      throw new WrongExpectedVersion(stream, expected, head === undefined ? 'noStream' : BigInt(head));
    }
    const firstRevision = (head ?? -1) + 1;
    const firstPosition = this.nextPosition;
    const bodies = frameBodies(firstPosition, firstRevision, stream, checked, Date.now());
    let resolve!: (result: AppendResult) => void;
    let reject!: (error: Error) => void;
    const done = new Promise<AppendResult>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: PendingAppend = { stream, events: checked, firstRevision, firstPosition, offsets: [], done, resolve, reject };
    entry.offsets = this.journal.reserve(bodies, entry);
    this.nextPosition += checked.length;
    const lastRevision = firstRevision + checked.length - 1;
    if (inFlight) {
      inFlight.head = lastRevision;
      inFlight.appends.push(entry);
    } else {
      this.pending.set(stream, { head: lastRevision, appends: [entry] });
    }
    return done;
  }

  /**
   * The journal for a reader in another thread of this process (the projector thread), which
   * reads and decodes the frames itself instead of having this thread copy events to it.
   */
  share(): JournalShare {
    return {
      file: this.journal.file,
      offsetAfter: (after) => {
        this.assertOpen();
        const next = after === undefined ? 1 : Number(after) + 1;
        if (next > this.durableHead) return this.journal.durableEnd;
        const from = this.index.locate(next);
        if (from === undefined) throw new Error(`event index has no entry for position ${next}`);
        return this.journal.skip(from.offset, next - from.position);
      },
      durable: () => ({ position: this.durableHead, offset: this.journal.durableEnd }),
      onDurable: (listener) => {
        this.durableListeners.add(listener);
        return () => this.durableListeners.delete(listener);
      },
      deleted: () => [...this.deleted],
      reserved: () => this.nextPosition - 1,
    };
  }

  /** A group is on disk: index it, release its appends, wake subscribers. (Journal handler.) */
  durable(entries: PendingAppend[]): void {
    for (const a of entries) {
      this.index.add(a);
      this.recent.add(a.firstPosition, a.stream, a.offsets);
      const inFlight = this.pending.get(a.stream)!;
      // Appends to one stream become durable in the order they were reserved.
      inFlight.appends.shift();
      if (inFlight.appends.length === 0) this.pending.delete(a.stream);
      this.durableHead = a.firstPosition + a.events.length - 1;
      this.heads.set(a.stream, a.firstRevision + a.events.length - 1);
      if (a.stream === DELETED_STREAM) {
        for (const e of a.events) {
          const gone = (e.data as { stream: string }).stream;
          this.deleted.add(gone);
          this.heads.delete(gone);
        }
      }
    }
    for (const a of entries) {
      const n = a.events.length;
      a.resolve({ nextRevision: BigInt(a.firstRevision + n - 1), position: BigInt(a.firstPosition + n - 1) });
    }
    this.mark?.publish({ position: this.durableHead, offset: this.journal.durableEnd });
    this.wakeSubscribers();
    for (const listener of this.durableListeners) listener();
  }

  /** Revision of the stream's last durable event, or undefined for an absent stream. */
  private durableRevision(stream: string): number | undefined {
    const cached = this.heads.get(stream);
    if (cached !== undefined) return cached;
    const head = this.index.lastRevision(stream);
    if (head !== undefined) {
      // A bound on memory for journals with very many streams: forgetting only costs lookups.
      if (this.heads.size >= MAX_CACHED_HEADS) this.heads.clear();
      this.heads.set(stream, head);
    }
    return head;
  }

  /**
   * A group could not be written: it and every append queued behind it (numbered after it) are
   * refused, and heads and positions go back to what is durable. (Journal handler.)
   */
  failed(entries: PendingAppend[], error: Error): void {
    this.pending.clear();
    this.nextPosition = this.durableHead + 1;
    for (const a of entries) a.reject(error);
  }

  /**
   * A retry of an append that already succeeded (same event ids, at the revisions the caller
   * expected) succeeds again without writing, as on EventStoreDB. One still in flight gets the
   * first attempt's outcome.
   */
  private recognisedRetry(
    stream: string,
    events: CheckedEvent[],
    expected: ExpectedRevision,
    inFlight: PendingStream | undefined,
  ): Promise<AppendResult> | undefined {
    if (expected !== 'noStream' && typeof expected !== 'bigint') return undefined;
    const first = expected === 'noStream' ? 0 : Number(expected) + 1;
    for (const a of inFlight?.appends ?? []) {
      if (a.firstRevision === first && a.events.length === events.length && a.events.every((e, i) => e.id === events[i]!.id)) return a.done;
    }
    const offsets = this.index.streamOffsets(stream, false, first, events.length);
    if (offsets.length < events.length) return undefined;
    let position = 0;
    for (let i = 0; i < events.length; i++) {
      const { payload } = this.journal.readAt(offsets[i]!);
      if (payload.i !== events[i]!.id) return undefined;
      position = payload.p;
    }
    return Promise.resolve({ nextRevision: BigInt(first + events.length - 1), position: BigInt(position) });
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const { backwards, from, limit } = checkReadStream(stream, options);
    if (this.deleted.has(stream)) return [];
    return this.index.streamOffsets(stream, backwards, from, limit).map((offset) => toRecorded(this.journal.readAt(offset).payload));
  }

  async streamRevision(stream: string): Promise<bigint | undefined> {
    this.assertOpen();
    checkReadStream(stream, {});
    if (this.deleted.has(stream)) return undefined;
    const head = this.durableRevision(stream);
    return head === undefined ? undefined : BigInt(head);
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    const { after, maxCount } = checkReadAll(options);
    const store = this;
    return {
      async *[Symbol.asyncIterator]() {
        let last = after;
        let remaining = maxCount;
        while (remaining > 0) {
          // Paged by positions looked at: a deleted stream's events leave gaps in what is yielded.
          const scanned = store.scan(last, Math.min(PAGE_SIZE, remaining));
          for (const event of scanned.events) yield event;
          if (scanned.last - last < Math.min(PAGE_SIZE, remaining)) return;
          remaining -= scanned.events.length;
          last = scanned.last;
        }
      },
    };
  }

  /** Durable events after `after`, at most `limit`, read synchronously (one consistent view). */
  page(after: number, limit: number): RecordedEvent[] {
    return this.scan(after, limit).events;
  }

  /**
   * Durable events after `after` of the streams `wanted` accepts (all when it is undefined),
   * looking at `limit` positions at most; frames of other streams are passed over by their
   * heads, undecoded (by the stream kept in `recent` for frames this session wrote, unread), and
   * so are deleted streams' and the tombstones. `last`: the last position looked at.
   */
  scan(after: number, limit: number, wanted?: (stream: string) => boolean): { events: RecordedEvent[]; last: number } {
    this.assertOpen();
    const events: RecordedEvent[] = [];
    const last = Math.min(after + limit, this.durableHead);
    if (last <= after) return { events, last: after };
    const recent = this.recent;
    // Positions are consecutive frames in the journal: one sequential read, from the first one
    // this session did not write itself (those it did are passed over, or read, by their kept
    // stream and offset).
    let offset = -1;
    for (let position = after + 1; position <= last; position++) {
      if (recent.has(position)) {
        const stream = recent.streamAt(position);
        if (stream === DELETED_STREAM || this.deleted.has(stream) || (wanted && !wanted(stream))) continue;
        const at = recent.offsetAt(position);
        const { payload } = this.journal.readAt(at);
        if (payload.p !== position) throw new JournalCorrupt(this.journal.file, at, `expected position ${position}, found ${payload.p}`);
        events.push(toRecorded(payload));
        continue;
      }
      if (offset < 0) {
        const from = this.index.locate(position);
        if (from === undefined) throw new Error(`event index has no entry for position ${position}`);
        offset = this.journal.skip(from.offset, position - from.position);
      }
      const { payload, next } = wanted ? this.journal.headAt(offset) : this.journal.readAt(offset);
      if (payload.p !== position) throw new JournalCorrupt(this.journal.file, offset, `expected position ${position}, found ${payload.p}`);
      const seen = payload.s !== DELETED_STREAM && !this.deleted.has(payload.s);
      if (!wanted) {
        if (seen) events.push(toRecorded(payload as FramePayload));
      } else if (seen && wanted(payload.s)) events.push(toRecorded(this.journal.readAt(offset).payload));
      offset = next;
    }
    return { events, last };
  }

  async headPosition(): Promise<bigint | undefined> {
    this.assertOpen();
    return this.durableHead === 0 ? undefined : BigInt(this.durableHead);
  }

  subscribeToAll(after: bigint | undefined, handlers: SubscribeHandlers, options?: SubscribeOptions): Subscription {
    this.assertOpen();
    const start = after === undefined ? 0 : checkReadAll({ after }).after;
    const subscriber = new Subscriber(this, start, handlers, streamFilter(options), () => this.subscribers.delete(subscriber));
    this.subscribers.add(subscriber);
    subscriber.start();
    return subscriber;
  }

  private wakeSubscribers(): void {
    for (const subscriber of this.subscribers) subscriber.wake();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscribers].map((s) => s.close()));
    // Appends already reserved are written (and acknowledged) before the files close.
    await this.journal.close();
    await this.index.close();
    this.mark?.close();
    this.release();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

function nothing(): void {}

function expectationHolds(expected: ExpectedRevision, head: number | undefined): boolean {
  if (expected === 'any') return true;
  if (expected === 'noStream') return head === undefined;
  if (expected === 'streamExists') return head !== undefined;
  return head !== undefined && BigInt(head) === expected;
}

export function toRecorded(frame: FramePayload): RecordedEvent {
  const event: RecordedEvent = {
    id: frame.i,
    stream: frame.s,
    type: frame.t,
    revision: BigInt(frame.r),
    position: BigInt(frame.p),
    data: frame.d,
    created: frame.c,
  };
  if (frame.m !== undefined) event.metadata = frame.m;
  return event;
}

/**
 * One catch-up subscription. It never buffers events in memory: each round reads the next page
 * from the journal after the last position it delivered, so delivery is in position order with
 * no gaps or duplicates however slow `onEvent` is, and appends made during catch-up are simply
 * read in a later page.
 */
class Subscriber implements Subscription {
  private closed = false;
  private delivering = false;
  private caughtUp = false;
  private pendingWake = false;
  private waiter: (() => void) | undefined;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: EmbeddedEventStore,
    private last: number,
    private readonly handlers: SubscribeHandlers,
    /** Streams to deliver (all when undefined). */
    private readonly wanted: ((stream: string) => boolean) | undefined,
    private readonly forget: () => void,
  ) {}

  start(): void {
    // Deferred so that no handler runs before subscribeToAll has returned the subscription.
    this.done = Promise.resolve()
      .then(() => this.run())
      .catch((error: unknown) => {
        this.forget();
        if (!this.closed) {
          this.closed = true;
          this.handlers.onError?.(error instanceof Error ? error : new Error(String(error)));
        }
      });
  }

  private async run(): Promise<void> {
    const startedAfter = this.last;
    while (!this.closed) {
      this.pendingWake = false;
      if (this.store.isClosed) return;
      const before = this.last;
      const scanned = this.store.scan(this.last, PAGE_SIZE, this.wanted);
      for (const event of scanned.events) {
        if (this.closed) return;
        this.delivering = true;
        try {
          await this.handlers.onEvent(event);
        } finally {
          this.delivering = false;
        }
        this.last = Number(event.position);
      }
      const delivered = this.last;
      this.last = scanned.last;
      if (this.wanted && this.last > delivered && !this.closed) this.handlers.onPassed?.(BigInt(this.last));
      if (this.last - before === PAGE_SIZE) continue;
      if (!this.caughtUp) {
        this.caughtUp = true;
        if (this.closed) return;
        this.handlers.onCaughtUp?.(this.last === 0 && startedAfter === 0 ? undefined : BigInt(this.last));
      }
      if (!this.pendingWake) await new Promise<void>((resolve) => (this.waiter = resolve));
      this.waiter = undefined;
    }
  }

  wake(): void {
    this.pendingWake = true;
    this.waiter?.();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.forget();
    this.waiter?.();
    // Called from inside onEvent, waiting for the loop would wait for itself.
    if (!this.delivering) await this.done;
  }
}

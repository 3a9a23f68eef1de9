/**
 * The embedded EventStore adapter: an LMDB environment in the process.
 *
 * Layout (one environment under `<dataDir>/events`, three named databases, all written in ONE
 * write transaction per append):
 *   log      position (number, from 1)  -> stored event (the `$all` journal)
 *   streams  [stream, revision]         -> position      (per-stream index)
 *   heads    stream                     -> last revision (optimistic-concurrency check)
 *
 * Durability: an append resolves only when LMDB has committed and synced its transaction
 * (overlappingSync is turned off so that whatever a reader can see is already on disk; see
 * docs/decisions/event-store.md). Appends issued in the same event-loop turn share one commit,
 * so concurrent writers pay for one sync together.
 */
import path from 'node:path';
import fs from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import {
  WrongExpectedVersion,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeHandlers,
  type Subscription,
} from './event-store.js';
import { checkAppend, checkReadAll, checkReadStream, type CheckedEvent } from './event-store-checks.js';

/** What one row of the `log` database holds. Data and metadata are kept as JSON text. */
interface StoredEvent {
  id: string;
  stream: string;
  type: string;
  revision: number;
  data: string;
  metadata?: string;
  created: number;
}

type AppendOutcome =
  | { kind: 'written'; nextRevision: number; position: number }
  | { kind: 'conflict'; actual: number | undefined };

/** Rows read per page by readAll and by subscriptions, so a long journal never sits in memory. */
export const PAGE_SIZE = 256;
const LAST_REVISION = Number.MAX_SAFE_INTEGER;

export interface EmbeddedEventStoreOptions {
  /** The app's data directory; the journal lives in `<dataDir>/events`. */
  dataDir: string;
}

export async function openEmbeddedEventStore(options: EmbeddedEventStoreOptions): Promise<EmbeddedEventStore> {
  const dir = path.join(options.dataDir, 'events');
  fs.mkdirSync(dir, { recursive: true });
  const env = open({
    path: dir,
    // Durable before acknowledged: each commit fsyncs data then meta before the promise
    // resolves, and nothing uncommitted-to-disk is visible to readers.
    overlappingSync: false,
    noSync: false,
    maxDbs: 4,
  });
  return new EmbeddedEventStore(env);
}

export class EmbeddedEventStore implements EventStore {
  private readonly log: Database<StoredEvent, number>;
  private readonly streams: Database<number, [string, number]>;
  private readonly heads: Database<number, string>;
  private readonly subscribers = new Set<Subscriber>();
  private closed = false;
  /** Last position written in the write transaction `txnId`; read from disk once per commit. */
  private txnId = -1;
  private txnLastPosition = 0;
  /** How many write transactions carried appends (lets the bench prove that commits are grouped). */
  commits = 0;

  constructor(private readonly env: RootDatabase) {
    this.log = env.openDB<StoredEvent, number>({ name: 'log' });
    this.streams = env.openDB<number, [string, number]>({ name: 'streams' });
    this.heads = env.openDB<number, string>({ name: 'heads' });
  }

  async append(stream: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    const checked = checkAppend(stream, events, expected);
    const created = Date.now();
    // The check and the writes run inside one LMDB write transaction (callbacks of the same turn
    // share it, in call order), so no other append can slip between reading the head and writing.
    const outcome = await this.env.transaction(() => this.writeInTxn(stream, checked, expected, created));
    if (outcome.kind === 'conflict') {
      throw new WrongExpectedVersion(stream, expected, outcome.actual === undefined ? 'noStream' : BigInt(outcome.actual));
    }
    this.wakeSubscribers();
    return { nextRevision: BigInt(outcome.nextRevision), position: BigInt(outcome.position) };
  }

  private writeInTxn(stream: string, events: CheckedEvent[], expected: ExpectedRevision, created: number): AppendOutcome {
    const txnId = this.env.getWriteTxnId();
    if (txnId !== this.txnId) {
      this.txnId = txnId;
      this.commits++;
      this.txnLastPosition = 0;
      for (const key of this.log.getKeys({ reverse: true, limit: 1 })) this.txnLastPosition = key;
    }
    const head = this.heads.get(stream);
    if (!expectationHolds(expected, head)) {
      const retried = this.recognisedRetry(stream, events, expected);
      return retried ?? { kind: 'conflict', actual: head };
    }
    let revision = head ?? -1;
    let position = this.txnLastPosition;
    for (const event of events) {
      revision++;
      position++;
      const row: StoredEvent = { id: event.id, stream, type: event.type, revision, data: event.json, created };
      if (event.metadataJson !== undefined) row.metadata = event.metadataJson;
      this.log.put(position, row);
      this.streams.put([stream, revision], position);
    }
    this.heads.put(stream, revision);
    this.txnLastPosition = position;
    return { kind: 'written', nextRevision: revision, position };
  }

  /**
   * A retry of an append that already succeeded (same event ids, at the revisions the caller
   * expected) succeeds again without writing, as on EventStoreDB.
   */
  private recognisedRetry(stream: string, events: CheckedEvent[], expected: ExpectedRevision): AppendOutcome | undefined {
    if (expected !== 'noStream' && typeof expected !== 'bigint') return undefined;
    const first = expected === 'noStream' ? 0 : Number(expected) + 1;
    let position = 0;
    for (let i = 0; i < events.length; i++) {
      const at = this.streams.get([stream, first + i]);
      if (at === undefined) return undefined;
      const row = this.log.get(at);
      if (!row || row.id !== events[i]!.id) return undefined;
      position = at;
    }
    return { kind: 'written', nextRevision: first + events.length - 1, position };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const { backwards, from, limit } = checkReadStream(stream, options);
    const out: RecordedEvent[] = [];
    if (limit === 0) return out;
    const bounded = Number.isFinite(limit) ? { limit } : {};
    const range = backwards
      ? { start: [stream, from ?? LAST_REVISION] as [string, number], end: [stream, -1] as [string, number], reverse: true, ...bounded }
      : { start: [stream, from ?? 0] as [string, number], end: [stream, LAST_REVISION + 1] as [string, number], ...bounded };
    // Synchronous from first to last read, so one consistent snapshot.
    for (const { value: position } of this.streams.getRange(range)) {
      const row = this.log.get(position);
      if (row) out.push(toRecorded(position, row));
    }
    return out;
  }

  async streamRevision(stream: string): Promise<bigint | undefined> {
    this.assertOpen();
    checkReadStream(stream, {});
    const head = this.heads.get(stream);
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
          const page = store.page(last, Math.min(PAGE_SIZE, remaining));
          for (const event of page) yield event;
          if (page.length < Math.min(PAGE_SIZE, remaining)) return;
          remaining -= page.length;
          last = Number(page[page.length - 1]!.position);
        }
      },
    };
  }

  /** Events after `after`, at most `limit`, read synchronously (one snapshot). */
  page(after: number, limit: number): RecordedEvent[] {
    this.assertOpen();
    const out: RecordedEvent[] = [];
    for (const { key, value } of this.log.getRange({ start: after + 1, limit })) out.push(toRecorded(key, value));
    return out;
  }

  async headPosition(): Promise<bigint | undefined> {
    this.assertOpen();
    for (const key of this.log.getKeys({ reverse: true, limit: 1 })) return BigInt(key);
    return undefined;
  }

  subscribeToAll(after: bigint | undefined, handlers: SubscribeHandlers): Subscription {
    this.assertOpen();
    const start = after === undefined ? 0 : checkReadAll({ after }).after;
    const subscriber = new Subscriber(this, start, handlers, () => this.subscribers.delete(subscriber));
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
    // Let appends already queued in this turn commit before the environment goes away.
    await this.env.committed;
    await this.env.close();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

function expectationHolds(expected: ExpectedRevision, head: number | undefined): boolean {
  if (expected === 'any') return true;
  if (expected === 'noStream') return head === undefined;
  if (expected === 'streamExists') return head !== undefined;
  return head !== undefined && BigInt(head) === expected;
}

function toRecorded(position: number, row: StoredEvent): RecordedEvent {
  const event: RecordedEvent = {
    id: row.id,
    stream: row.stream,
    type: row.type,
    revision: BigInt(row.revision),
    position: BigInt(position),
    data: JSON.parse(row.data),
    created: row.created,
  };
  if (row.metadata !== undefined) event.metadata = JSON.parse(row.metadata);
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
      const page = this.store.page(this.last, PAGE_SIZE);
      for (const event of page) {
        if (this.closed) return;
        this.delivering = true;
        try {
          await this.handlers.onEvent(event);
        } finally {
          this.delivering = false;
        }
        this.last = Number(event.position);
      }
      if (page.length === PAGE_SIZE) continue;
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

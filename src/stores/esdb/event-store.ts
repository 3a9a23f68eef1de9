/**
 * The EventStoreDB adapter (gRPC, `@eventstore/db-client` v6).
 *
 * Positions: an event's `$all` commit position is our bigint position. For every append that
 * does not use EventStoreDB's explicit transactions (we never do) the commit and prepare
 * positions are equal and unique per event, so the commit position alone orders `$all`.
 *
 * System streams and events (`$`-prefixed) are the server's own and never reach callers:
 * readAll, headPosition and subscriptions skip them.
 */
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  FORWARDS,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type ResolvedEvent,
  type ReadPosition,
  type StreamingRead,
} from '@eventstore/db-client';
import {
  DEFAULT_MAX_APPEND_SIZE,
  filteredHandlers,
  MaxAppendSizeExceeded,
  StreamDeleted,
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
import { checkAppend, checkExpected, checkMaxAppendSize, checkReadAll, checkReadStream, checkStreamName } from '../event-store-checks.js';

export interface EsdbEventStoreOptions {
  /** `esdb://host:2113?tls=false` (or `esdb+discover://…` for a cluster). */
  url: string;
  /** Resubscription backoff after a dropped subscription, in ms (first try, ceiling). */
  retry?: { initialMs: number; maxMs: number };
  /**
   * The server's `MaxAppendSize` (eventstore.conf; EVENTSTORE_MAX_APPEND_SIZE, default 1 MiB):
   * an append over it is refused here, before it is sent, as the server would refuse it.
   */
  maxAppendSize?: number;
}

/** The part of the db-client this adapter uses (a narrow seam, so tests can stand in for it). */
export type EsdbClient = Pick<EventStoreDBClient, 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'tombstoneStream' | 'dispose'>;

export function isEsdbUrl(url: string): boolean {
  return /^esdb(\+discover)?:\/\//i.test(url);
}

export async function openEsdbEventStore(options: EsdbEventStoreOptions): Promise<EsdbEventStore> {
  if (!isEsdbUrl(options.url)) throw new Error(`EVENTSTORE_URL must start with esdb:// or esdb+discover:// (got ${options.url})`);
  const client = EventStoreDBClient.connectionString(options.url);
  return new EsdbEventStore(client, options.retry, checkMaxAppendSize(options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE));
}

const NO_POSITION = -1n;
/** Events one read call asks for at most: a read never streams the whole journal in one call. */
export const READ_PAGE = 1024;
/** Events one look for the head asks for (system events may lie at the end). */
const HEAD_PAGE = 32;
/**
 * A read call that has not finished in this long is cancelled by the client (gRPC deadline). The
 * call lasts while its reader works through the page (a rebuild commits units meanwhile), so the
 * bound is generous: it ends calls whose reader or server is stuck, not slow ones.
 */
const READ_DEADLINE_MS = 300_000;

/**
 * The events of one read call, cancelling the call when the reader stops before its end: the
 * db-client's `destroy()` leaves the gRPC call open until the client is disposed, only the read
 * stream's `cancel()` ends it.
 */
async function* drained<T>(read: StreamingRead<T>): AsyncGenerator<T> {
  let ended = false;
  try {
    for await (const item of read as AsyncIterable<T>) yield item;
    ended = true;
  } finally {
    if (!ended) await read.cancel().catch(() => undefined);
  }
}
const QUEUE_HIGH = 512;
const QUEUE_LOW = 128;

export class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<EsdbSubscription>();
  private closed = false;

  constructor(
    private readonly client: EsdbClient,
    private readonly retry = { initialMs: 100, maxMs: 5000 },
    readonly maxAppendSize = DEFAULT_MAX_APPEND_SIZE,
  ) {}

  async append(stream: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    const checked = checkAppend(stream, events, expected, this.maxAppendSize);
    const proposed = checked.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as never, ...(e.metadata ? { metadata: e.metadata as never } : {}) }));
    try {
      const result = await this.client.appendToStream(stream, proposed, { expectedRevision: toEsdbExpected(expected) });
      const position = result.position?.commit ?? (await this.positionOf(stream, result.nextExpectedRevision));
      return { nextRevision: result.nextExpectedRevision, position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new WrongExpectedVersion(stream, expected, typeof actual === 'bigint' ? actual : 'noStream');
      }
      if (error instanceof StreamDeletedError) throw new StreamDeleted(stream);
      // A server configured below our setting: the same refusal, with the server's figure.
      if (error instanceof MaxAppendSizeExceededError) throw new MaxAppendSizeExceeded(stream, error.maxAppendSize, undefined);
      throw error;
    }
  }

  /**
   * A tombstone (hard delete): the server refuses every later append, so a front that has not
   * heard of the deletion cannot recreate the stream half-made (a soft delete would let it).
   * The events stay in `$all` until the server's next scavenge.
   */
  async deleteStream(stream: string, expected: ExpectedRevision = 'any'): Promise<void> {
    this.assertOpen();
    checkStreamName(stream);
    checkExpected(expected);
    // The server's delete knows no "stream exists": the stream's revision now stands for it.
    let at: ExpectedRevision = expected;
    if (expected === 'streamExists') {
      const revision = await this.streamRevision(stream);
      if (revision === undefined) throw new WrongExpectedVersion(stream, expected, 'noStream');
      at = revision;
    }
    try {
      await this.client.tombstoneStream(stream, { expectedRevision: toEsdbExpected(at) as Exclude<AppendExpectedRevision, typeof STREAM_EXISTS> });
    } catch (error) {
      if (error instanceof StreamDeletedError) return;
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new WrongExpectedVersion(stream, expected, typeof actual === 'bigint' ? actual : 'noStream');
      }
      throw error;
    }
  }

  /** Some server versions leave the position out of an idempotent append's answer. */
  private async positionOf(stream: string, revision: bigint): Promise<bigint> {
    const [event] = await this.readStream(stream, { fromRevision: revision, maxCount: 1 });
    return event?.position ?? NO_POSITION;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const { backwards, limit } = checkReadStream(stream, options);
    if (limit === 0) return [];
    const out: RecordedEvent[] = [];
    let from: bigint | typeof START | typeof END = options.fromRevision ?? (backwards ? END : START);
    try {
      // Page by page: no call asks the server for more than READ_PAGE events.
      for (;;) {
        const want = Math.min(READ_PAGE, limit - out.length);
        let got = 0;
        let last: bigint | undefined;
        const read = this.client.readStream(stream, {
          direction: backwards ? BACKWARDS : FORWARDS,
          fromRevision: from,
          maxCount: want,
          deadline: READ_DEADLINE_MS,
        });
        for await (const resolved of drained(read)) {
          got++;
          const event = fromResolved(resolved);
          if (event) out.push(event);
          last = resolved.event?.revision ?? last;
        }
        if (got < want || out.length >= limit || last === undefined) return out;
        if (backwards && last === 0n) return out;
        from = backwards ? last - 1n : last + 1n;
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError || error instanceof StreamDeletedError) return [];
      throw error;
    }
  }

  async streamRevision(stream: string): Promise<bigint | undefined> {
    checkStreamName(stream);
    const [last] = await this.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return last?.revision;
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    const { maxCount } = checkReadAll(options);
    const client = this.client;
    return {
      async *[Symbol.asyncIterator]() {
        let count = 0;
        // `after` is exclusive; a read's fromPosition is inclusive, so the event there is skipped.
        let after = options.after;
        while (count < maxCount) {
          const want = Math.min(READ_PAGE, maxCount - count + (after === undefined ? 0 : 1));
          const fromPosition: ReadPosition = after === undefined ? START : { commit: after, prepare: after };
          let got = 0;
          let lastSeen: bigint | undefined;
          // Stopping early (maxCount reached, or the caller breaks) cancels the call: drained().
          for await (const resolved of drained(client.readAll({ direction: FORWARDS, fromPosition, maxCount: want, deadline: READ_DEADLINE_MS }))) {
            got++;
            const at = resolved.event?.position?.commit ?? resolved.commitPosition;
            if (at !== undefined) lastSeen = at;
            const event = fromAllResolved(resolved);
            if (!event || (after !== undefined && event.position <= after)) continue;
            yield event;
            if (++count >= maxCount) return;
          }
          if (got < want || lastSeen === undefined || (after !== undefined && lastSeen <= after)) return;
          after = lastSeen;
        }
      },
    };
  }

  async headPosition(): Promise<bigint | undefined> {
    this.assertOpen();
    // Backwards from the end, a page at a time, past the server's own (system) events.
    let from: ReadPosition = END;
    for (;;) {
      let got = 0;
      let lastSeen: bigint | undefined;
      for await (const resolved of drained(
        this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: HEAD_PAGE, deadline: READ_DEADLINE_MS }),
      )) {
        got++;
        const event = fromAllResolved(resolved);
        if (event) return event.position; // returning cancels the read
        const at = resolved.event?.position?.commit ?? resolved.commitPosition;
        if (at !== undefined) lastSeen = at;
      }
      if (got < HEAD_PAGE || lastSeen === undefined || lastSeen === 0n) return undefined;
      from = { commit: lastSeen - 1n, prepare: lastSeen - 1n };
    }
  }

  subscribeToAll(after: bigint | undefined, handlers: SubscribeHandlers, options?: SubscribeOptions): Subscription {
    this.assertOpen();
    if (after !== undefined) checkReadAll({ after });
    // Filtered here rather than by the server, so catching up (reaching the head) works alike.
    const subscription = new EsdbSubscription(this.client, this, after, filteredHandlers(handlers, options), this.retry, () =>
      this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    subscription.start();
    return subscription;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.client.dispose();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

export function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'noStream':
      return NO_STREAM;
    case 'streamExists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

function fromResolved(resolved: ResolvedEvent): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e || e.streamId.startsWith('$') || e.type.startsWith('$')) return undefined;
  const position = e.position?.commit ?? resolved.commitPosition ?? NO_POSITION;
  const event: RecordedEvent = {
    id: e.id,
    stream: e.streamId,
    type: e.type,
    revision: e.revision,
    position,
    data: e.data,
    created: e.created.getTime(),
  };
  if (e.metadata !== undefined) event.metadata = e.metadata;
  return event;
}

export function fromAllResolved(resolved: AllStreamResolvedEvent): RecordedEvent | undefined {
  return fromResolved(resolved as ResolvedEvent);
}

/**
 * A catch-up subscription on `$all` that survives dropped connections: events go through one
 * queue to one delivery loop (so a slow handler never reorders them), and a drop resubscribes
 * after the last event already queued, with exponential backoff.
 */
class EsdbSubscription implements Subscription {
  private closed = false;
  private current: AllStreamSubscription | undefined;
  private readonly queue: RecordedEvent[] = [];
  private lastQueued: bigint | undefined;
  private lastDelivered: bigint | undefined;
  private enqueued = 0;
  private delivered = 0;
  /** Delivering this many events completes the catch-up the server announced. */
  private caughtUpAt: number | undefined;
  /** The last non-system position when we subscribed; reaching it also means caught up. */
  private headAtStart: bigint | undefined | 'unknown' = 'unknown';
  private caughtUp = false;
  private delay: number;
  private wakeLoop: (() => void) | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private loop: Promise<void> = Promise.resolve();
  private delivering = false;

  constructor(
    private readonly client: EsdbClient,
    private readonly store: EsdbEventStore,
    private readonly after: bigint | undefined,
    private readonly handlers: SubscribeHandlers,
    private readonly retry: { initialMs: number; maxMs: number },
    private readonly forget: () => void,
  ) {
    this.lastQueued = after;
    this.lastDelivered = after;
    this.delay = retry.initialMs;
  }

  start(): void {
    this.subscribe();
    this.store.headPosition().then(
      (head) => {
        this.headAtStart = head;
        this.wake();
      },
      () => {
        // The server's own caughtUp message still ends the catch-up.
      },
    );
    this.loop = this.deliver().catch((error: unknown) => this.fail(error));
  }

  private subscribe(): void {
    if (this.closed) return;
    const from = this.lastQueued;
    const sub = this.client.subscribeToAll({
      fromPosition: from === undefined ? START : { commit: from, prepare: from },
      filter: excludeSystemEvents(),
    });
    this.current = sub;
    sub.on('data', (resolved: AllStreamResolvedEvent) => {
      if (sub !== this.current) return;
      this.delay = this.retry.initialMs;
      const event = fromAllResolved(resolved);
      if (!event || (this.lastQueued !== undefined && event.position <= this.lastQueued)) return;
      this.queue.push(event);
      this.lastQueued = event.position;
      this.enqueued++;
      if (this.queue.length >= QUEUE_HIGH) sub.pause();
      this.wake();
    });
    sub.on('caughtUp', () => {
      if (sub !== this.current || this.caughtUpAt !== undefined) return;
      this.caughtUpAt = this.enqueued + sub.readableLength;
      this.wake();
    });
    sub.on('error', (error: Error) => this.dropped(sub, error));
    sub.on('end', () => this.dropped(sub, new Error('subscription ended by the server')));
  }

  private dropped(sub: AllStreamSubscription, error: Error): void {
    if (sub !== this.current || this.closed) return;
    this.current = undefined;
    sub.removeAllListeners('data');
    sub.destroy();
    if (isCommandError(error) && FATAL.has(error.type)) {
      this.fail(error);
      return;
    }
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.retry.maxMs);
    this.retryTimer = setTimeout(() => this.subscribe(), wait);
  }

  private async deliver(): Promise<void> {
    while (!this.closed) {
      const event = this.queue.shift();
      if (event) {
        if (this.current?.isPaused() && this.queue.length <= QUEUE_LOW) this.current.resume();
        this.delivering = true;
        try {
          await this.handlers.onEvent(event);
        } finally {
          this.delivering = false;
        }
        this.delivered++;
        this.lastDelivered = event.position;
        continue;
      }
      this.maybeCaughtUp();
      await new Promise<void>((resolve) => (this.wakeLoop = resolve));
      this.wakeLoop = undefined;
    }
  }

  private maybeCaughtUp(): void {
    if (this.caughtUp || this.closed) return;
    const announced = this.caughtUpAt !== undefined && this.delivered >= this.caughtUpAt;
    const head = this.headAtStart;
    const reachedHead =
      head !== 'unknown' &&
      (head === undefined || (this.lastDelivered !== undefined && this.lastDelivered >= head) || (this.after !== undefined && this.after >= head));
    if (!announced && !reachedHead) return;
    this.caughtUp = true;
    this.handlers.onCaughtUp?.(this.lastDelivered);
  }

  private wake(): void {
    this.wakeLoop?.();
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    void this.close();
    this.handlers.onError?.(error instanceof Error ? error : new Error(String(error)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.forget();
    clearTimeout(this.retryTimer);
    const sub = this.current;
    this.current = undefined;
    this.wake();
    if (sub) await sub.unsubscribe().catch(() => undefined);
    if (!this.delivering) await this.loop;
  }
}

const FATAL = new Set<ErrorType>([ErrorType.ACCESS_DENIED, ErrorType.INVALID_ARGUMENT, ErrorType.UNSUPPORTED]);

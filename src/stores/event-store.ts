/**
 * The EventStore port. Every write in Town is an append to a stream; every read model is a
 * fold over `$all`. Two adapters implement it: `embedded` (LMDB, in process) and `esdb`
 * (EventStoreDB over gRPC). Both must pass test/stores/event-store.contract.ts.
 *
 * Positions are totally ordered over `$all`; a stream revision counts that stream's events
 * from 0. Data is plain JSON; metadata is optional JSON.
 */

/** What the caller believes about a stream before appending (optimistic concurrency). */
export type ExpectedRevision = 'any' | 'noStream' | 'streamExists' | bigint;

export interface EventData {
  /** Unique id (UUID) of the event; assigned by the caller so that a retry can be recognised. */
  id: string;
  type: string;
  data: unknown;
  metadata?: unknown;
  /**
   * `data` already encoded: exactly `JSON.stringify(data)`. A caller that encoded it anyway
   * (to measure it) passes the text so the store does not encode it again.
   */
  json?: string;
}

export interface RecordedEvent {
  id: string;
  stream: string;
  type: string;
  /** Revision of this event inside its stream, from 0. */
  revision: bigint;
  /** Position in `$all`; strictly increasing in append order. */
  position: bigint;
  data: unknown;
  metadata?: unknown;
  /** Wall-clock milliseconds when the store recorded it (informational only, never decided on). */
  created: number;
}

export interface AppendResult {
  /** The stream's revision after the append (revision of the last event written). */
  nextRevision: bigint;
  /** `$all` position of the last event written. */
  position: bigint;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Start revision (inclusive); default the start (forwards) or the end (backwards). */
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Start after this position (exclusive); default the very beginning. */
  after?: bigint;
  maxCount?: number;
}

/**
 * A catch-up subscription: it delivers every event after `after`, then signals `caughtUp`
 * once, then delivers live events as they are appended, without gaps or duplicates.
 */
export interface SubscribeHandlers {
  onEvent(event: RecordedEvent): void | Promise<void>;
  onCaughtUp?(position: bigint | undefined): void;
  /**
   * Now and then, with a subscription that names its streams: everything up to `position` has
   * been delivered or passed over. A subscriber keeps its checkpoint with it, so that a restart
   * does not look again at every frame of other streams since its last delivered event.
   */
  onPassed?(position: bigint): void;
  /** The subscription ended for good (not called for a `close()` by the subscriber). */
  onError?(error: Error): void;
}

export interface Subscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /**
   * Deliver only events of streams whose names start with one of these; the others are passed
   * over in order (the embedded store does not even decode them).
   */
  streamPrefixes?: readonly string[];
}

/** The stream test of `options`, or undefined when every stream is wanted. */
export function streamFilter(options: SubscribeOptions | undefined): ((stream: string) => boolean) | undefined {
  const prefixes = options?.streamPrefixes;
  if (prefixes === undefined) return undefined;
  return (stream) => prefixes.some((p) => stream.startsWith(p));
}

/** Handlers that hear only the streams `options` names (for adapters that filter after reading). */
export function filteredHandlers(handlers: SubscribeHandlers, options: SubscribeOptions | undefined): SubscribeHandlers {
  const wanted = streamFilter(options);
  if (!wanted) return handlers;
  return { ...handlers, onEvent: (event) => (wanted(event.stream) ? handlers.onEvent(event) : handlers.onPassed?.(event.position)) };
}

/** EventStoreDB's default `MaxAppendSize` (eventstore.conf): the bytes one append may carry. */
export const DEFAULT_MAX_APPEND_SIZE = 1_048_576;

export interface EventStore {
  /**
   * The most bytes one append may carry, measured as EventStoreDB measures it (`appendSize`,
   * event-store-checks.ts); a larger append is refused with MaxAppendSizeExceeded, nothing written.
   */
  readonly maxAppendSize: number;
  append(stream: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream; an absent stream reads as an empty list. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Revision of a stream's last event, or undefined when the stream does not exist (or was deleted). */
  streamRevision(stream: string): Promise<bigint | undefined>;
  /**
   * Deletes a stream for good (a tombstone, EventStoreDB's hard delete): from then on it reads as
   * absent and every append to it is refused with StreamDeleted, so a front that has not heard of
   * the deletion can never bring it back half-made. `expected` holds as for append (default
   * 'any'); deleting a deleted stream does nothing. `$all`: the embedded store leaves a deleted
   * stream's events out of readAll and subscriptions from the deletion on (its frames stay in the
   * journal file); EventStoreDB keeps them in `$all` until its next scavenge.
   */
  deleteStream(stream: string, expected?: ExpectedRevision): Promise<void>;
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;
  /** Position of the newest event in `$all`, or undefined for an empty store. */
  headPosition(): Promise<bigint | undefined>;
  subscribeToAll(after: bigint | undefined, handlers: SubscribeHandlers, options?: SubscribeOptions): Subscription;
  close(): Promise<void>;
}

/** The append's expected revision did not hold. Uniqueness in Town rests on this error. */
export class WrongExpectedVersion extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'noStream',
  ) {
    super(`wrong expected version on ${stream}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedVersion';
  }
}

/** An append to a deleted stream (deleteStream): the stream never comes back. */
export class StreamDeleted extends Error {
  constructor(readonly stream: string) {
    super(`stream ${stream} was deleted: nothing can be appended to it`);
    this.name = 'StreamDeleted';
  }
}

/**
 * An append larger than the store's maximum append size (EventStoreDB's MaxAppendSize,
 * `MaxAppendSizeExceededError` in its client). Both adapters refuse it before anything is written.
 */
export class MaxAppendSizeExceeded extends RangeError {
  constructor(
    readonly stream: string,
    readonly maxAppendSize: number,
    /** The append's size as measured (undefined when the server refused it and did not say). */
    readonly size: number | undefined,
  ) {
    super(`append to ${stream} ${size === undefined ? 'is' : `of ${size} bytes is`} over the maximum append size of ${maxAppendSize} bytes`);
    this.name = 'MaxAppendSizeExceeded';
  }
}

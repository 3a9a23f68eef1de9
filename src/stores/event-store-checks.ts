/**
 * Argument checks shared by both EventStore adapters, so that a bad call is refused the same way
 * (a TypeError/RangeError before anything is written) whichever store is behind the port.
 * Callers are our own command handlers: these are programming errors, not user input.
 */
import { MaxAppendSizeExceeded, type EventData, type ExpectedRevision, type ReadAllOptions, type ReadStreamOptions } from './event-store.js';

/** UTF-8 bytes a stream name may take (LMDB keys hold at most 1978 bytes with the revision). */
export const MAX_STREAM_NAME_BYTES = 1000;
export const MAX_EVENT_TYPE_LENGTH = 200;
/** Events in one append; EventStoreDB's own ceiling is on bytes (its MaxAppendSize). */
export const MAX_EVENTS_PER_APPEND = 10_000;
/** Positions and revisions are kept as doubles on disk by the embedded store. */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CheckedEvent {
  id: string;
  type: string;
  data: unknown;
  metadata: object | undefined;
  /** `data` as JSON text (what both stores keep). */
  json: string;
  metadataJson: string | undefined;
}

export function checkStreamName(stream: unknown): asserts stream is string {
  if (typeof stream !== 'string' || stream.length === 0) throw new TypeError('stream name must be a non-empty string');
  if (stream.startsWith('$')) throw new TypeError(`stream name ${JSON.stringify(stream)} is reserved (starts with $)`);
  if (stream.includes('\u0000')) throw new TypeError('stream name must not contain NUL');
  if (Buffer.byteLength(stream, 'utf8') > MAX_STREAM_NAME_BYTES) {
    throw new RangeError(`stream name longer than ${MAX_STREAM_NAME_BYTES} bytes`);
  }
}

export function checkExpected(expected: unknown): asserts expected is ExpectedRevision {
  if (expected === 'any' || expected === 'noStream' || expected === 'streamExists') return;
  if (typeof expected === 'bigint' && expected >= 0n && expected <= MAX_SAFE) return;
  throw new TypeError(`expected revision must be 'any', 'noStream', 'streamExists' or a revision >= 0n`);
}

export function checkAppend(stream: unknown, events: unknown, expected: unknown, maxAppendSize: number): CheckedEvent[] {
  checkStreamName(stream);
  checkExpected(expected);
  if (!Array.isArray(events) || events.length === 0) throw new TypeError('append needs at least one event');
  if (events.length > MAX_EVENTS_PER_APPEND) throw new RangeError(`more than ${MAX_EVENTS_PER_APPEND} events in one append`);
  const checked = events.map((event, i) => checkEvent(event as EventData, i));
  let size = 0;
  for (const e of checked) size += eventSize(e.type, e.json, e.metadataJson);
  if (size > maxAppendSize) throw new MaxAppendSizeExceeded(stream, maxAppendSize, size);
  return checked;
}

/**
 * What one event counts towards an append's size, as EventStoreDB counts it (`Event.SizeOnDisk`:
 * data bytes + metadata bytes + twice the type's length), the data and metadata being the UTF-8
 * JSON the client sends.
 */
export function eventSize(type: string, json: string, metadataJson?: string): number {
  return Buffer.byteLength(json, 'utf8') + (metadataJson === undefined ? 0 : Buffer.byteLength(metadataJson, 'utf8')) + type.length * 2;
}

/** A maximum append size from configuration (EVENTSTORE_MAX_APPEND_SIZE), checked. */
export function checkMaxAppendSize(size: unknown): number {
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1024)
    throw new RangeError(`a maximum append size must be an integer of at least 1024 bytes, not ${String(size)}`);
  return size;
}

function checkEvent(event: EventData, i: number): CheckedEvent {
  if (typeof event !== 'object' || event === null) throw new TypeError(`event ${i} is not an object`);
  const { id, type, data, metadata, json: given } = event;
  if (typeof id !== 'string' || !UUID.test(id)) throw new TypeError(`event ${i} id must be a UUID`);
  if (typeof type !== 'string' || type.length === 0 || type.length > MAX_EVENT_TYPE_LENGTH) {
    throw new TypeError(`event ${i} type must be a non-empty string of at most ${MAX_EVENT_TYPE_LENGTH} characters`);
  }
  // `$`-types are EventStoreDB system events and are filtered out of $all there.
  if (type.startsWith('$')) throw new TypeError(`event ${i} type ${JSON.stringify(type)} is reserved (starts with $)`);
  // Text the caller encoded is trusted to be `JSON.stringify(data)` (our own world service).
  const json = typeof given === 'string' ? given : toJson(data, `event ${i} data`);
  if (json === undefined) throw new TypeError(`event ${i} data must be JSON`);
  // The db-client drops falsy metadata, so only objects/arrays (or nothing) round-trip on both stores.
  let meta: object | undefined;
  let metadataJson: string | undefined;
  if (metadata !== undefined && metadata !== null) {
    if (typeof metadata !== 'object') throw new TypeError(`event ${i} metadata must be a JSON object or array`);
    meta = metadata;
    metadataJson = toJson(metadata, `event ${i} metadata`);
  }
  return { id: id.toLowerCase(), type, data, metadata: meta, json, metadataJson };
}

function toJson(value: unknown, what: string): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    // BigInt values and cycles land here; callers must store JSON.
    throw new TypeError(`${what} is not JSON: ${(error as Error).message}`);
  }
}

export function checkReadStream(
  stream: unknown,
  options: ReadStreamOptions,
): {
  backwards: boolean;
  from: number | undefined;
  limit: number;
} {
  checkStreamName(stream);
  const { direction = 'forwards', fromRevision, maxCount } = options ?? {};
  if (direction !== 'forwards' && direction !== 'backwards') throw new TypeError(`direction must be 'forwards' or 'backwards'`);
  if (fromRevision !== undefined && (typeof fromRevision !== 'bigint' || fromRevision < 0n)) {
    throw new TypeError('fromRevision must be a revision >= 0n');
  }
  const from = fromRevision === undefined ? undefined : fromRevision > MAX_SAFE ? Number.MAX_SAFE_INTEGER : Number(fromRevision);
  return { backwards: direction === 'backwards', from, limit: checkMaxCount(maxCount) };
}

export function checkReadAll(options: ReadAllOptions): { after: number; maxCount: number } {
  const { after, maxCount } = options ?? {};
  if (after !== undefined && (typeof after !== 'bigint' || after < 0n || after > MAX_SAFE)) {
    throw new TypeError('after must be a position >= 0n');
  }
  return { after: after === undefined ? 0 : Number(after), maxCount: checkMaxCount(maxCount) };
}

function checkMaxCount(maxCount: unknown): number {
  if (maxCount === undefined) return Number.POSITIVE_INFINITY;
  if (typeof maxCount !== 'number' || !Number.isInteger(maxCount) || maxCount < 0) {
    throw new TypeError('maxCount must be an integer >= 0');
  }
  return maxCount;
}

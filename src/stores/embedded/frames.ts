/**
 * The embedded journal's frame format: how one event is laid out on disk, and read back.
 *
 *   u32 LE  body length
 *   u32 LE  CRC-32 of the body
 *   body    UTF-8 JSON {p: position, r: revision, n: events after this one in the same append,
 *           c: created, s: stream, i: id, t: type, d: data, m?: metadata}
 *
 * The journal file is an 8-byte magic followed by frames in position order (embedded/journal.ts).
 */
import zlib from 'node:zlib';
import type { CheckedEvent } from '../event-store-checks.js';

export const JOURNAL_MAGIC = Buffer.from('TOWNJRN\u0001', 'latin1');
export const FRAME_HEADER_BYTES = 8;
/** A body longer than this is taken for garbage (a torn length), not read into memory. */
export const MAX_BODY_BYTES = 0x3fff_ffff;

/** What one frame's body holds. */
export interface FramePayload {
  p: number;
  r: number;
  n: number;
  c: number;
  s: string;
  i: string;
  t: string;
  d: unknown;
  m?: unknown;
}

/** Where an event is: what the index keeps. */
export interface FrameLocation {
  position: number;
  stream: string;
  revision: number;
  offset: number;
}

/** The bodies of one append's frames: positions and revisions from `position` and `revision` on. */
export function frameBodies(position: number, revision: number, stream: string, events: CheckedEvent[], created: number): string[] {
  const streamJson = JSON.stringify(stream);
  const bodies: string[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    // Built by hand: data and metadata are already JSON text; ids are checked UUIDs.
    bodies[i] =
      `{"p":${position + i},"r":${revision + i},"n":${events.length - 1 - i},"c":${created},"s":${streamJson},` +
      `"i":"${e.id}","t":${JSON.stringify(e.type)},"d":${e.json}` +
      (e.metadataJson === undefined ? '}' : `,"m":${e.metadataJson}}`);
  }
  return bodies;
}

/**
 * Writes `body` as a frame at `at` in `buf`, which must have room for the worst case
 * (FRAME_HEADER_BYTES + 3 bytes per UTF-16 unit); returns the frame's length.
 */
export function writeFrame(buf: Buffer, at: number, body: string): number {
  const length = buf.write(body, at + FRAME_HEADER_BYTES, 'utf8');
  buf.writeUInt32LE(length, at);
  buf.writeUInt32LE(zlib.crc32(buf.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + length)), at + 4);
  return FRAME_HEADER_BYTES + length;
}

export const worstCase = (body: string) => FRAME_HEADER_BYTES + 3 * body.length;

/** One append's frames as one buffer (for tools and tests; the journal encodes in place). */
export function encodeAppend(position: number, revision: number, stream: string, events: CheckedEvent[], created: number): { bytes: Buffer; starts: number[] } {
  const bodies = frameBodies(position, revision, stream, events, created);
  const bytes = Buffer.allocUnsafe(bodies.reduce((n, b) => n + worstCase(b), 0));
  const starts: number[] = [];
  let at = 0;
  for (const body of bodies) {
    starts.push(at);
    at += writeFrame(bytes, at, body);
  }
  return { bytes: bytes.subarray(0, at), starts };
}

/** What recovery needs of a frame. */
export type FrameHead = Pick<FramePayload, 'p' | 'r' | 'n' | 's'>;

/**
 * The body of a frame, or why it is not one. `buf[at..end)` holds the bytes available; `parse`
 * turns a checksummed body into what the caller needs (undefined: not an event).
 */
export function decodeFrame<P>(
  buf: Buffer,
  at: number,
  end: number,
  parse: (body: Buffer) => P | undefined,
): { payload: P; next: number } | { bad: string; need?: number } {
  if (end - at < FRAME_HEADER_BYTES) return { bad: 'short header', need: FRAME_HEADER_BYTES };
  const length = buf.readUInt32LE(at);
  if (length === 0 || length > MAX_BODY_BYTES) return { bad: `impossible length ${length}` };
  const bodyStart = at + FRAME_HEADER_BYTES;
  if (end - bodyStart < length) return { bad: 'short body', need: FRAME_HEADER_BYTES + length };
  const body = buf.subarray(bodyStart, bodyStart + length);
  if (zlib.crc32(body) !== buf.readUInt32LE(at + 4)) return { bad: 'checksum mismatch' };
  const payload = parse(body);
  return payload === undefined ? { bad: 'body is not an event' } : { payload, next: bodyStart + length };
}

export function parsePayload(body: Buffer): FramePayload | undefined {
  let payload: FramePayload;
  try {
    payload = JSON.parse(body.toString('utf8')) as FramePayload;
  } catch {
    return undefined;
  }
  const ok =
    typeof payload === 'object' &&
    payload !== null &&
    Number.isSafeInteger(payload.p) &&
    Number.isSafeInteger(payload.r) &&
    Number.isSafeInteger(payload.n) &&
    typeof payload.s === 'string' &&
    typeof payload.i === 'string' &&
    typeof payload.t === 'string';
  return ok ? payload : undefined;
}

const HEAD_P = Buffer.from('{"p":');
const HEAD_R = Buffer.from(',"r":');
const HEAD_N = Buffer.from(',"n":');
const HEAD_C = Buffer.from(',"c":');
const HEAD_S = Buffer.from(',"s":"');

/**
 * Position, revision, `n` and stream read off the fixed start of a body that frameBodies wrote,
 * without parsing the event's data (re-indexing a whole journal is mostly this); anything
 * unexpected falls back to a full parse.
 */
export function parseHead(body: Buffer): FrameHead | undefined {
  let i = 0;
  const literal = (bytes: Buffer) => {
    if (body.length - i < bytes.length || body.compare(bytes, 0, bytes.length, i, i + bytes.length) !== 0) return false;
    i += bytes.length;
    return true;
  };
  const integer = () => {
    const start = i;
    let value = 0;
    while (i < body.length && body[i]! >= 0x30 && body[i]! <= 0x39 && i - start < 15) value = value * 10 + (body[i++]! - 0x30);
    return i > start ? value : -1;
  };
  if (!literal(HEAD_P)) return parsePayload(body);
  const p = integer();
  if (p < 0 || !literal(HEAD_R)) return parsePayload(body);
  const r = integer();
  if (r < 0 || !literal(HEAD_N)) return parsePayload(body);
  const n = integer();
  if (n < 0 || !literal(HEAD_C) || integer() < 0 || !literal(HEAD_S)) return parsePayload(body);
  const start = i;
  let escaped = false;
  while (i < body.length && body[i] !== 0x22) {
    if (body[i] === 0x5c) {
      escaped = true;
      i++;
    }
    i++;
  }
  if (i >= body.length || escaped) return parsePayload(body);
  return { p, r, n, s: body.toString('utf8', start, i) };
}

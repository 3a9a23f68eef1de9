/**
 * The wire between a front beside the town and the journal's owner (append-server.ts,
 * append-client.ts): newline-delimited JSON over a unix socket. Requests are
 * `{id, op: 'append', stream, expected, events}` and `{id, op: 'deleteStream', stream, expected}`;
 * answers `{id, ok: {...}}` or `{id, error: {name, message, ...fields}}`. Bigints travel as
 * decimal strings, an expected revision as 'any' | 'noStream' | 'streamExists' | '<n>'. Errors
 * are rebuilt as the classes the embedded store throws, so a caller cannot tell the difference.
 */
import { storageFault } from '../../contract/storage-fault.js';
import path from 'node:path';
import { MaxAppendSizeExceeded, StreamDeleted, WrongExpectedVersion, type AppendResult, type ExpectedRevision } from '../event-store.js';
import type { CheckedEvent } from '../event-store-checks.js';

/** The owner's socket in a data directory. */
export const appendSocketPath = (dataDir: string): string => path.join(dataDir, 'events', 'append.sock');

/** Bytes a unix socket's path may take on Linux (`sun_path` less its NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/** Refuses a socket path the system would cut short (node binds the cut path without a word). */
export function checkSocketPath(socketPath: string): void {
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new RangeError(`the socket path ${socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes: use a shorter data directory`);
  }
}

export interface WireError {
  name: string;
  message: string;
  stream?: string;
  expected?: string;
  actual?: string;
  maxAppendSize?: number;
  size?: number;
  /** A storage fault's code (ENOSPC, EIO, …): the front answers it as the owner would, 503. */
  code?: string;
}

export interface WireAnswer {
  id: number | string | null;
  ok?: { nextRevision?: string; position?: string };
  error?: WireError;
}

export function encodeExpected(expected: ExpectedRevision): string {
  return typeof expected === 'bigint' ? expected.toString() : expected;
}

/** An expected revision off the wire (a TypeError for anything else, as the store's check gives). */
export function decodeExpected(expected: unknown): ExpectedRevision {
  if (expected === 'any' || expected === 'noStream' || expected === 'streamExists') return expected;
  if (typeof expected === 'string' && /^[0-9]{1,16}$/.test(expected)) return BigInt(expected);
  throw new TypeError(`expected revision must be 'any', 'noStream', 'streamExists' or a revision >= 0n`);
}

/** The id at the start of a request line that is not JSON (as appendLine writes it), so its sender hears why. */
export function idOfBadLine(line: string): number | null {
  const found = /^\{"id":([0-9]{1,15}),/.exec(line);
  return found ? Number(found[1]) : null;
}

/**
 * An append request, built by hand: each event's data and metadata are already JSON text
 * (checkAppend), so they are not encoded again.
 */
export function appendLine(id: number, stream: string, events: CheckedEvent[], expected: ExpectedRevision): string {
  let line = `{"id":${id},"op":"append","stream":${JSON.stringify(stream)},"expected":${JSON.stringify(encodeExpected(expected))},"events":[`;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (i > 0) line += ',';
    // JSON.stringify never writes a raw newline; text a caller laid out with them is laid out again.
    const data = e.json.includes('\n') ? JSON.stringify(JSON.parse(e.json)) : e.json;
    line += `{"id":${JSON.stringify(e.id)},"type":${JSON.stringify(e.type)},"data":${data}`;
    line += e.metadataJson === undefined ? '}' : `,"metadata":${e.metadataJson}}`;
  }
  return `${line}]}\n`;
}

export function deleteLine(id: number, stream: string, expected: ExpectedRevision): string {
  return `${JSON.stringify({ id, op: 'deleteStream', stream, expected: encodeExpected(expected) })}\n`;
}

export function encodeResult(result: AppendResult): { nextRevision: string; position: string } {
  return { nextRevision: result.nextRevision.toString(), position: result.position.toString() };
}

export function decodeResult(ok: WireAnswer['ok']): AppendResult {
  return { nextRevision: BigInt(ok?.nextRevision ?? '0'), position: BigInt(ok?.position ?? '0') };
}

export function encodeError(error: unknown): WireError {
  if (error instanceof WrongExpectedVersion) {
    return { name: error.name, message: error.message, stream: error.stream, expected: encodeExpected(error.expected), actual: String(error.actual) };
  }
  if (error instanceof StreamDeleted) return { name: error.name, message: error.message, stream: error.stream };
  if (error instanceof MaxAppendSizeExceeded) {
    return {
      name: error.name,
      message: error.message,
      stream: error.stream,
      maxAppendSize: error.maxAppendSize,
      ...(error.size === undefined ? {} : { size: error.size }),
    };
  }
  if (error instanceof Error) {
    const fault = storageFault(error);
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : fault ? { code: fault } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

/** The error the owner's store threw, as the same class. */
export function decodeError(wire: WireError): Error {
  const stream = wire.stream ?? '';
  switch (wire.name) {
    case 'WrongExpectedVersion':
      return new WrongExpectedVersion(
        stream,
        decodeExpected(wire.expected),
        wire.actual === 'noStream' || wire.actual === undefined ? 'noStream' : BigInt(wire.actual),
      );
    case 'StreamDeleted':
      return new StreamDeleted(stream);
    case 'MaxAppendSizeExceeded':
      return new MaxAppendSizeExceeded(stream, wire.maxAppendSize ?? 0, wire.size);
    case 'TypeError':
      return new TypeError(wire.message);
    case 'RangeError':
      return new RangeError(wire.message);
    default: {
      const error = new Error(wire.message);
      error.name = wire.name;
      if (wire.code !== undefined) Object.assign(error, { code: wire.code });
      return error;
    }
  }
}

/**
 * The town's operational log: JSON lines through pino, one line per request
 * at `info` (request id, route name, status, duration, principal hash) and the failures at
 * `error`. Never a credential, cookie, invitation code or body: the front logs named fields
 * only, never a request's headers or body, and the redaction below is a second guard should a
 * field of that name ever be passed.
 *
 * The destination is stdout through sonic-boom, asynchronous: a line is copied into a buffer
 * and written when the event loop is free, so logging never waits on the terminal or the pipe on
 * the turn path. In a terminal (stdout a TTY) the lines are pretty-printed by pino-pretty, on a
 * thread of pino's, when that dev tool is installed; otherwise `npm start | npx pino-pretty`.
 */
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger as Pino } from 'pino';
import { LineBlocks } from './log-blocks.js';

export type TownLog = Pino;

/** LOG_LEVEL's values (src/config.ts), pino's levels. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** Where a failure the caller is not shown is written (the front's failure step, the MCP room). */
export interface Logger {
  error(message: string, fields: Record<string, unknown>): void;
}

/**
 * Field names that must never reach a line, whatever a caller passes (a second guard). Top-level
 * names only: a wildcard path (`*.code`) makes pino walk every field of every line, which costs
 * the request line more than the rest of it (measured: 9.4 µs a line against 3.7 µs).
 */
const secretFields = ['credential', 'code', 'cookie', 'authorization', 'token', 'body', 'secret', 'key', 'headers', 'url'];
const redact = { paths: secretFields, censor: '[redacted]' };

function prettyInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

export interface LogOptions {
  level?: LogLevel;
  /** Where lines go (tests capture them); default stdout, asynchronous, pretty in a terminal. */
  destination?: DestinationStream;
  /** Fields on every line (e.g. which worker). */
  base?: Record<string, unknown>;
  /**
   * Write lines in blocks (a server's request log: one write a block, not one a request); a worker
   * logs little and at moments an operator watches for, so its lines go out at once.
   */
  inBlocks?: boolean;
}

export function townLog(options: LogOptions = {}): TownLog {
  const settings = { level: options.level ?? 'info', redact, base: { pid: process.pid, ...options.base } };
  if (options.destination) return pino(settings, options.destination);
  if (process.stdout.isTTY && prettyInstalled()) {
    return pino({ ...settings, transport: { target: 'pino-pretty', options: { destination: 1, translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  if (!options.inBlocks) return pino(settings, pino.destination({ dest: 1, sync: false }));
  // Lines are written in blocks of 12 KiB (one write a block, not one a request: the write was
  // half the log's cost on a read), and whatever is waiting every quarter second, so a quiet town's
  // lines still appear at once; a process killed outright loses at most that quarter second.
  return pino(settings, blockDestination(1));
}

/**
 * A request log's destination: lines gathered into blocks of 12 KiB (log-blocks.ts), each written
 * asynchronously by sonic-boom to `dest` (a file descriptor or path).
 */
export function blockDestination(dest: number | string): LineBlocks {
  return new LineBlocks(pino.destination({ dest, sync: false }));
}

/** The front's Logger (failures) on a pino log. */
export function frontLogger(log: TownLog): Logger {
  return { error: (message, fields) => log.error(fields, message) };
}

/**
 * A principal as the log names it: a keyed hash (HMAC-SHA-256 under the town's secret, the
 * first 16 hex digits), the same for one principal on every front sharing the secret, so one
 * guest's requests can be followed without the log naming anyone. Kept per principal, bounded.
 */
export function principalHasher(secret: Uint8Array, remembered = 10_000): (principal: string) => string {
  const known = new Map<string, string>();
  return (principal) => {
    let h = known.get(principal);
    if (h === undefined) {
      if (known.size >= remembered) known.clear();
      h = createHmac('sha256', secret).update(principal).digest('hex').slice(0, 16);
      known.set(principal, h);
    }
    return h;
  };
}

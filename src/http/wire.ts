/**
 * Limits below koa (spec 7.1, 8): request line, header lines and count, HTTP version, malformed
 * heads, and the time for a whole request to arrive. Node's parser cannot tell these apart (one
 * `maxHeaderSize` covers line and headers together; it truncates header counts silently; it
 * accepts `GET  /x` and HTTP/0.9 lines; it times requests from its own start, not from
 * connecting), so a light scanner reads every connection's bytes, keeps track of where each
 * request's head and body end, and answers a violation itself: the JSON envelope, then the
 * connection closes.
 *
 * The scanner only measures and frames; Node's parser still parses, on its native path: the
 * scanner reads each chunk right after Node's parser did (the parser's per-chunk hook), and the
 * requests Node parsed from that chunk are handed to the app only then, so none is served
 * before its bytes were judged. (Listening for the socket's 'data' instead would move Node's
 * parser off its native path onto a far slower JS one; that is kept only for sockets Node does
 * not parse natively, such as TLS.) When Node's parser refuses something the scanner let
 * through (a bad byte in a header value, say), the guard answers `badRequest` — once the scanner
 * has seen the whole head, so that a more precise class the head earns (414, 431, 501, 505) wins.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorClass } from '../contract/errors.js';
import { limits } from '../contract/limits.js';
import { rawEnvelope } from '../contract/envelope.js';
import { RequestScanner, type Verdict } from './request-scanner.js';

export interface WireOptions {
  /** Seconds for a whole request to arrive (spec 8 `requestSeconds`). */
  requestSeconds: number;
  /** After answering a violation, how long to keep draining the client's bytes before closing. */
  lingerMs: number;
}

/** Hands a request the guard let through to the app. */
export type Dispatch = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** What the guard uses of Node's HTTP parser (`socket.parser`, not in Node's typings). */
interface NodeParser {
  /** True while the parser reads the socket natively (no 'data' listener in JS). */
  _consumed?: boolean;
  /** The chunk being parsed; valid inside the parser's callbacks and its per-chunk hook. */
  getCurrentBuffer(): Buffer;
  [hook: number]: unknown;
}
type ExecuteHook = (ret: unknown) => unknown;

/** Node's parser on `socket` with its per-chunk hook, when Node parses that socket natively. */
function nativeParser(socket: Socket): { parser: NodeParser; hook: number } | undefined {
  const parser = (socket as Socket & { parser?: NodeParser }).parser;
  const hook = (parser?.constructor as { kOnExecute?: unknown } | undefined)?.kOnExecute;
  if (parser?._consumed !== true || typeof hook !== 'number') return undefined;
  if (typeof parser[hook] !== 'function' || typeof parser.getCurrentBuffer !== 'function') return undefined;
  return { parser, hook };
}

const parserClass = (code: string | undefined): ErrorClass => {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'headersTooLarge';
    case 'HPE_INVALID_VERSION':
      return 'httpVersion';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'requestTimeout';
    default:
      return 'badRequest';
  }
};

/**
 * The guard of one connection: feeds the scanner, runs the arrival clock, and answers on the
 * wire. Requests before a refused one are still served (pipelining); the refusal is written once
 * their replies are done, then the connection closes.
 */
export class ConnectionGuard {
  readonly scanner = new RequestScanner();
  private timer?: NodeJS.Timeout;
  private emitted = 0;
  private readonly open = new Set<http.ServerResponse>();
  private failure?: { at: number; verdict: Verdict; self?: string };
  private written = false;
  private deferred?: Error & { code?: string };
  /** Requests Node parsed from the chunk being parsed (request, reply, …), held until the
   * scanner has read it. */
  private readonly held: (http.IncomingMessage | http.ServerResponse)[] = [];
  private readonly native?: NodeParser;
  closing = false;
  /** The data listener that feeds this guard (kept so the guard can tell it from Node's). */
  readonly listener = (chunk: Buffer) => this.onData(chunk);

  constructor(
    readonly socket: Socket,
    private readonly options: WireOptions,
    private readonly dispatch: Dispatch,
  ) {
    const native = nativeParser(socket);
    if (native) {
      const { parser, hook } = native;
      const next = parser[hook] as ExecuteHook;
      // Node calls this after parsing each chunk, with the chunk still readable.
      parser[hook] = (ret: unknown) => {
        this.onData(parser.getCurrentBuffer());
        this.release();
        return next(ret);
      };
      this.native = parser;
    } else {
      socket.prependListener('data', this.listener);
    }
    // The first request's clock runs from connecting (spec 7.1 requestTimeout).
    this.startClock();
  }

  /** Bytes from the client, as (or just after) Node's parser sees them. */
  onData(chunk: Buffer) {
    if (this.failure) return;
    const before = this.scanner.completed;
    const v = this.scanner.feed(chunk);
    if (v) return this.fail(v, this.scanner.completed + 1, true);
    if (this.deferred && !this.scanner.inHead) {
      return this.fail({ cls: parserClass(this.deferred.code), message: parserMessage(this.deferred) }, this.emitted + 1, false);
    }
    // Each request has its own clock, from its first byte (the first, from connecting).
    if (this.scanner.completed !== before) this.stopClock();
    if (this.scanner.started || this.scanner.state !== 'line') this.startClock();
  }

  /** A request Node parsed: served now if the scanner has read its bytes, else after it has. */
  request(req: http.IncomingMessage, res: http.ServerResponse) {
    if (this.native?._consumed) this.held.push(req, res);
    else if (this.admit(res)) this.dispatch(req, res);
  }

  private release() {
    const held = this.held;
    if (held.length === 0) return;
    // Dispatching parses nothing, so no request joins the list while it is read.
    for (let i = 0; i < held.length; i += 2) {
      const res = held[i + 1] as http.ServerResponse;
      if (this.admit(res)) this.dispatch(held[i] as http.IncomingMessage, res);
    }
    held.length = 0;
  }

  /** Node's parser refused the bytes (the server's `clientError`). */
  onParserError(err: Error & { code?: string }) {
    if (this.failure) return;
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !this.socket.writable) {
      this.socket.destroy();
      return;
    }
    if (this.scanner.inHead && err.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
      this.deferred = err;
      return;
    }
    this.fail({ cls: parserClass(err.code), message: parserMessage(err) }, this.emitted + 1, false);
  }

  /** A request Node parsed: false when it comes at or after a refused one (never served). */
  admit(res: http.ServerResponse): boolean {
    const index = ++this.emitted;
    if (this.failure && index >= this.failure.at) return false;
    if (this.closing) res.shouldKeepAlive = false;
    this.open.add(res);
    const done = () => {
      if (!this.open.delete(res)) return;
      this.flush();
      if (this.closing && this.open.size === 0) this.socket.end();
    };
    // A reply emits 'close' once it has finished, or when its connection closed first.
    res.on('close', done);
    return true;
  }

  /** Node took the connection as a tunnel (CONNECT): answer the scanner's refusal, or 501. */
  refuseTunnel() {
    if (!this.failure) this.fail({ cls: 'notImplemented', message: 'no route takes the method CONNECT' }, this.emitted + 1, false);
    else this.flush();
  }

  /** The server is closing: replies still to come say so, and the connection ends after them. */
  closeAfterReplies() {
    this.closing = true;
    for (const res of this.open) if (!res.headersSent) res.shouldKeepAlive = false;
    if (this.open.size === 0 && this.held.length === 0) this.socket.destroy();
  }

  get busy(): boolean {
    return this.open.size > 0;
  }

  dispose() {
    this.stopClock();
  }

  private startClock() {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.fail(
        { cls: 'requestTimeout', message: `the request did not all arrive within ${this.options.requestSeconds} s` },
        this.scanner.completed + 1,
        false,
      );
    }, this.options.requestSeconds * 1000);
  }

  private stopClock() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Answer `v` for request number `at`. `wait`: the requests before it are whole and get their
   * replies first. Otherwise (a timeout, a parser fault) nothing more will arrive in order, so
   * replies not yet begun are abandoned; if one is already being sent the connection just ends.
   */
  private fail(v: Verdict, at: number, wait: boolean) {
    this.failure = { at, verdict: v, self: this.scanner.target };
    this.stopClock();
    // Node's parser must parse nothing more: read the client's remaining bytes here and drop
    // them (so that they do not turn the close into a reset that could swallow the answer).
    // Listening for 'data' takes the socket off Node's native parser; Node's own listener goes.
    queueMicrotask(() => {
      if (this.socket.destroyed) return;
      if (!this.socket.listeners('data').includes(this.listener)) this.socket.on('data', this.listener);
      for (const l of this.socket.listeners('data')) if (l !== this.listener) this.socket.removeListener('data', l as (...a: unknown[]) => void);
      this.socket.resume();
    });
    if (wait) {
      setImmediate(() => this.flush());
      return;
    }
    for (const res of this.open) {
      if (res.headersSent) {
        this.socket.destroy();
        return;
      }
    }
    this.open.clear();
    this.flush();
  }

  private flush() {
    if (!this.failure || this.written || this.open.size > 0 || this.socket.destroyed) return;
    this.written = true;
    const { verdict, self } = this.failure;
    this.socket.end(rawEnvelope(verdict.cls, verdict.message, self, new Date()));
    setTimeout(() => this.socket.destroy(), this.options.lingerMs).unref();
  }
}

function parserMessage(err: Error & { code?: string }): string {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return `the request head is over the limits (${limits.requestLineBytes}-byte line, ${limits.headers} headers of ${limits.headerLineBytes} bytes)`;
    case 'HPE_INVALID_VERSION':
      return 'the HTTP version is not served; use HTTP/1.1 or HTTP/1.0';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'the request did not all arrive in time';
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return 'Content-Length is not a number, or is given with Transfer-Encoding';
    default:
      return 'the request is malformed';
  }
}

/**
 * Puts a guard on every connection of `server`, and hands the requests it lets through to
 * `dispatch`. Returns the guards (for a graceful close).
 */
export function guardServer(
  server: http.Server,
  options: WireOptions,
  dispatch: Dispatch,
): { guards: Set<ConnectionGuard>; guardOf(socket: Socket): ConnectionGuard | undefined } {
  const guards = new Set<ConnectionGuard>();
  const bySocket = new WeakMap<Socket, ConnectionGuard>();
  server.on('connection', (socket: Socket) => {
    // Node's own connection listener ran first: the socket has its parser.
    const guard = new ConnectionGuard(socket, options, dispatch);
    bySocket.set(socket, guard);
    guards.add(guard);
    socket.on('close', () => {
      guard.dispose();
      guards.delete(guard);
    });
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const guard = bySocket.get(req.socket);
    if (guard) guard.request(req, res);
    else dispatch(req, res);
  });
  // A CONNECT is refused by the scanner (501); Node hands such a socket over as a tunnel and
  // would drop it unanswered, so take it and let the guard write its answer.
  server.on('connect', (_req: http.IncomingMessage, socket: Socket) => {
    const guard = bySocket.get(socket);
    if (guard) guard.refuseTunnel();
    else socket.destroy();
  });
  server.on('clientError', (err: Error, socket: Socket) => {
    const guard = bySocket.get(socket);
    if (guard) guard.onParserError(err);
    else socket.destroy();
  });
  return { guards, guardOf: (socket) => bySocket.get(socket) };
}

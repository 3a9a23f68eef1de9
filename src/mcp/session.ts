/**
 * One MCP session: the SDK's Streamable HTTP transport (its web-standard form) and the session's
 * server, owned by one credential. The front has already authenticated, rate-limited and read
 * the request (its body limits and checks); here the koa request becomes the transport's
 * `Request` and the transport's `Response` is written back to the socket:
 *
 *   POST    one JSON-RPC message; the answer is JSON (the transport's JSON mode), or 202 for a
 *           notification. The request counts against the front's in-flight limit until answered.
 *   GET     the session's stream of messages from the town (resource updates). It is written as
 *           it comes, not counted in flight (as /live), and held `holdMs`; the client then
 *           reconnects and hears what it missed (the last `replay` messages): replayed by the
 *           transport after its Last-Event-ID, or sent again here when it had none.
 *   DELETE  ends the session.
 *
 * A GET stream's reader that stops reading is dropped once more than `slowBytes` (256 KB) wait
 * unsent in its response: the stream is closed and its socket cut, the session kept (its client
 * reconnects and resumes from its Last-Event-ID), the drop counted
 * (docs/decisions/slow-consumers.md). The stream is read as fast as the transport gives it, so
 * nothing waits in the transport's own queue instead.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type EventId,
  type EventStore,
  type StreamId,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../contract/caller.js';
import type { TownContext } from '../http/handler.js';
import type { Subscriber } from './card-watch.js';
import { cardUri } from './prompt.js';
import type { Calling } from './route-call.js';
import { answer, headersOf, sessionGone, write } from './replies.js';
import { type TownMcp, townServer } from './server.js';

export interface SessionOptions {
  /** The town's origin: requests are named by it for the transport. */
  origin: string;
  /** How long a GET stream is held before it is ended (the client reconnects). */
  holdMs: number;
  /** Messages of the GET stream kept for a client that reconnects. */
  replay: number;
  /** Bytes that may wait unsent on the GET stream before its reader is dropped. */
  slowBytes: number;
  /** The GET stream's reader was dropped for reading too slowly. */
  onSlowDrop?: () => void;
  /** What the session's id starts with (the front's, when the box has several). */
  idPrefix?: string;
  /** The session's id is set: the transport initialised it. */
  initialized(session: McpSession): void;
  /** The session is over (ended, revoked, idle, or the town closing). */
  closed(session: McpSession): void;
}

/** The headers the transport reads; nothing else of the request reaches it. */
const passed = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'] as const;

/**
 * The last messages of a session's GET stream, for a client that reconnects with Last-Event-ID.
 * Only the GET stream stores messages (POST answers are JSON, never resumed).
 */
class RecentMessages implements EventStore {
  private readonly kept: { id: number; message: JSONRPCMessage }[] = [];
  private count = 0;
  private stream: StreamId | undefined;
  constructor(private readonly max: number) {}

  async storeEvent(stream: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.stream ??= stream;
    this.kept.push({ id: ++this.count, message });
    if (this.kept.length > this.max) this.kept.shift();
    return String(this.count);
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (id: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const after = Number(lastEventId);
    for (const e of this.kept) if (e.id > after) await send(String(e.id), e.message);
    // A client holds an id only if a message was stored, and with it the stream's name.
    return this.stream ?? '_GET_stream';
  }
}

export class McpSession implements Subscriber {
  readonly principal: string;
  readonly credentialHash: string;
  readonly server: Server;
  private readonly transport: WebStandardStreamableHTTPServerTransport;
  /** Date.now() of the last request (idle sessions are ended). */
  lastUsed = Date.now();
  /** The GET stream open now (a reconnecting client's new one may open as the old one ends). */
  private openStream: object | undefined;
  /**
   * Messages for the GET stream sent while none was open. The transport keeps them only for a
   * client that resumes with Last-Event-ID; a client whose stream had carried nothing yet comes
   * back without one, so they are sent again on its new stream.
   */
  private readonly unsent: JSONRPCMessage[] = [];
  private readonly sendNow: (message: JSONRPCMessage) => Promise<void>;
  private inFlight = 0;
  private ending = false;
  /**
   * The answers the server sent, by request id: a POST's reply is written from the message as
   * sent (the very text the transport's Response holds), not read back out of that Response's
   * web stream, which costs a call more than serialising the message again (docs/performance.md).
   */
  private readonly answers = new Map<RequestId, JSONRPCMessage>();
  /** Ids of the requests being answered through handle(). */
  private readonly asked = new Set<RequestId>();
  private closing: Promise<void> | undefined;
  private over!: () => void;
  /** Resolves when the session is over: a POST still waiting for its answer is then let go. */
  private readonly ended = new Promise<undefined>((resolve) => {
    this.over = () => resolve(undefined);
  });

  private constructor(
    caller: Caller,
    town: TownMcp,
    private readonly o: SessionOptions,
  ) {
    this.principal = caller.principal;
    this.credentialHash = caller.credentialHash;
    this.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: o.idPrefix ? () => `${o.idPrefix}${randomUUID()}` : randomUUID,
      enableJsonResponse: true,
      eventStore: new RecentMessages(o.replay),
      onsessioninitialized: () => o.initialized(this),
    });
    const send = this.transport.send.bind(this.transport);
    this.sendNow = (message) => send(message);
    this.transport.send = (message, options) => {
      if ('id' in message) {
        if (message.id !== undefined && ('result' in message || 'error' in message) && this.asked.has(message.id)) this.answers.set(message.id, message);
      } else if (options?.relatedRequestId === undefined && !this.streaming) {
        this.unsent.push(message);
        if (this.unsent.length > o.replay) this.unsent.shift();
      }
      return send(message, options);
    };
    this.server = townServer(town, this);
    this.server.onclose = () => {
      this.over();
      o.closed(this);
    };
  }

  static async open(caller: Caller, town: TownMcp, o: SessionOptions): Promise<McpSession> {
    const s = new McpSession(caller, town, o);
    await s.server.connect(s.transport);
    return s;
  }

  get id(): string | undefined {
    return this.transport.sessionId;
  }

  /** A GET stream is open. */
  get streaming(): boolean {
    return this.openStream !== undefined;
  }

  /** Subscriber: a card this session subscribed to moved. */
  moved(object: string): void {
    this.server.sendResourceUpdated({ uri: cardUri(object) }).catch(() => {
      // The session ended meanwhile: nobody is left to tell.
    });
  }

  /** Answers one /mcp request of this session (or the initialising request that makes it). */
  async handle(ctx: TownContext): Promise<void> {
    this.lastUsed = Date.now();
    const state = ctx.state;
    const caller = state.caller as Caller;
    const calling: Calling = { caller, requestId: state.requestId, address: state.address, ...(state.rateLimit ? { rateLimit: state.rateLimit } : {}) };
    const headers = new Headers();
    for (const name of passed) {
      const v = ctx.req.headers[name];
      if (typeof v === 'string') headers.set(name, v);
    }
    const request = new Request(`${this.o.origin}${ctx.originalUrl}`, { method: ctx.method, headers });
    const body = ctx.method === 'POST' ? (state.body as { id?: unknown; method?: unknown } | undefined) : undefined;
    const id = body !== undefined && typeof body.method === 'string' && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : undefined;
    if (id !== undefined) this.asked.add(id);
    const answered = this.transport.handleRequest(request, {
      parsedBody: body,
      authInfo: { token: '', clientId: caller.principal, scopes: [], extra: { calling } },
    });
    this.inFlight++;
    let response: Response | undefined;
    let sent: JSONRPCMessage | undefined;
    try {
      // A session ended while a POST waits (revoked, closing) never answers it: let it go.
      response = ctx.method === 'POST' ? await Promise.race([answered, this.ended]) : await answered;
    } finally {
      this.inFlight--;
      if (id !== undefined) {
        this.asked.delete(id);
        sent = this.answers.get(id);
        this.answers.delete(id);
      }
      if (this.ending && this.inFlight === 0) void this.close();
    }
    if (!response) response = sessionGone();
    if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
      this.stream(ctx, response);
      // A client resuming hears what it missed from the transport's replay; any other, here.
      const missed = this.unsent.splice(0);
      if (ctx.req.headers['last-event-id'] === undefined) for (const m of missed) this.sendNow(m).catch(() => {});
    } else if (sent !== undefined && response.status === 200) write(ctx, response, JSON.stringify(sent));
    else await answer(ctx, response);
  }

  /** Writes the GET stream as it comes, holds it `holdMs`, and lets the reader go when either side ends. */
  private stream(ctx: TownContext, response: Response): void {
    const res = ctx.res;
    ctx.respond = false;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    res.writeHead(response.status, headersOf(response.headers));
    res.flushHeaders();
    ctx.req.socket.setNoDelay(true);
    const mine = {};
    this.openStream = mine;
    // Marked closed before it closes: a message sent from then on waits for the next stream.
    const ended = () => {
      if (this.openStream === mine) this.openStream = undefined;
    };
    const hold = setTimeout(() => {
      ended();
      this.transport.closeStandaloneSSEStream();
    }, this.o.holdMs);
    res.on('close', () => {
      ended();
      clearTimeout(hold);
      reader.cancel().catch(() => {});
    });
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (res.write(value) || res.writableLength <= this.o.slowBytes) continue;
          // The reader lets more wait than its share: the stream ends, what waited is freed.
          ended();
          this.o.onSlowDrop?.();
          res.destroy();
          break;
        }
      } catch {
        // The reader left: the normal end of a stream.
      } finally {
        ended();
        clearTimeout(hold);
        if (!res.writableEnded) res.end();
      }
    })();
  }

  /** Ends the session once the requests it is answering are answered (its credential was revoked). */
  endWhenAnswered(): void {
    this.ending = true;
    if (this.inFlight === 0) void this.close();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.ending = true;
      this.over();
      await this.server.close();
    })();
    return this.closing;
  }
}

/**
 * The firehose: `com.atproto.sync.subscribeRepos` as a real WebSocket (the `ws` package) on a
 * listener of its own (TOWN_FIREHOSE_PORT); over the town's plain HTTP port the route answers
 * 426 UpgradeRequired naming this listener.
 *
 * Every signed commit is a `#commit` frame (AT Protocol event stream framing: a DAG-CBOR header
 * `{op: 1, t: "#commit"}` then the DAG-CBOR body, both encoded by @atproto/lex-cbor) carrying the
 * commit's CAR diff (its new blocks and the proofs of its operations). The projection keeps the
 * newest frames (projection.ts `framesKept`); this listener sends what a subscriber has not had:
 *
 *   no cursor      from now on
 *   cursor = seq   every kept frame after seq, then live; a cursor older than the oldest kept
 *                  frame first gets `#info OutdatedCursor`; one beyond the newest, the error
 *                  frame FutureCursor and the end of the stream
 *
 * A subscriber that lets more than 16 MB wait unsent (the socket's `bufferedAmount`: what `ws`
 * and the socket hold, not what the kernel has taken) gets the error frame ConsumerTooSlow and
 * the close code 1008; one that does not read that close either is cut off a second later, so
 * what waited for it is let go (docs/decisions/slow-consumers.md).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encode as cborEncode } from '@atproto/lex-cbor';
import { parseCid } from '@atproto/lex-data';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ReadStore } from '../stores/read-store.js';
import type { FrameDoc } from './frame-docs.js';
import { firehoseCollection, frameId, headCollection, type HeadDoc } from './projection.js';

export const subscribeReposPath = '/xrpc/com.atproto.sync.subscribeRepos';

/** Unsent bytes a subscriber may let wait before it is cut off. */
export const firehoseSlowBytes = 16 * 1024 * 1024;
/** How long a subscriber that was closed for being slow has to take the close before it is cut off. */
const closeGraceMs = 1000;
/** Frames read from the store per step. */
const page = 64;

export interface FirehoseOptions {
  reads: ReadStore;
  port: number;
  host: string;
  /** Calls `listener` whenever the repository's projector has committed (returns the unsubscribe). */
  onAdvance(listener: () => void): () => void;
  /** Unsent bytes a subscriber may let wait (firehoseSlowBytes; tests pass less). */
  slowBytes?: number;
  /** A subscriber was dropped for being slow (counted in /metrics). */
  onSlowDrop?: () => void;
}

/** One frame as sent: header and body, each DAG-CBOR. */
export function commitFrame(did: string, f: FrameDoc): Uint8Array {
  const header = cborEncode({ op: 1, t: '#commit' });
  const body = cborEncode({
    seq: f.seq,
    rebase: false,
    tooBig: false,
    repo: f.repo ?? did,
    commit: parseCid(f.commit),
    rev: f.rev,
    since: f.since,
    blocks: new Uint8Array(Buffer.from(f.blocks, 'base64')),
    ops: f.ops.map((op) => ({
      action: op.action,
      path: op.path,
      cid: op.cid === null ? null : parseCid(op.cid),
      ...(op.prev !== undefined ? { prev: parseCid(op.prev) } : {}),
    })),
    blobs: [],
    ...(f.prevData !== undefined ? { prevData: parseCid(f.prevData) } : {}),
    time: f.time,
  });
  return concat(header, body);
}

function infoFrame(name: string, message: string): Uint8Array {
  return concat(cborEncode({ op: 1, t: '#info' }), cborEncode({ name, message }));
}

function errorFrame(error: string, message: string): Uint8Array {
  return concat(cborEncode({ op: -1 }), cborEncode({ error, message }));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

interface Subscriber {
  socket: WebSocket;
  /** The last seq sent. */
  sent: number;
  busy: boolean;
  again: boolean;
}

export class Firehose {
  private server: http.Server | undefined;
  private wss: WebSocketServer | undefined;
  private readonly subscribers = new Set<Subscriber>();
  private off: (() => void) | undefined;

  constructor(private readonly o: FirehoseOptions) {}

  /** WebSocket subscribers connected now. */
  get subscribed(): number {
    return this.subscribers.size;
  }

  /** Listens; resolves with the port. */
  async start(): Promise<number> {
    const server = http.createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'application/json', upgrade: 'websocket' });
      res.end(JSON.stringify({ error: 'UpgradeRequired', message: `connect with a WebSocket to ${subscribeReposPath}` }));
    });
    const wss = new WebSocketServer({ noServer: true });
    server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://firehose');
      if (url.pathname !== subscribeReposPath) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => void this.subscribe(ws, url.searchParams.get('cursor')));
    });
    this.server = server;
    this.wss = wss;
    this.off = this.o.onAdvance(() => {
      for (const s of this.subscribers) void this.pump(s);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.o.port, this.o.host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.off?.();
    for (const s of this.subscribers) s.socket.terminate();
    this.subscribers.clear();
    await new Promise<void>((resolve) => (this.wss ? this.wss.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private frames() {
    return this.o.reads.collection(firehoseCollection);
  }

  private async newest(): Promise<number> {
    const [last] = (await this.frames().find({}, { sort: { _id: -1 }, limit: 1 })) as FrameDoc[];
    return last?.seq ?? 0;
  }

  private async subscribe(socket: WebSocket, cursorText: string | null): Promise<void> {
    const newest = await this.newest();
    let sent = newest;
    if (cursorText !== null) {
      const cursor = Number(cursorText);
      if (!/^\d+$/.test(cursorText) || !Number.isSafeInteger(cursor)) {
        socket.send(errorFrame('InvalidRequest', 'cursor is a sequence number'));
        socket.close(1008);
        return;
      }
      if (cursor > newest) {
        socket.send(errorFrame('FutureCursor', `cursor ${cursor} is beyond the newest frame, ${newest}`));
        socket.close(1008);
        return;
      }
      const [oldest] = (await this.frames().find({}, { sort: { _id: 1 }, limit: 1 })) as FrameDoc[];
      if (oldest && cursor < oldest.seq - 1) {
        socket.send(infoFrame('OutdatedCursor', `frames before ${oldest.seq} are no longer kept; starting from ${oldest.seq}`));
        sent = oldest.seq - 1;
      } else sent = cursor;
    }
    const s: Subscriber = { socket, sent, busy: false, again: false };
    this.subscribers.add(s);
    socket.on('close', () => this.subscribers.delete(s));
    socket.on('error', () => this.subscribers.delete(s));
    await this.pump(s);
  }

  /**
   * Lets a slow subscriber go: the error frame and the close (1008, policy) for a client that
   * still reads, then, a moment later, the socket cut for one that does not, so the bytes waiting
   * for it are freed rather than held until the close handshake's own timeout.
   */
  private dropSlow(s: Subscriber): void {
    this.subscribers.delete(s);
    this.o.onSlowDrop?.();
    const socket = s.socket;
    socket.send(errorFrame('ConsumerTooSlow', 'too many frames wait unsent; reconnect with a cursor'));
    socket.close(1008, 'ConsumerTooSlow');
    const cut = setTimeout(() => socket.terminate(), closeGraceMs);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  }

  /** Sends a subscriber every kept frame after the last it was sent. */
  private async pump(s: Subscriber): Promise<void> {
    if (s.busy) {
      s.again = true;
      return;
    }
    s.busy = true;
    try {
      do {
        s.again = false;
        const did = ((await this.o.reads.collection(headCollection).findOne({ _id: 'head' })) as HeadDoc | null)?.did;
        for (;;) {
          const frames = (await this.frames().find({ _id: { $gt: frameId(s.sent) } }, { sort: { _id: 1 }, limit: page })) as FrameDoc[];
          for (const f of frames) {
            if (!this.subscribers.has(s)) return;
            if (s.socket.bufferedAmount > (this.o.slowBytes ?? firehoseSlowBytes)) {
              this.dropSlow(s);
              return;
            }
            s.socket.send(commitFrame(did!, f));
            s.sent = f.seq;
          }
          if (frames.length < page) break;
        }
      } while (s.again);
    } finally {
      s.busy = false;
    }
  }
}

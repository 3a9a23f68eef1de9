/**
 * The journal's owner takes appends and deletions from the fronts beside it (journal-client.ts)
 * over a unix socket, `<TOWN_DATA>/events/append.sock` (append-protocol.ts for the wire). Each
 * request line goes to the owner's store as it arrives, so one front's appends are reserved in
 * the order it sent them, and every answer comes once the store has settled the call: a success
 * once its group is durable and the durable mark says so, which is what the front's own reads
 * follow.
 *
 * A refusal (WrongExpectedVersion, StreamDeleted) is answered only once everything reserved
 * before it is durable too (bounded), so a front that catches up from its own reads after it
 * sees what beat it. A line that is not a request is answered with an error; the connection and
 * the store go on.
 */
import fs from 'node:fs';
import net from 'node:net';
import { StreamDeleted, WrongExpectedVersion, type EventData } from '../event-store.js';
import type { EmbeddedEventStore, JournalShare } from './event-store.js';
import { checkSocketPath, decodeExpected, encodeError, encodeResult, idOfBadLine, type WireAnswer } from './append-protocol.js';

/** The longest wait for earlier appends before a refusal is answered anyway. */
const SETTLE_MS = 1000;
/** A request longer than this is refused and its connection closed (an append is at most a few MiB). */
const MAX_LINE_BYTES = 256 * 1024 * 1024;

export interface AppendServer {
  readonly socketPath: string;
  /** Stops taking requests and drops the connections (a front's calls in flight fail, and may be retried). */
  close(): Promise<void>;
}

export async function serveAppends(store: EmbeddedEventStore, socketPath: string): Promise<AppendServer> {
  checkSocketPath(socketPath);
  const journal = store.share();
  const connections = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    serveConnection(socket, store, journal);
  });
  // Only the owner (which holds the events directory's lock) serves here: a socket file left by
  // an owner that died is stale.
  fs.rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
  let closing: Promise<void> | undefined;
  return {
    socketPath,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of connections) socket.destroy();
        fs.rmSync(socketPath, { force: true });
      });
      return closing;
    },
  };
}

function serveConnection(socket: net.Socket, store: EmbeddedEventStore, journal: JournalShare): void {
  let buffered: Buffer[] = [];
  let bufferedBytes = 0;
  let refused = false;
  const answer = (reply: WireAnswer) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
  };
  socket.on('data', (chunk: Buffer) => {
    if (refused) return;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const line = bufferedBytes === 0 ? piece : Buffer.concat([...buffered, piece]);
      buffered = [];
      bufferedBytes = 0;
      start = nl + 1;
      if (line.length > 0) void handle(line.toString('utf8'), store, journal).then(answer);
    }
    if (start < chunk.length) {
      buffered.push(chunk.subarray(start));
      bufferedBytes += chunk.length - start;
      if (bufferedBytes > MAX_LINE_BYTES) {
        refused = true;
        answer({ id: null, error: { name: 'RangeError', message: `a request longer than ${MAX_LINE_BYTES} bytes` } });
        socket.end();
      }
    }
  });
}

/** One request line's answer. The store is called before anything awaits, in arrival order. */
async function handle(line: string, store: EmbeddedEventStore, journal: JournalShare): Promise<WireAnswer> {
  let request: { id?: unknown; op?: unknown; stream?: unknown; expected?: unknown; events?: unknown };
  try {
    request = JSON.parse(line);
  } catch {
    return { id: idOfBadLine(line), error: { name: 'TypeError', message: 'a request must be one line of JSON' } };
  }
  if (typeof request !== 'object' || request === null) return { id: null, error: { name: 'TypeError', message: 'a request must be a JSON object' } };
  const id = typeof request.id === 'number' || typeof request.id === 'string' ? request.id : null;
  try {
    if (request.op === 'append') {
      const result = await store.append(request.stream as string, toEvents(request.events), decodeExpected(request.expected));
      return { id, ok: encodeResult(result) };
    }
    if (request.op === 'deleteStream') {
      await store.deleteStream(request.stream as string, decodeExpected(request.expected));
      return { id, ok: {} };
    }
    throw new TypeError(`unknown request ${JSON.stringify(request.op)}: 'append' or 'deleteStream'`);
  } catch (error) {
    if (error instanceof WrongExpectedVersion || error instanceof StreamDeleted) await settled(journal, journal.reserved());
    return { id, error: encodeError(error) };
  }
}

/** The events of a request as the store takes them (its own checks judge them). */
function toEvents(events: unknown): EventData[] {
  if (!Array.isArray(events)) return events as EventData[];
  return events.map((e: unknown) => {
    if (typeof e !== 'object' || e === null) return e as EventData;
    const { id, type, data, metadata } = e as EventData;
    return metadata === undefined ? { id, type, data } : { id, type, data, metadata };
  });
}

/** Resolves once `position` is durable, or after SETTLE_MS (a group that failed never will be). */
function settled(journal: JournalShare, position: number): Promise<void> {
  if (journal.durable().position >= position) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop();
      resolve();
    };
    const timer = setTimeout(done, SETTLE_MS);
    const stop = journal.onDurable(() => {
      if (journal.durable().position >= position) done();
    });
  });
}

/**
 * A front's side of the wire to the journal's owner (append-protocol.ts): one connection to its
 * unix socket, requests multiplexed over it by id. A connection that drops fails every request
 * in flight on it with an Error (the owner may or may not have written an append: a retry with
 * the same event ids at the same expected revision is recognised by the owner, so the caller may
 * retry); the next request connects again.
 */
import { TownError } from '../../contract/town-error.js';
import net from 'node:net';
import { checkSocketPath, decodeError, type WireAnswer } from './append-protocol.js';

/** How long a request waits for the owner's socket to take a connection (nothing is sent before). */
const CONNECT_MS = 1000;

interface Waiting {
  resolve(ok: WireAnswer['ok']): void;
  reject(error: Error): void;
}

interface Connection {
  socket: net.Socket;
  waiting: Map<number, Waiting>;
}

export class AppendClient {
  private connection: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  private nextId = 1;
  private closed = false;

  constructor(readonly socketPath: string) {
    checkSocketPath(socketPath);
  }

  /** Sends the line `build` makes with a fresh id; the owner's `ok`, or its error rethrown as its class. */
  async request(build: (id: number) => string): Promise<WireAnswer['ok']> {
    const connection = await this.connect();
    const id = this.nextId++;
    const line = build(id);
    return new Promise<WireAnswer['ok']>((resolve, reject) => {
      if (connection.socket.destroyed) return reject(ownerLost(`the connection to the journal's owner at ${this.socketPath} closed`));
      connection.waiting.set(id, { resolve, reject });
      connection.socket.write(line);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connection?.socket.destroy();
    this.connection = undefined;
  }

  private connect(): Promise<Connection> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (this.connection && !this.connection.socket.destroyed) return Promise.resolve(this.connection);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<Connection> {
    const deadline = performance.now() + CONNECT_MS;
    for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
      try {
        const socket = await connectTo(this.socketPath);
        if (this.closed) {
          socket.destroy();
          throw new Error('event store is closed');
        }
        const connection: Connection = { socket, waiting: new Map() };
        this.listen(connection);
        this.connection = connection;
        return connection;
      } catch (error) {
        if (this.closed || performance.now() + wait > deadline) {
          throw ownerLost(`the journal's owner does not answer at ${this.socketPath}: ${(error as Error).message}`);
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  private listen(connection: Connection): void {
    const { socket, waiting } = connection;
    let partial = '';
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (line.length === 0) continue;
        let answer: WireAnswer;
        try {
          answer = JSON.parse(line) as WireAnswer;
        } catch {
          continue;
        }
        if (typeof answer.id !== 'number') continue;
        const waiter = waiting.get(answer.id);
        if (!waiter) continue;
        waiting.delete(answer.id);
        if (answer.error) waiter.reject(decodeError(answer.error));
        else waiter.resolve(answer.ok);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      if (this.connection === connection) this.connection = undefined;
      const lost = ownerLost(
        `the connection to the journal's owner at ${this.socketPath} closed before it answered: the request may or may not have been carried out (a retry of an append with the same event ids is recognised)`,
      );
      for (const waiter of waiting.values()) waiter.reject(lost);
      waiting.clear();
    });
  }
}

function connectTo(socketPath: string): Promise<net.Socket> {
  return new Promise<net.Socket>((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const failed = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.once('error', failed);
    socket.once('connect', () => {
      socket.off('error', failed);
      resolve(socket);
    });
  });
}

/**
 * The town that keeps the journal cannot be reached (it is restarting, or gone): the front
 * answers 503 `hostUnavailable` with a short wait, as for its own storage, not a failure of its own.
 */
function ownerLost(detail: string): TownError {
  // What the caller sees says nothing of the box's paths; the detail stays on the error.
  const error = new TownError('hostUnavailable', "this front cannot reach the town's journal now; send the same request again shortly", {
    headers: { 'Retry-After': '1' },
  });
  error.cause = new Error(detail);
  return error;
}

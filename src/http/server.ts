/**
 * Serving the app: a Node HTTP server with the wire guard (wire.ts) on every connection, and a
 * graceful close (stop accepting, let the requests being worked on finish, then resolve).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { limits } from '../contract/limits.js';
import { envelope } from '../contract/envelope.js';
import { TownError } from '../contract/town-error.js';
import { securityHeaders } from '../contract/security-headers.js';
import { guardServer } from './wire.js';

export interface ServeOptions {
  port: number;
  host?: string;
  /** Seconds for a whole request to arrive; spec 8 says 30 (tests shorten it). */
  requestSeconds?: number;
  /** How long close() waits for requests being worked on before cutting them off. */
  closeGraceMs?: number;
  /** After answering a violation on the wire, how long the client's bytes are still drained. */
  lingerMs?: number;
}

export interface RunningServer {
  server: http.Server;
  address: { host: string; port: number };
  /**
   * Serves another app from now on, on the same listener: `npm start` listens with the starting
   * app (src/operations/starting.ts: /health 200, everything else 503) while the town opens.
   */
  use(app: Koa<any, any>): void;
  close(): Promise<void>;
}

/**
 * Node's parser must never refuse a head the spec allows, so its own limit is the largest legal
 * head: the request line and 100 header lines at their limits. The guard refuses anything beyond
 * the spec's limits long before this.
 */
const largestHead = limits.requestLineBytes + 2 + limits.headers * (limits.headerLineBytes + 2) + 2;

export async function startServer(app: Koa<any, any>, options: ServeOptions): Promise<RunningServer> {
  const server = http.createServer({
    maxHeaderSize: largestHead,
    // The guard times whole requests from connecting; Node's own clocks would answer in plain text.
    requestTimeout: 0,
    headersTimeout: 0,
    // The guard answers a missing Host with the envelope.
    requireHostHeader: false,
  });
  server.maxHeadersCount = limits.headers + 1;
  // An Expect other than 100-continue: Node would answer a bare 417, outside the envelope.
  server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const { status, headers, body } = envelope(
      new TownError(
        'badRequest',
        `this host meets no expectation but 100-continue; send the request without Expect: ${String(req.headers.expect).slice(0, 64)}`,
      ),
      req.url ?? '/',
    );
    const json = Buffer.from(JSON.stringify(body));
    res.writeHead(status, {
      ...securityHeaders,
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(json.length),
      connection: 'close',
    });
    res.end(json);
  });
  let handle = app.callback();
  const wire = guardServer(
    server,
    {
      requestSeconds: options.requestSeconds ?? limits.requestSeconds,
      lingerMs: options.lingerMs ?? 2000,
    },
    (req, res) => void handle(req, res),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const info = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      const grace = setTimeout(
        () => {
          server.closeAllConnections();
          for (const g of wire.guards) g.socket.destroy();
        },
        options.closeGraceMs ?? limits.hostSeconds * 1000,
      );
      server.close(() => {
        clearTimeout(grace);
        resolve();
      });
      // Connections with nothing being worked on close now (idle, or a request half sent);
      // the others close once their replies are done (ConnectionGuard.admit).
      for (const g of wire.guards) g.closeAfterReplies();
    });
    return closing;
  };

  const use = (next: Koa<any, any>) => {
    handle = next.callback();
  };
  return { server, address: { host: info.address, port: info.port }, use, close };
}

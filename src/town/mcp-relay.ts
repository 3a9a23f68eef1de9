/**
 * MCP sessions across the fronts of one box (docs/decisions/embedded-fronts.md). A session lives
 * in the front that opened it (its transport, its GET stream, its subscriptions), and its id
 * starts with that front's id. node:cluster or a load balancer may hand the session's next
 * request to another front: that front relays it over the owning front's relay socket,
 * `<TOWN_DATA>/fronts/<id>.sock`, as it came (method, path, the headers MCP and the front read,
 * the body), and pipes the answer back, a stream as it is written. A session whose front is gone
 * answers as one the transport no longer has (404, "Session not found").
 *
 * The relay socket is mode 0600 in the data directory, so only the town's own processes reach
 * it; the caller's address rides along in a header that only this listener reads, so what is
 * logged and limited by address sees the caller, not the relaying front. The relaying front
 * spent the caller's rate budget (shared by the box's fronts), so the holding one does not
 * spend it again.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { relayedRequest, type TownContext } from '../contract/town-context.js';
import type { McpEndpoint } from '../http/handlers/mcp.js';
import type { TownApp } from '../http/app.js';
import { answer, sessionGone } from '../mcp/replies.js';

/** The header carrying the caller's address from the relaying front. */
const addressHeader = 'x-town-relayed-for';
/** What a relayed request carries over of the caller's. */
const relayed = [
  'accept',
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'authorization',
  'cookie',
  'origin',
  'host',
  'x-request-id',
];
/** Headers of the answer that belong to one connection, not to the answer. */
const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/** This front's id, which its sessions' ids start with. */
export function frontId(): string {
  return `f${process.pid.toString(36)}.`;
}

export function relaySocket(dataDir: string, id: string): string {
  return path.join(dataDir, 'fronts', `${id}sock`);
}

/** The MCP routes of a front: its own sessions in its room, another front's relayed there. */
export function relayingEndpoint(room: McpEndpoint, own: string, dataDir: string): McpEndpoint {
  const route = (handle: (ctx: TownContext) => Promise<void>) => async (ctx: TownContext) => {
    const id = ctx.get('mcp-session-id');
    const owner = /^(f[0-9a-z]+\.)/.exec(id)?.[1];
    if (!owner || owner === own) return handle(ctx);
    return relay(ctx, relaySocket(dataDir, owner));
  };
  return { post: route((ctx) => room.post(ctx)), stream: route((ctx) => room.stream(ctx)), end: route((ctx) => room.end(ctx)) };
}

function relay(ctx: TownContext, socketPath: string): Promise<void> {
  const headers: Record<string, string> = { [addressHeader]: ctx.state.address ?? '' };
  for (const name of relayed) {
    const v = ctx.req.headers[name];
    if (typeof v === 'string') headers[name] = v;
  }
  const body = ctx.method === 'POST' && ctx.state.body !== undefined ? JSON.stringify(ctx.state.body) : undefined;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise<void>((resolve) => {
    const out = http.request({ socketPath, method: ctx.method, path: ctx.originalUrl, headers }, (res) => {
      ctx.respond = false;
      const kept: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !hopByHop.has(k)) kept[k] = v;
      ctx.res.writeHead(res.statusCode ?? 502, kept);
      // Either side ending ends the other: a holding front that dies mid-stream ends the
      // caller's stream too, instead of leaving it open with nothing to come.
      pipeline(res, ctx.res, () => resolve());
    });
    // The caller went away before or during the answer: so does the relayed request.
    ctx.res.on('close', () => {
      if (!ctx.res.writableFinished) out.destroy();
    });
    // The owning front is gone (its socket refuses or is absent): so is the session.
    out.on('error', () => {
      if (ctx.respond === false) return resolve();
      void answer(ctx, sessionGone()).then(resolve, resolve);
    });
    out.end(body);
  });
}

/** Listens on this front's relay socket with the front's own app, for the other fronts. */
export async function serveRelays(app: TownApp, socketPath: string): Promise<{ close(): Promise<void> }> {
  fs.mkdirSync(path.dirname(socketPath), { recursive: true });
  fs.rmSync(socketPath, { force: true });
  const handle = app.callback();
  const server = http.createServer((req, res) => {
    // The caller's address as the relaying front saw it: what limits and logs by address use.
    const address = req.headers[addressHeader];
    delete req.headers[addressHeader];
    if (typeof address === 'string') Object.defineProperty(req.socket, 'remoteAddress', { value: address, configurable: true });
    (req as { [relayedRequest]?: true })[relayedRequest] = true;
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          fs.rmSync(socketPath, { force: true });
          resolve();
        });
      }),
  };
}

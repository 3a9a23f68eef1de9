/** Shared by the HTTP front's tests: a town with test handlers, raw sockets, response parsing. */
import net from 'node:net';
import * as assert from 'uvu/assert';
import { createApp, type AppOptions, type Logger, type TownApp } from '../../src/http/app.js';
import type { SomeHandlers } from '../../src/http/route-types.js';
import type { Authenticator, Caller } from '../../src/contract/caller.js';
import type { TownConfig } from '../../src/contract/town-config.js';
import { createLimiters } from '../../src/contract/rate-limit.js';
import { startServer, type RunningServer, type ServeOptions } from '../../src/http/server.js';

export const config = (open = true): TownConfig => ({
  host: 'town.test',
  origin: 'http://town.test',
  open,
  secret: new Uint8Array(32).fill(7),
  secure: false,
});

export const ada: Caller = {
  principal: 'guest:town.test:ada',
  name: 'ada',
  handle: 'ada.town.test',
  did: 'did:web:town.test:ada',
  credentialHash: 'hash-ada',
  via: 'bearer',
};
export const bob: Caller = {
  principal: 'guest:town.test:bob',
  name: 'bob',
  handle: 'bob.town.test',
  did: 'did:web:town.test:bob',
  credentialHash: 'hash-bob',
  via: 'bearer',
};

/** Knows two credentials and one session; everything else is unverified. */
export const authenticator: Authenticator = {
  bearer: async (token) => (token === 'ada-credential' ? ada : token === 'bob-credential' ? bob : undefined),
  session: async (id) => (id === 'ada-session' ? { ...ada, via: 'cookie' } : undefined),
};

/** Budgets too large to reach, for tests about something else than rate limits. */
export const unlimited = (clock: () => number) =>
  createLimiters(clock, { credential: [1e9, 60], identity: [1e9, 60], page: [1e9, 60], xrpc: [1e9, 60], session: [1e9, 60], signedIn: [1e9, 60] });

export interface Town {
  app: TownApp;
  server: RunningServer;
  port: number;
  base: string;
  logged: { message: string; fields: Record<string, unknown> }[];
  close(): Promise<void>;
}

export async function startTown(o: Partial<AppOptions> & { handlers?: SomeHandlers; serve?: Partial<ServeOptions>; limited?: boolean } = {}): Promise<Town> {
  const logged: Town['logged'] = [];
  const logger: Logger = { error: (message, fields) => logged.push({ message, fields }) };
  const clock = o.clock ?? Date.now;
  const app = createApp({
    config: o.config ?? config(),
    handlers: o.handlers ?? {},
    authenticator: o.authenticator ?? authenticator,
    clock,
    logger,
    limiters: o.limiters ?? (o.limited ? undefined : unlimited(clock)),
    workers: o.workers,
    townOpen: o.townOpen,
  });
  const server = await startServer(app, { port: 0, host: '127.0.0.1', closeGraceMs: 2000, lingerMs: 200, ...o.serve });
  const port = server.address.port;
  return { app, server, port, base: `http://127.0.0.1:${port}`, logged, close: () => server.close() };
}

export interface RawReply {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: string;
  json?: any;
  /** The server ended the connection after this reply. */
  closed: boolean;
  /** Every byte the server sent. */
  raw: Buffer;
}

/** The status codes of every reply in a stream of bytes (pipelined replies). */
export const statuses = (r: RawReply) => [...r.raw.toString('latin1').matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

/**
 * Send bytes on a fresh connection and read the first reply (`all`: every reply until close). `parts` are written one after
 * another, `gapMs` apart. The reply is complete at its Content-Length; then we wait briefly to
 * see whether the server closes.
 */
export function raw(
  port: number,
  parts: string | Buffer | (string | Buffer)[],
  o: { gapMs?: number; timeoutMs?: number; end?: boolean; all?: boolean } = {},
): Promise<RawReply> {
  const list = Array.isArray(parts) ? parts : [parts];
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    let parsed: Omit<RawReply, 'closed' | 'raw'> | undefined;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const all = Buffer.concat(chunks);
      parsed ??= parseReply(all);
      if (!parsed) return reject(new Error(`no reply; got ${JSON.stringify(all.toString('latin1').slice(0, 200))}`));
      resolve({ ...parsed, closed, raw: all });
    };
    const timer = setTimeout(finish, o.timeoutMs ?? 5000);
    socket.on('error', () => {});
    socket.on('data', (d) => {
      chunks.push(d);
      parsed ??= parseReply(Buffer.concat(chunks));
      // Give the server a moment to close after a complete reply (`all`: wait for the close).
      if (parsed && !closed && !o.all) setTimeout(finish, 150);
    });
    socket.on('end', () => {
      closed = true;
      finish();
    });
    socket.on('connect', async () => {
      for (const p of list) {
        if (socket.destroyed) return;
        socket.write(p);
        if (o.gapMs) await new Promise((r) => setTimeout(r, o.gapMs));
      }
      if (o.end) socket.end();
    });
  });
}

/** Parse the first complete HTTP/1.1 reply in `buf`, or undefined while it is incomplete. */
export function parseReply(buf: Buffer): Omit<RawReply, 'closed' | 'raw'> | undefined {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const lines = buf.toString('latin1', 0, headEnd).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(lines[0]);
  if (!m) throw new Error(`not a status line: ${lines[0]}`);
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : 0;
  if (headers['transfer-encoding'] === 'chunked') {
    const end = buf.indexOf('\r\n0\r\n\r\n', headEnd);
    if (end < 0) return undefined;
    return { status: Number(m[1]), reason: m[2], headers, body: dechunk(buf.subarray(headEnd + 4, end + 7)) };
  }
  if (buf.length < headEnd + 4 + length) return undefined;
  const body = buf.toString('utf8', headEnd + 4, headEnd + 4 + length);
  let json: unknown;
  if (/json/.test(headers['content-type'] ?? '')) json = JSON.parse(body);
  return { status: Number(m[1]), reason: m[2], headers, body, json };
}

function dechunk(b: Buffer): string {
  let out = '';
  let i = 0;
  for (;;) {
    const nl = b.indexOf('\r\n', i);
    const size = parseInt(b.toString('latin1', i, nl), 16);
    if (!size) return out;
    out += b.toString('utf8', nl + 2, nl + 2 + size);
    i = nl + 2 + size + 2;
  }
}

/** A request as bytes. */
export function req(method: string, path: string, o: { headers?: Record<string, string>; body?: string | Buffer; close?: boolean } = {}): Buffer {
  const body = o.body === undefined ? undefined : Buffer.isBuffer(o.body) ? o.body : Buffer.from(o.body);
  const headers: Record<string, string> = { Host: 'town.test', ...(o.close === false ? {} : { Connection: 'close' }), ...o.headers };
  if (body && headers['Content-Length'] === undefined && headers['Transfer-Encoding'] === undefined) headers['Content-Length'] = String(body.length);
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

/** The envelope of spec 2.10, checked field by field. */
export function assertEnvelope(r: RawReply, status: number, cls: string) {
  assert.is(r.status, status, `status of ${r.body.slice(0, 300)}`);
  assert.ok(r.json, `a JSON reply: ${r.body.slice(0, 200)}`);
  assert.is(r.json.class, cls);
  assert.ok(r.json.status === 'error' || r.json.status === 'refused');
  assert.type(r.json.message, 'string');
  assert.ok(r.json._links?.api?.href === '/AGENTS.md/api', 'envelope links to the catalogue');
  assert.type(r.json._links?.self?.href, 'string', 'spec 2.10: every envelope links to itself');
}

/** The server still answers a fresh connection. */
export async function assertServing(port: number) {
  const r = await raw(port, req('GET', '/health'));
  assert.is(r.status, 200, 'the server keeps serving the next connection');
  assert.is(r.json.status, 'ok');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

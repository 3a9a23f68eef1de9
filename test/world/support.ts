/**
 * A whole town for the world's end-to-end tests: the real composition root (openTown) on the
 * embedded stores in a fresh directory, served on an ephemeral port, with guests admitted
 * through the real `accept` route.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { settingsFromEnv, type Settings } from '../../src/config.js';
import { createLimiters } from '../../src/contract/rate-limit.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { openTown, type Town, type TownOptions } from '../../src/town.js';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any;
  text: string;
}

export interface Guest {
  name: string;
  token: string;
  principal: string;
}

export interface TestTown {
  dir: string;
  town: Town;
  base: string;
  clock: { (): number; advance(ms: number): void; set(ms: number): void };
  request(method: string, path: string, o?: { token?: string; json?: unknown; timeoutMs?: number }): Promise<Reply>;
  get(path: string, token: string): Promise<Reply>;
  post(path: string, token: string, json?: unknown): Promise<Reply>;
  guest(name: string): Promise<Guest>;
  /** Closes the town and opens it again on the same data (`between`: what to do while it is closed). */
  restart(more?: Partial<TownOptions>, between?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export function testClock(start = Date.UTC(2026, 10, 23, 12, 0, 0)) {
  let now = start;
  const clock = () => now;
  clock.advance = (ms: number) => {
    now += ms;
  };
  clock.set = (ms: number) => {
    now = ms;
  };
  return clock;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export interface RequestOptions {
  token?: string;
  cookie?: string;
  json?: unknown;
  /** A browser form, sent urlencoded. */
  form?: Record<string, string>;
  /** Extra headers; `accept` defaults to JSON. */
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** `false` for a fresh connection per request (default: a shared keep-alive agent). */
  agent?: http.Agent | false;
}

export function request(base: string, method: string, p: string, o: RequestOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
    let body: Buffer | undefined;
    if (o.json !== undefined) {
      body = Buffer.from(JSON.stringify(o.json));
      headers['content-type'] = 'application/json';
    } else if (o.form !== undefined) {
      body = Buffer.from(new URLSearchParams(o.form).toString());
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    if (body) headers['content-length'] = String(body.length);
    if (o.cookie) headers.cookie = o.cookie;
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const req = http.request(`${base}${p}`, { method, headers, agent: o.agent ?? agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json, text });
      });
    });
    req.setTimeout(o.timeoutMs ?? 40_000, () => req.destroy(new Error(`timeout ${method} ${p}`)));
    req.on('error', reject);
    req.end(body);
  });
}

export async function startTestTown(o: Omit<Partial<TownOptions>, 'settings'> & { settings?: Partial<Settings>; dir?: string } = {}): Promise<TestTown> {
  const { settings: given, dir: givenDir, ...rest } = o;
  const dir = givenDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  const clock = o.clock ? (o.clock as TestTown['clock']) : testClock();
  let town!: Town;
  let server!: RunningServer;
  let base = '';
  const errors: string[] = [];
  const open = async (more: Partial<TownOptions> = {}) => {
    const settings: Settings = { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: true, ...given };
    town = await openTown({
      settings,
      clock,
      origin: 'http://town.test',
      // Rate limits lifted (a per-second budget no test reaches): these tests are not about them.
      limiters: createLimiters(clock, {
        credential: [10_000, 1],
        identity: [10_000, 1],
        page: [10_000, 1],
        xrpc: [10_000, 1],
        session: [10_000, 1],
        signedIn: [10_000, 1],
      }),
      logger: { error: (message, fields) => errors.push(`${message} ${JSON.stringify(fields).slice(0, 2000)}`) },
      ...rest,
      ...more,
    });
    server = await startServer(town.app, { port: 0, host: '127.0.0.1', closeGraceMs: 2000, lingerMs: 100 });
    base = `http://127.0.0.1:${server.address.port}`;
  };
  await open();
  const t: TestTown = {
    dir,
    get town() {
      return town;
    },
    get base() {
      return base;
    },
    clock,
    request: (method, p, ro) => request(base, method, p, ro),
    get: (p, token) => request(base, 'GET', p, { token }),
    post: (p, token, json) => request(base, 'POST', p, { token, json: json ?? {} }),
    async guest(name) {
      const { code } = await issueInvitation(town.events, clock, { guest: null, lifetimeMs: 86_400_000 });
      const r = await request(base, 'POST', '/AGENTS.md/accept', { json: { code, name } });
      if (r.status !== 200) throw new Error(`accept ${name}: ${r.status} ${r.text}`);
      return { name, token: r.json.credential, principal: r.json.principal };
    },
    async restart(more, between) {
      await server.close();
      await town.close();
      await between?.();
      await open(more);
    },
    async close() {
      await server.close();
      await town.close();
      fs.rmSync(dir, { recursive: true, force: true });
      if (errors.length) throw new Error(`the front logged errors:\n${errors.join('\n')}`);
    },
  } as TestTown;
  return t;
}

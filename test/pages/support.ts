/**
 * A town serving the pages room: the composition root (openTown) on a fresh embedded store,
 * with an app made of the identity, world and pages handlers over the town's own stores and
 * world service, as src/town.ts will assemble once `...pagesHandlers(deps)` is added there.
 */
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { settingsFromEnv } from '../../src/config.js';
import { defaultOptions } from '../../src/cards/kernel/options.js';
import { createApp } from '../../src/http/app.js';
import { identityHandlers } from '../../src/http/handlers/identity.js';
import { pagesHandlers } from '../../src/http/handlers/pages.js';
import { turnsLeft, worldHandlers } from '../../src/http/handlers/world.js';
import { createLimiters, type Limiters } from '../../src/contract/rate-limit.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { StoreAuthenticator } from '../../src/identity/authenticator.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { openTown, type Town } from '../../src/town.js';
import { testLayout, testPrograms } from '../world/kinds.js';
import { request as httpRequest } from '../world/support.js';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface PageGuest {
  name: string;
  token: string;
  principal: string;
  cookie: string;
}

export interface PagesTown {
  town: Town;
  base: string;
  request(
    method: string,
    p: string,
    o?: { cookie?: string; token?: string; json?: unknown; form?: Record<string, string>; headers?: Record<string, string> },
  ): Promise<Reply>;
  guest(name: string): Promise<PageGuest>;
  close(): Promise<void>;
}

export const clock = () => Date.UTC(2026, 10, 23, 12, 0, 0);
const fixedClock = clock;

export async function startPagesTown(
  live: { holdMs?: number; max?: number; perSession?: number; perAddress?: number } = { holdMs: 2000 },
  o: { limiters?: Limiters; clock?: () => number; origin?: string } = {},
): Promise<PagesTown> {
  const clock = o.clock ?? fixedClock;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  const errors: string[] = [];
  const town = await openTown({
    settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: true },
    clock,
    origin: o.origin ?? 'http://town.test',
    programs: testPrograms(),
    layout: testLayout,
  });
  const limiters =
    o.limiters ??
    createLimiters(clock, {
      credential: [10_000, 1],
      identity: [10_000, 1],
      page: [10_000, 1],
      xrpc: [10_000, 1],
      session: [10_000, 1],
      signedIn: [10_000, 1],
    });
  const deps = {
    service: town.world,
    events: town.events,
    reads: town.reads,
    programs: town.programs,
    clock,
    fresh: town.fresh,
    options: () => defaultOptions,
  };
  const app = createApp({
    config: town.config,
    handlers: {
      ...identityHandlers({ store: town.events, config: town.config, clock, limiters, turns: turnsLeft(deps) }),
      ...worldHandlers(deps),
      ...pagesHandlers({ ...deps, config: town.config, live }),
    },
    authenticator: new StoreAuthenticator(town.events, town.config, clock),
    clock,
    limiters,
    logger: { error: (message, fields) => errors.push(`${message} ${JSON.stringify(fields).slice(0, 2000)}`) },
  });
  const server: RunningServer = await startServer(app, { port: 0, host: '127.0.0.1', closeGraceMs: 500, lingerMs: 50 });
  const base = `http://127.0.0.1:${server.address.port}`;

  // Pages are asked for as a browser would (HTML), on a fresh connection each time; a JSON body
  // asks for JSON back unless the caller says otherwise.
  const request: PagesTown['request'] = (method, p, o = {}) =>
    httpRequest(base, method, p, {
      ...o,
      headers: { accept: o.json !== undefined ? (o.headers?.accept ?? 'application/json') : 'text/html', ...o.headers },
      agent: false,
      timeoutMs: 10_000,
    });

  return {
    town,
    base,
    request,
    async guest(name) {
      const { code } = await issueInvitation(town.events, clock, { guest: null, lifetimeMs: 86_400_000 });
      const accepted = await request('POST', '/AGENTS.md/accept', { json: { code, name } });
      if (accepted.status !== 200) throw new Error(`accept ${name}: ${accepted.status} ${accepted.text}`);
      const entered = await request('POST', '/enter', { json: { credential: accepted.json.credential } });
      const cookie = (entered.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).find((c) => c.startsWith('town_session='));
      if (!cookie) throw new Error(`enter ${name}: ${entered.status} ${entered.text}`);
      return { name, token: accepted.json.credential, principal: accepted.json.principal, cookie };
    },
    async close() {
      await server.close();
      await town.close();
      fs.rmSync(dir, { recursive: true, force: true });
      if (errors.length) throw new Error(`the front logged errors:\n${errors.join('\n')}`);
    },
  };
}

/** A turn through the API, as a guest. */
export async function turn(t: PagesTown, g: PageGuest, object: string, method: string, body: Record<string, unknown>) {
  const r = await t.request('POST', `/AGENTS.md/world/${encodeURIComponent(object)}/${method}`, {
    token: g.token,
    json: { intent: `t-${Math.random()}`, ...body },
  });
  if (r.status !== 200) throw new Error(`turn ${object}.${method}: ${r.status} ${r.text}`);
  return r.json;
}

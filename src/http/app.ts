/**
 * The koa app of the front, generated from the route table. Order of work on a request, outside
 * in (each step only when the one before let it through):
 *
 *   request id → observe (log line, metrics: front/observe.ts) → reply (envelope of any failure;
 *   serialise JSON; size guard) → in-flight limit → method gate (501) → route match (404 / 405)
 *   → auth → rate limit → body (413, badJson) → codecs (hostRequest) → handler (501 while a
 *   route is not built) → `_links`
 *
 * The reply step sits outside the in-flight limit so that `busy` itself is an envelope; the
 * limit counts a request while it is being worked on, not while a stream (SSE) is being sent.
 */
import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import type { Authenticator } from '../contract/caller.js';
import type { Clock } from '../contract/clock.js';
import { limits } from '../contract/limits.js';
import { defaultLimiters, type Limiters } from '../contract/rate-limit.js';
import type { TownConfig } from '../contract/town-config.js';
import { TownError } from '../contract/town-error.js';
import { authenticate } from './front/authenticate.js';
import { type BodyReader, decodeBody, decodeQuery } from './front/decode.js';
import { errorText, type Logger, replyFailure, stderrLogger } from './front/failure.js';
import { givenRequestId, FrontObserver, type Observation } from './front/observe.js';
import { earlierFailure, earlierReply } from './front/earlier-reply.js';
import { frontHandlers } from './front/own-routes.js';
import { spendRate } from './front/rate.js';
import { finishReply, jsonReply } from './front/reply.js';
import { setSecurityHeaders } from '../contract/security-headers.js';
import type { AnyHandler, TownContext, TownState } from './handler.js';
import { readBody } from './request-body.js';
import { RouteIndex } from './route-match.js';
import { notBuilt, type SomeHandlers } from './route-types.js';
import { heapPrefix, heapWorld, type Route, routesFor } from './routes.js';
import type { RouteMeter } from '../operations/metrics.js';

export type { Logger } from './front/failure.js';

export interface AppOptions {
  config: TownConfig;
  /** The rooms' handlers by route name (a table that leaves a route out answers it 501). */
  handlers: SomeHandlers;
  authenticator: Authenticator;
  clock: Clock;
  logger?: Logger;
  /** Shared with the identity room so `me.rateLimit` reads the front's own counters. */
  limiters?: Limiters;
  /** Requests worked on at once before `busy` (spec 8 `workers`). */
  workers?: number;
  /**
   * Whether the town is open now. The operator can open or close a running town, so the
   * open-only routes (arrive) are registered always and answer `unknownRoute` while it is closed,
   * and the catalogue and guide follow. Default: `config.open`, fixed.
   */
  townOpen?: () => boolean | Promise<boolean>;
  /** The request log and metrics (none: neither, as in most tests). */
  observation?: Observation;
}

export type TownApp = Koa<TownState> & {
  /** The routes this app answers (open-only ones only while the town is open). */
  townRoutes: readonly Route[];
  limiters: Limiters;
  /** Requests being worked on now (the metrics' in-flight gauge). */
  inFlight(): number;
};

/** A route of the table with what the front needs to serve it. */
interface Entry {
  route: Route;
  /** The handler's name: the route's, or for a scratch variant its base route's. */
  name: string;
  handler: AnyHandler | undefined;
  read: BodyReader | undefined;
  /** Reached through /AGENTS.md/scratch/{name}/… */
  inScratch: boolean;
  /** The route's counts and latency, made once (front/observe.ts). */
  meter: RouteMeter | undefined;
  /** A server-sent event route: counted as a live stream while it is sent. */
  stream: boolean;
}

/** How many matched paths the front keeps (past it, it starts over). */
const seenPaths = 4096;
/** Longer paths are matched every time (so the kept ones stay a few hundred kilobytes at most). */
const seenPathLength = 200;

export function createApp(options: AppOptions): TownApp {
  const { config, authenticator, clock } = options;
  const logger = options.logger ?? stderrLogger;
  const limiters = options.limiters ?? defaultLimiters(clock);
  const workers = options.workers ?? limits.workers;
  const townOpen = options.townOpen ?? (() => config.open);
  const table = routesFor(true, config.catalogue);
  const earlierShape = config.catalogue === 'earlier';
  const observer = new FrontObserver(options.observation ?? {});
  /**
   * Methods some route of the table takes (HEAD with GET); any other method is 501 whatever the
   * path (spec 7.1). A taken method on a path whose routes take others is 405 naming them.
   */
  const takenMethods = new Set(['HEAD', ...table.map((r) => r.method)]);

  // Each row's handler as the front calls it: a room's (typed by its row in route-types.ts) or
  // the front's own; a row stated `notBuilt`, or left out of a partial table, has none.
  // The cast forgets each handler's row type: the front calls a handler only for its own row,
  // after that row's codecs decoded the body and query.
  const given = {
    ...frontHandlers(config, townOpen, (name) => handlerOf(name) !== undefined),
    ...options.handlers,
  } as unknown as Record<string, AnyHandler | typeof notBuilt | undefined>;
  function handlerOf(name: string): AnyHandler | undefined {
    const h = given[name];
    return h === notBuilt ? undefined : h;
  }

  const app = new Koa<TownState>() as TownApp;
  app.townRoutes = table;
  app.limiters = limiters;
  app.on('error', (err: unknown) => logger.error('reply failed after it started', { error: errorText(err) }));

  // The router only matches (one table, in order; route-match.ts looks only at the routes under
  // the request's first two segments). The work of a request is plain calls in the one
  // middleware below, not a chain of middleware, because every layer of koa-compose costs a
  // promise, a bound function and a closure on every request.
  const router = new Router<TownState>();
  const entries = new Map<object, Entry>();
  for (const r of table) {
    // Never called: the front runs the route's work itself (routeWork).
    const unused = async () => {};
    if (r.method === 'GET') router.get(r.name, r.path, unused);
    else if (r.method === 'DELETE') router.delete(r.name, r.path, unused);
    else router.post(r.name, r.path, unused);
    entries.set(router.stack[router.stack.length - 1], {
      route: r,
      name: r.base ?? r.name,
      handler: handlerOf(r.base ?? r.name),
      read: r.method === 'POST' ? readBody(r) : undefined,
      inScratch: r.path.startsWith('/AGENTS.md/scratch/:name') || (r.base !== undefined && r.path.startsWith(heapPrefix)),
      meter: observer.meter(r.name),
      stream: r.reply === 'sse',
    });
  }
  const index = RouteIndex.of(router);
  /**
   * Matched paths (method and path → route and its decoded parameters, frozen: every request of
   * that path shares them). Only matches are kept, of paths up to `seenPathLength`, and at most
   * `seenPaths` of them.
   */
  const seen = new Map<string, { entry: Entry; params: Readonly<Record<string, string>> }>();

  const boot = randomBytes(3).toString('hex');
  let served = 0;
  let inFlight = 0;
  app.inFlight = () => inFlight;

  /**
   * Every request, outside in: request id and address; the reply (every failure becomes its
   * envelope; JSON is serialised once and measured); the in-flight limit; the method gate (501);
   * the route (404 / 405); then the route's own work (routeWork).
   */
  app.use(async (ctx) => {
    const started = performance.now();
    const state = ctx.state;
    const requestId = givenRequestId(ctx as TownContext) ?? `${boot}-${(++served).toString(36)}`;
    state.requestId = requestId;
    // koa's `ctx.ip` without a trusted proxy is the socket's address; read it directly then.
    state.address = app.proxy ? ctx.ip : ctx.req.socket.remoteAddress || '';
    ctx.res.setHeader('X-Request-Id', requestId);
    setSecurityHeaders(ctx.res);
    let entry: Entry | undefined;
    try {
      // The in-flight limit sits inside the reply so that `busy` itself is an envelope.
      if (inFlight >= workers) {
        throw new TownError('busy', `every worker is taken (${workers} requests at once); try again shortly`, { headers: { 'Retry-After': '1' } });
      }
      inFlight++;
      let measured: boolean;
      try {
        const method = ctx.method;
        if (!takenMethods.has(method)) throw notImplemented(method);
        const path = ctx.path;
        // The table's first route for this path and method answers (as the router's chain would:
        // a route's work never passes the request on).
        // The same paths come again and again (an agent reading its lamp): their match is kept.
        const key = `${method} ${path}`;
        let matched = seen.get(key);
        if (matched === undefined) {
          const { layer, onPath } = index.match(path, method);
          if (!layer) throw unmatched(ctx as TownContext, onPath);
          matched = { entry: entries.get(layer) as Entry, params: Object.freeze(layer.params(path, layer.captures(path))) };
          if (path.length <= seenPathLength) {
            if (seen.size >= seenPaths) seen.clear();
            seen.set(key, matched);
          }
        }
        entry = matched.entry;
        const params = matched.params;
        (ctx.request as { params?: Record<string, string> }).params = params;
        (ctx as { params?: Record<string, string> }).params = params;
        measured = await routeWork(ctx as TownContext, entry);
      } finally {
        inFlight--;
      }
      if (!measured) finishReply(ctx as TownContext);
    } catch (err) {
      observer.failed(err);
      await replyFailure(ctx as TownContext, earlierShape ? earlierFailure(err) : err, entry?.route, logger, authenticator);
    }
    observer.answered(ctx as TownContext, entry ? entry.meter : observer.unmatched, started, entry?.stream === true);
  });

  /** A method no route takes. */
  const taken = [...takenMethods].join(', ');
  function notImplemented(method: string): TownError {
    return new TownError('notImplemented', `no route takes the method ${method}; routes take ${taken}`, { hintHref: '/AGENTS.md/api' });
  }

  /** Nothing matched: 405 when the path is a route's under another method, else 404. */
  function unmatched(ctx: TownContext, onPath: readonly { methods: string[] }[]): TownError {
    const matched = onPath.filter((layer) => layer.methods.length > 0);
    if (matched.length) {
      const allow = [...new Set(matched.flatMap((layer) => layer.methods))].join(', ');
      return new TownError('methodNotAllowed', `${ctx.path} takes ${allow}, not ${ctx.method}`, { headers: { Allow: allow }, hintHref: '/AGENTS.md/api' });
    }
    return new TownError('unknownRoute', `no route ${ctx.method} ${ctx.path}; the catalogue lists every route`, { hintHref: '/AGENTS.md/api' });
  }

  /**
   * A route's work, in order: enter (open-only routes, scratch name) → auth → rate limit → body
   * (413, badJson) and query → codecs (hostRequest) → handler (501 while not built) → `_links`.
   * Resolves true when it serialised and measured a JSON reply itself.
   */
  async function routeWork(ctx: TownContext, { route: r, name: routeName, handler, read, inScratch }: Entry): Promise<boolean> {
    const state = ctx.state;
    state.route = routeName;
    if (r.openOnly && !(await townOpen())) {
      throw new TownError('unknownRoute', `no route ${ctx.method} ${ctx.path} on an invited town; accept an invitation instead`, {
        hintHref: '/AGENTS.md/api',
      });
    }
    if (inScratch) state.scratch = r.path.startsWith(heapPrefix) ? heapWorld : (ctx.params as Record<string, string> | undefined)?.name;

    if (!(await authenticate(ctx, r, authenticator))) return false;
    spendRate(ctx, r, limiters);

    state.body = read || r.body ? await decodeBody(ctx, r, read) : undefined;
    state.query = decodeQuery(ctx, r);

    if (!handler) {
      throw new TownError('notImplemented', `route ${r.name} is not built yet`, { hintHref: '/AGENTS.md/api' });
    }
    const out = await handler(ctx);
    if (out === undefined) {
      if (ctx.body == null && ctx.status === 404) ctx.status = 204;
      return false;
    }
    if (typeof out !== 'object' || out === null || Array.isArray(out)) {
      throw new Error(`handler ${r.name} returned ${Array.isArray(out) ? 'a list' : typeof out}; handlers return objects`);
    }
    jsonReply(ctx, earlierShape ? earlierReply(out as Record<string, unknown>) : (out as Record<string, unknown>));
    return true;
  }

  return app;
}

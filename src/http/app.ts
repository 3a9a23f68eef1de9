/**
 * The koa app of the front, generated from the route table. Order of work on a request, outside
 * in (each step only when the one before let it through):
 *
 *   request id → reply (envelope of any failure; serialise JSON; size guard) → in-flight limit
 *   → method gate (501) → route match (404 / 405) → auth → rate limit → body (413, badJson)
 *   → codecs (hostRequest) → handler (501 while a route is not built) → `_links`
 *
 * The reply step sits outside the in-flight limit so that `busy` itself is an envelope; the
 * limit counts a request while it is being worked on, not while a stream (SSE) is being sent.
 */
import { randomBytes } from 'node:crypto';
import { Stream } from 'node:stream';
import Router from '@koa/router';
import Koa from 'koa';
import type * as t from 'io-ts';
import { limits } from '../contract/limits.js';
import { buildCatalogue } from './catalogue.js';
import { envelope, errorPage, xrpcError, XrpcFailure } from './envelope.js';
import { examplesText, guideText } from './guide.js';
import { sessionCookie, type Handler, type Handlers, type TownContext, type TownState } from './handler.js';
import { TownError } from '../contract/town-error.js';
import type { Authenticator, Caller } from '../contract/caller.js';
import type { Clock } from '../contract/clock.js';
import type { TownConfig } from '../contract/town-config.js';
import { replyLinks, selfLinksJson, type Links } from './links.js';
import { defaultLimiters, type Limiters } from '../contract/rate-limit.js';
import { readBody } from './request-body.js';
import { RouteIndex } from './route-match.js';
import { routesFor, type Route } from './routes.js';
import { explain, shapeOf, shapeText } from './shape.js';

export interface Logger {
  error(message: string, fields: Record<string, unknown>): void;
}

export interface AppOptions {
  config: TownConfig;
  handlers: Handlers;
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
}

export type TownApp = Koa<TownState> & {
  /** The routes this app answers (open-only ones only while the town is open). */
  townRoutes: readonly Route[];
  limiters: Limiters;
};

/** A route of the table with what the front needs to serve it. */
interface Entry {
  route: Route;
  /** The handler's name: the route's, or for a scratch variant its base route's. */
  name: string;
  handler: Handler | undefined;
  read: ((ctx: TownContext) => Promise<Record<string, unknown> | undefined>) | undefined;
  /** Reached through /AGENTS.md/scratch/{name}/… */
  inScratch: boolean;
}

const stderrLogger: Logger = {
  error: (message, fields) => process.stderr.write(`${JSON.stringify({ level: 'error', message, ...fields })}\n`),
};

/** Methods some route takes; any other method is 501 whatever the path (spec 7.1). */
const takenMethods = new Set(['GET', 'HEAD', 'POST']);

export function createApp(options: AppOptions): TownApp {
  const { config, authenticator, clock } = options;
  const logger = options.logger ?? stderrLogger;
  const limiters = options.limiters ?? defaultLimiters(clock);
  const workers = options.workers ?? limits.workers;
  const townOpen = options.townOpen ?? (() => config.open);
  const table = routesFor(true);

  // The catalogue and the guide are made once per town mode and kept as bytes (so that neither
  // koa nor the reply-size guard measures tens of kilobytes of text on every request).
  const made = new Map<string, Buffer>();
  const once = (key: string, make: () => string): Buffer => {
    let bytes = made.get(key);
    if (bytes === undefined) made.set(key, (bytes = Buffer.from(make())));
    return bytes;
  };
  const catalogue = (open: boolean, self: string) =>
    once(`catalogue ${open} ${self}`, () => {
      const listed = routesFor(open);
      return JSON.stringify(
        buildCatalogue({ ...config, open }, listed, (r) => Boolean(handlers[r.base ?? r.name]), self),
        null,
        2,
      );
    });
  const examples = Buffer.from(examplesText());
  // The front's own routes, which a room may still replace by passing a handler of that name.
  const handlers: Handlers = {
    guide: async (ctx) => {
      ctx.vary('Accept');
      const open = await townOpen();
      if (ctx.accepts('text/plain', 'application/json') === 'application/json') {
        ctx.type = 'application/json';
        ctx.body = catalogue(open, '/AGENTS.md');
      } else {
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = once(`guide ${open}`, () => guideText(open, (name) => Boolean(handlers[name])));
      }
    },
    api: async (ctx) => {
      ctx.type = 'application/json';
      ctx.body = catalogue(await townOpen(), '/AGENTS.md/api');
    },
    examples: async (ctx) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = examples;
    },
    health: async () => ({ status: 'ok' }),
    ...options.handlers,
  };

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
    else router.post(r.name, r.path, unused);
    entries.set(router.stack[router.stack.length - 1], {
      route: r,
      name: r.base ?? r.name,
      handler: handlers[r.base ?? r.name],
      read: r.method === 'POST' ? readBody(r) : undefined,
      inScratch: r.path.startsWith('/AGENTS.md/scratch/:name'),
    });
  }
  const index = RouteIndex.of(router);

  const boot = randomBytes(3).toString('hex');
  let served = 0;
  let inFlight = 0;

  /**
   * Every request, outside in: request id and address; the reply (every failure becomes its
   * envelope; JSON is serialised once and measured); the in-flight limit; the method gate (501);
   * the route (404 / 405); then the route's own work (routeWork).
   */
  app.use(async (ctx) => {
    const state = ctx.state;
    const requestId = `${boot}-${(++served).toString(36)}`;
    state.requestId = requestId;
    // koa's `ctx.ip` without a trusted proxy is the socket's address; read it directly then.
    state.address = app.proxy ? ctx.ip : ctx.req.socket.remoteAddress || '';
    ctx.res.setHeader('X-Request-Id', requestId);
    let route: Route | undefined;
    try {
      // The in-flight limit sits inside the reply so that `busy` itself is an envelope.
      if (inFlight >= workers) {
        throw new TownError('busy', `every worker is taken (${workers} requests at once); try again shortly`, { headers: { 'Retry-After': '1' } });
      }
      inFlight++;
      let measured: boolean;
      try {
        const method = ctx.method;
        if (!takenMethods.has(method)) {
          throw new TownError('notImplemented', `no route takes the method ${method}; routes take GET, HEAD and POST`, { hintHref: '/AGENTS.md/api' });
        }
        const path = ctx.path;
        // The table's first route for this path and method answers (as the router's chain would:
        // a route's work never passes the request on).
        const { layer, onPath } = index.match(path, method);
        if (!layer) throw unmatched(ctx as TownContext, onPath);
        const entry = entries.get(layer) as Entry;
        route = entry.route;
        const params = layer.params(path, layer.captures(path));
        (ctx.request as { params?: Record<string, string> }).params = params;
        (ctx as { params?: Record<string, string> }).params = params;
        measured = await routeWork(ctx as TownContext, entry);
      } finally {
        inFlight--;
      }
      if (!measured) finishReply(ctx as TownContext);
    } catch (err) {
      fail(ctx as TownContext, err, route);
    }
  });

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
    if (inScratch) state.scratch = (ctx.params as Record<string, string> | undefined)?.name;

    if (r.auth === 'bearer') {
      const token = bearerToken(ctx);
      if (token === undefined) {
        throw new TownError('unauthenticated', 'this route needs the header `Authorization: Bearer <credential>`', {
          headers: { 'WWW-Authenticate': 'Bearer realm="town"' },
          hintHref: '/AGENTS.md',
        });
      }
      const caller = await authenticator.bearer(token);
      if (!caller) {
        throw new TownError('unauthenticated', 'the credential is not one this town issued, or it was revoked', {
          headers: { 'WWW-Authenticate': 'Bearer realm="town", error="invalid_token"' },
          hintHref: '/AGENTS.md',
        });
      }
      state.caller = caller;
    } else if (r.auth === 'optional') {
      // /xrpc also carries service JWTs the front cannot verify: an unverified bearer is left
      // to the handler, never refused here.
      const token = bearerToken(ctx);
      if (token !== undefined) state.caller = await authenticator.bearer(token);
    } else if (r.auth === 'cookie') {
      const session = ctx.cookies.get(sessionCookie);
      if (session) state.caller = await authenticator.session(session);
      if (!state.caller && r.signedOut === 'enter') {
        ctx.status = 303;
        ctx.redirect(`/enter?next=${encodeURIComponent(ctx.originalUrl)}`);
        ctx.status = 303;
        return false;
      }
    }

    const caller: Caller | undefined = state.caller;
    const budget = caller ? 'credential' : r.rate;
    if (budget !== 'none') {
      const d = limiters[budget].take(caller ? caller.credentialHash : state.address);
      state.rateLimit = { limit: d.limit, windowSeconds: d.windowSeconds, remaining: d.remaining };
      if (!d.ok) {
        const whose = caller ? 'this credential' : 'this address';
        throw new TownError('rateLimited', `over the rate limit: ${d.limit} calls in ${d.windowSeconds} s for ${whose}; retry after ${d.retryAfterSeconds} s`, {
          headers: { 'Retry-After': String(d.retryAfterSeconds) },
        });
      }
    }

    state.body = read || r.body ? await input(ctx, r, read) : undefined;
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
    jsonReply(ctx, out as Record<string, unknown>);
    return true;
  }

  function fail(ctx: TownContext, err: unknown, route: Route | undefined) {
    let failure: TownError | XrpcFailure;
    if (err instanceof TownError || err instanceof XrpcFailure) failure = err;
    else {
      logger.error('the front failed', { requestId: ctx.state.requestId, method: ctx.method, url: ctx.originalUrl, route: route?.name, error: errorText(err) });
      failure = new TownError('internal', 'the front failed; nothing was decided', { fields: { requestId: ctx.state.requestId } });
    }
    if (ctx.headerSent || !ctx.writable) return;
    for (const name of ctx.res.getHeaderNames()) if (name !== 'x-request-id') ctx.res.removeHeader(name);
    if (failure instanceof TownError && route?.reply === 'html' && ctx.accepts('json', 'html') === 'html') {
      const page = errorPage(failure);
      ctx.set(page.headers);
      ctx.status = page.status;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page.html;
      return;
    }
    const rendered = failure instanceof XrpcFailure || route?.reply === 'xrpc' ? xrpcError(failure, ctx.originalUrl) : envelope(failure, ctx.originalUrl);
    ctx.set(rendered.headers);
    ctx.status = rendered.status;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(rendered.body);
  }

  return app;
}

/** The token of `Authorization: Bearer <token>`, or undefined for any other form. */
function bearerToken(ctx: TownContext): string | undefined {
  const header = ctx.req.headers.authorization ?? '';
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return m ? m[1] : undefined;
}

async function input(ctx: TownContext, r: Route, read: ((ctx: TownContext) => Promise<Record<string, unknown> | undefined>) | undefined) {
  const raw = read ? await read(ctx) : undefined;
  if (!r.body) return raw;
  if (raw === undefined) {
    throw new TownError('badJson', `this route takes a JSON object body: ${shapeText(shapeOf(r.body))}`, { hintHref: '/AGENTS.md/api' });
  }
  return decode(r.body, raw, 'body');
}

function decodeQuery(ctx: TownContext, r: Route): Record<string, string | undefined> {
  if (!r.query && ctx.querystring === '') return {};
  const q = ctx.query as Record<string, string | string[] | undefined>;
  if (r.query) return decode(r.query, q, 'query') as Record<string, string | undefined>;
  const flat: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(q)) flat[k] = Array.isArray(v) ? v[0] : v;
  return flat;
}

function decode(codec: t.Type<any, any, unknown>, value: unknown, where: 'body' | 'query'): unknown {
  const r = codec.decode(value);
  if (r._tag === 'Right') return r.right;
  const { cls, message } = explain(r.left, where, codec);
  throw new TownError(cls, message, { hintHref: '/AGENTS.md/api' });
}

/** Serialise a JSON reply (once) and refuse one over the reply limit. Streams are not measured. */
function finishReply(ctx: TownContext) {
  const body: unknown = ctx.body;
  if (body == null || body instanceof Stream) return;
  let size: number;
  if (typeof body === 'string') size = Buffer.byteLength(body);
  else if (Buffer.isBuffer(body)) size = body.length;
  else {
    const text = JSON.stringify(body);
    ctx.body = text;
    size = Buffer.byteLength(text);
  }
  measure(size);
}

function measure(size: number) {
  if (size > limits.replyBytes) {
    throw new TownError('replyTooLarge', `the reply would be ${size} bytes, over the limit of ${limits.replyBytes}; ask for less (compact=1, a page)`);
  }
}

const jsonType = 'application/json; charset=utf-8';

/**
 * A handler's object as the reply: its fields, then `_links` (self, api, then the handler's
 * own), serialised once and measured. The same bytes and headers as setting `ctx.body` to the
 * object and letting koa serialise it, without building the object twice.
 */
function jsonReply(ctx: TownContext, out: Record<string, unknown>) {
  let text: string;
  const proto: unknown = Object.getPrototypeOf(out);
  if ((proto !== Object.prototype && proto !== null) || '_links' in out || 'toJSON' in out) {
    const { _links, ...rest } = out as { _links?: Links };
    text = JSON.stringify({ ...rest, _links: replyLinks(ctx.originalUrl, _links) });
  } else {
    // `{...out, _links}` serialises as `out` with `_links` last: splice it into out's text.
    const own = JSON.stringify(out);
    const links = selfLinksJson(ctx.originalUrl);
    text = own.length === 2 ? `{"_links":${links}}` : `${own.slice(0, -1)},"_links":${links}}`;
  }
  measure(Buffer.byteLength(text));
  // As koa does for an object body: no stale length, a JSON type unless one is set.
  const response = ctx.response;
  response.remove('Content-Length');
  const type = response.type;
  if (!type || !/\bjson\b/i.test(type)) response.set('Content-Type', jsonType);
  ctx.body = text;
}

function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

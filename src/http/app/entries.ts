/**
 * The route table as the front serves it: one entry per row (its handler, body reader, meter),
 * and the match of a request's method and path to its entry and parameters. The router only
 * matches (one table, in order; route-match.ts looks only at the routes under the request's
 * first two segments); the front runs each route's work itself (route-work.ts).
 */
import Router from '@koa/router';
import type { BodyReader } from '../front/decode.js';
import type { FrontObserver } from '../front/observe.js';
import type { AnyHandler, TownContext, TownState } from '../handler.js';
import { readBody } from '../request-body.js';
import { RouteIndex } from '../route-match.js';
import { heapPrefix, type Route } from '../routes.js';
import type { RouteMeter } from '../../operations/metrics.js';
import { unmatched } from './fallthrough.js';
import type { HandlerOf } from './handler-table.js';

/** A route of the table with what the front needs to serve it. */
export interface Entry {
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

/** A request's route and its decoded parameters (frozen: every request of that path shares them). */
export interface Matched {
  entry: Entry;
  params: Readonly<Record<string, string>>;
}

/** How many matched paths the front keeps (past it, it starts over). */
const seenPaths = 4096;
/** Longer paths are matched every time (so the kept ones stay a few hundred kilobytes at most). */
const seenPathLength = 200;

/** The entries of `table`, and the match of a request to one (404 / 405 when none takes it). */
export function routeEntries(table: readonly Route[], handlerOf: HandlerOf, observer: FrontObserver): (ctx: TownContext, method: string) => Matched {
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
  // The same paths come again and again (an agent reading its lamp): their match is kept. Only
  // matches are kept, of paths up to `seenPathLength`, and at most `seenPaths` of them.
  const seen = new Map<string, Matched>();
  return (ctx, method) => {
    const path = ctx.path;
    // The table's first route for this path and method answers (as the router's chain would:
    // a route's work never passes the request on).
    const key = `${method} ${path}`;
    let matched = seen.get(key);
    if (matched === undefined) {
      const { layer, onPath } = index.match(path, method);
      if (!layer) throw unmatched(ctx, onPath);
      matched = { entry: entries.get(layer) as Entry, params: Object.freeze(layer.params(path, layer.captures(path))) };
      if (path.length <= seenPathLength) {
        if (seen.size >= seenPaths) seen.clear();
        seen.set(key, matched);
      }
    }
    return matched;
  };
}

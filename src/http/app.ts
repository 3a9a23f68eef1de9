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
 *
 * Its parts (src/http/app/): the rows' handlers (handler-table.ts), the table's entries and the
 * match of a request to one (entries.ts), the refusals when none takes it (fallthrough.ts), the
 * request's middleware (request.ts) and a route's own work (route-work.ts).
 */
import Koa from 'koa';
import type { Authenticator } from '../contract/caller.js';
import type { Clock } from '../contract/clock.js';
import { limits } from '../contract/limits.js';
import { defaultLimiters, type Limiters } from '../contract/rate-limit.js';
import type { TownConfig } from '../contract/town-config.js';
import { errorText, type Logger, stderrLogger } from './front/failure.js';
import { FrontObserver, type Observation } from './front/observe.js';
import type { TownState } from './handler.js';
import type { SomeHandlers } from './route-types.js';
import { type Route, routesFor } from './routes.js';
import { routeEntries } from './app/entries.js';
import { methodGate } from './app/fallthrough.js';
import { handlerTable } from './app/handler-table.js';
import { frontRequest } from './app/request.js';
import { routeWork } from './app/route-work.js';

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

export function createApp(options: AppOptions): TownApp {
  const { config, authenticator, clock } = options;
  const logger = options.logger ?? stderrLogger;
  const limiters = options.limiters ?? defaultLimiters(clock);
  const workers = options.workers ?? limits.workers;
  const townOpen = options.townOpen ?? (() => config.open);
  const table = routesFor(true, config.catalogue);
  const earlierShape = config.catalogue === 'earlier';
  const observer = new FrontObserver(options.observation ?? {});
  const gate = methodGate(table);
  const handlerOf = handlerTable(config, townOpen, options.handlers);

  const app = new Koa<TownState>() as TownApp;
  app.townRoutes = table;
  app.limiters = limiters;
  app.on('error', (err: unknown) => logger.error('reply failed after it started', { error: errorText(err) }));

  const match = routeEntries(table, handlerOf, observer);
  const work = routeWork({ authenticator, limiters, townOpen, earlierShape });
  const front = frontRequest({ app, workers, gate, match, work, observer, logger, authenticator, earlierShape });
  app.inFlight = front.inFlight;
  app.use(front.middleware);
  return app;
}

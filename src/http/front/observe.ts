/**
 * The front's observations of every request (issue 22, items 1 and 2): its request id, one log
 * line when it is answered (request id, method, route name, status, duration, principal hash)
 * and its route's counts and latency. Called by app.ts's one middleware, at the start and at
 * the end of a request, with what it already holds: nothing here makes a closure or a label set
 * per request (a route's meter is made once, with the app), and the line is one pino call.
 *
 * Never logged: a header, the URL (a query may carry a code), a body, a credential or a cookie.
 * The principal is logged as a keyed hash (src/operations/log.ts).
 */
import { randomBytes } from 'node:crypto';
import { Stream } from 'node:stream';
import { TownError } from '../../contract/town-error.js';
import type { RouteMeter, TownMetrics } from '../../operations/metrics.js';
import { principalHasher, type TownLog } from '../../operations/log.js';
import type { TownContext } from '../handler.js';

export interface Observation {
  /** Where the lines go; none: no request lines. */
  log?: TownLog;
  metrics?: TownMetrics;
  /** The principal as the log names it. */
  principalHash?: (principal: string) => string;
}

/** What a caller may send as X-Request-Id and have echoed: a token of 1–64 plain characters. */
const saneRequestId = /^[A-Za-z0-9._:+=@-]{1,64}$/;

/** The caller's X-Request-Id when it is sane, else undefined (the front makes one). */
export function givenRequestId(ctx: TownContext): string | undefined {
  const given = ctx.req.headers['x-request-id'];
  return typeof given === 'string' && saneRequestId.test(given) ? given : undefined;
}

/** Requests that matched no route (404, 405, 501) are counted under one name, not their paths. */
export const unmatchedRoute = 'unmatched';

export class FrontObserver {
  private readonly log: TownLog | undefined;
  private readonly metrics: TownMetrics | undefined;
  private readonly hash: (principal: string) => string;
  readonly unmatched: RouteMeter | undefined;

  constructor(o: Observation) {
    // LOG_LEVEL is read once: above info, no request line is even built.
    this.log = o.log?.isLevelEnabled('info') ? o.log : undefined;
    this.metrics = o.metrics;
    // Never the principal itself: without the town's hasher, one keyed by this process alone.
    this.hash = o.principalHash ?? principalHasher(randomBytes(32));
    this.unmatched = o.metrics?.meter(unmatchedRoute);
  }

  /** A route's meter, made once when the app is built. */
  meter(route: string): RouteMeter | undefined {
    return this.metrics?.meter(route);
  }

  /** A failure the front answered with its envelope, counted by class. */
  failed(err: unknown): void {
    if (this.metrics && err instanceof TownError) this.metrics.failures.inc({ class: err.cls });
  }

  /**
   * The request is answered (its status and body are set): count it under its route, log its
   * line, and count a live stream while it is open.
   */
  answered(ctx: TownContext, meter: RouteMeter | undefined, started: number, stream: boolean): void {
    const ms = performance.now() - started;
    // The response's own status: a stream that writes its head itself (ctx.respond = false) too.
    const res = ctx.res;
    const status = res.statusCode;
    meter?.observe(status, ms / 1000);
    const state = ctx.state;
    // The table's name (`scratch.turn` for a scratch world's turn), as the metrics name it.
    const route = meter?.route ?? state.route ?? unmatchedRoute;
    if (stream && this.metrics && status === 200 && !res.writableEnded && (ctx.respond === false || ctx.body instanceof Stream)) this.streamOpened(ctx, route);
    if (!this.log) return;
    const caller = state.caller;
    const rounded = Math.round(ms * 100) / 100;
    this.log.info(
      caller
        ? { req: state.requestId, method: ctx.method, route, status, ms: rounded, principal: this.hash(caller.principal) }
        : { req: state.requestId, method: ctx.method, route, status, ms: rounded },
      'request',
    );
  }

  private streamOpened(ctx: TownContext, route: string): void {
    const gauge = this.metrics!.streams;
    gauge.inc({ route });
    ctx.res.once('close', () => gauge.dec({ route }));
  }
}

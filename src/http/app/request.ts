/**
 * The one middleware every request goes through, outside in: request id and address; the reply
 * (every failure becomes its envelope; JSON is serialised once and measured); the in-flight
 * limit; the method gate (501); the route (404 / 405); then the route's own work (route-work.ts).
 * Plain calls, not a chain of middleware, because every layer of koa-compose costs a promise,
 * a bound function and a closure on every request.
 */
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import type { Authenticator } from '../../contract/caller.js';
import { TownError } from '../../contract/town-error.js';
import { earlierFailure } from '../front/earlier-reply.js';
import { type Logger, replyFailure } from '../front/failure.js';
import { type FrontObserver, givenRequestId } from '../front/observe.js';
import { finishReply } from '../front/reply.js';
import { setSecurityHeaders } from '../front/security.js';
import type { TownContext, TownState } from '../handler.js';
import type { Entry, Matched } from './entries.js';
import type { methodGate } from './fallthrough.js';
import type { RouteWork } from './route-work.js';

export interface RequestParts {
  /** The app: whether it trusts a proxy for the caller's address. */
  app: Pick<Koa<TownState>, 'proxy'>;
  /** Requests worked on at once before `busy`. */
  workers: number;
  gate: ReturnType<typeof methodGate>;
  match: (ctx: TownContext, method: string) => Matched;
  work: RouteWork;
  observer: FrontObserver;
  logger: Logger;
  authenticator: Authenticator;
  /** Failures in the earlier catalogue's shape. */
  earlierShape: boolean;
}

export function frontRequest({ app, workers, gate, match, work, observer, logger, authenticator, earlierShape }: RequestParts) {
  const boot = randomBytes(3).toString('hex');
  let served = 0;
  let inFlight = 0;
  const middleware = async (ctx: Koa.ParameterizedContext<TownState>) => {
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
        if (!gate.taken.has(method)) throw gate.notImplemented(method);
        const matched = match(ctx as TownContext, method);
        entry = matched.entry;
        const params = matched.params;
        (ctx.request as { params?: Record<string, string> }).params = params;
        (ctx as { params?: Record<string, string> }).params = params;
        measured = await work(ctx as TownContext, entry);
      } finally {
        inFlight--;
      }
      if (!measured) finishReply(ctx as TownContext);
    } catch (err) {
      observer.failed(err);
      await replyFailure(ctx as TownContext, earlierShape ? earlierFailure(err) : err, entry?.route, logger, authenticator);
    }
    observer.answered(ctx as TownContext, entry ? entry.meter : observer.unmatched, started, entry?.stream === true);
  };
  return { middleware, inFlight: () => inFlight };
}

/**
 * The front's observations of every request: its request id, one log
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
import { pino } from 'pino';
import { TownError } from '../../contract/town-error.js';
import type { RouteMeter, TownMetrics } from '../../operations/metrics.js';
import { principalHasher, type TownLog } from '../../operations/log.js';
import type { TownContext } from '../handler.js';
import { givenRequestId } from '../../operations/request-id.js';

export interface Observation {
  /** Where the lines go; none: no request lines. */
  log?: TownLog;
  metrics?: TownMetrics;
  /** The principal as the log names it. */
  principalHash?: (principal: string) => string;
}

/** The front reads the caller's request id as the start-up page does (src/operations/request-id.ts). */
export { givenRequestId };

/** Requests that matched no route (404, 405, 501) are counted under one name, not their paths. */
export const unmatchedRoute = 'unmatched';

export class FrontObserver {
  private readonly log: TownLog | undefined;
  private readonly metrics: TownMetrics | undefined;
  private readonly hash: (principal: string) => string;
  readonly unmatched: RouteMeter | undefined;
  private readonly direct: RequestLine | undefined;

  constructor(o: Observation) {
    // LOG_LEVEL is read once: above info, no request line is even built.
    this.log = o.log?.isLevelEnabled('info') ? o.log : undefined;
    this.metrics = o.metrics;
    // Never the principal itself: without the town's hasher, one keyed by this process alone.
    this.hash = o.principalHash ?? principalHasher(randomBytes(32));
    this.unmatched = o.metrics?.meter(unmatchedRoute);
    this.direct = this.log ? requestLine(this.log) : undefined;
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
    if (this.direct) {
      this.direct(state.requestId, ctx.method, route, status, rounded, caller ? this.hash(caller.principal) : undefined);
      return;
    }
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

type RequestLine = (req: string, method: string, route: string, status: number, ms: number, principal: string | undefined) => void;

/** The fields of a request line, and its message, as pino names them. */
const lineKeys = ['req', 'method', 'route', 'status', 'ms', 'principal'];

/**
 * The request line written as pino writes `log.info({req, method, route, status, ms, principal},
 * 'request')`, byte for byte, from pino's own pieces (level, time, bindings, end), without its
 * general path: every request writes one, and pino's key-by-key work was most of what a read
 * spent on its line. Only for a logger with nothing that would change the line: no mixin, log
 * formatter, hook, nested key, message prefix, serializer or redaction of these fields, and a
 * destination that takes plain lines; for any other, undefined (pino's own call is used).
 * The values are the front's own: names, numbers, and a request id limited to plain characters.
 */
export function requestLine(log: TownLog): RequestLine | undefined {
  const s = pino.symbols;
  const at = log as unknown as Record<symbol, unknown>;
  const serializers = (at[s.serializersSym] ?? {}) as Record<string, unknown>;
  const stringifiers = (at[s.stringifiersSym] ?? {}) as Record<string | symbol, unknown>;
  const formatters = (at[s.formattersSym] ?? {}) as { log?: unknown };
  const hooks = (at[s.hooksSym] ?? {}) as { logMethod?: unknown; streamWrite?: unknown };
  const stream = at[s.streamSym] as { write?: (line: string) => unknown } & Record<symbol, unknown>;
  const messageKey = at[s.messageKeySym];
  const time = at[s.timeSym] as (() => string) | undefined;
  const level = (at[s.lsCacheSym] as Record<number, string> | undefined)?.[30];
  const chindings = at[s.chindingsSym];
  const end = at[s.endSym];
  const plain =
    !at[s.mixinSym] &&
    !formatters.log &&
    !hooks.logMethod &&
    !hooks.streamWrite &&
    !at[s.nestedKeySym] &&
    !at[(s as unknown as Record<string, symbol>).msgPrefixSym!] &&
    stringifiers[s.wildcardFirstSym] === undefined &&
    typeof messageKey === 'string' &&
    [...lineKeys, messageKey].every((k) => serializers[k] === undefined && stringifiers[k] === undefined) &&
    typeof time === 'function' &&
    typeof level === 'string' &&
    typeof chindings === 'string' &&
    typeof end === 'string' &&
    typeof stream?.write === 'function' &&
    stream[s.needsMetadataGsym] !== true;
  if (!plain) return undefined;
  const message = `,${JSON.stringify(messageKey)}:"request"${end}`;
  // Called with pino's own `this`, as pino calls it.
  const now = time.bind(log);
  return (req, method, route, status, ms, principal) => {
    const tail = principal === undefined ? message : `,"principal":${JSON.stringify(principal)}${message}`;
    stream.write!(
      `${level}${now()}${chindings},"req":${JSON.stringify(req)},"method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status},"ms":${Number.isFinite(ms) ? ms : null}${tail}`,
    );
  };
}

/**
 * The seam between the HTTP machinery (src/http: route table, envelope, limits, auth, rate
 * limits) and the rooms that own behaviour (identity, world, scratch, feed, pages).
 *
 * A room exports a factory that takes its dependencies and returns handlers keyed by route
 * name, typed by route-types.ts from the route table (src/http/routes.ts). A handler either returns a
 * JSON-able object, which the machinery sends with status 200 (or `ctx.status` if the handler
 * set one) and `_links` merged in; or sets `ctx.body` itself (text, HTML, SSE) and returns
 * undefined. Failures are thrown as TownError and become the spec 2.10 envelope.
 */
import type { ParameterizedContext } from 'koa';
import type { Caller } from '../contract/caller.js';

export interface TownState {
  /** The body after io-ts decoding against the route's codec (undefined if the route has none). */
  body: unknown;
  /** The query after decoding against the route's query codec. */
  query: Record<string, string | undefined>;
  /** Present on bearer/cookie routes (required) and on optional routes when given. */
  caller?: Caller;
  /**
   * The verified session id of a cookie caller (set by the auth step): the key of the session's
   * page budget and of its share of the live streams.
   */
  session?: string;
  /** Remote address used for per-address limits. */
  address: string;
  requestId: string;
  route: string;
  /** Scratch world name when the route was reached through /AGENTS.md/scratch/{name}/… */
  scratch?: string;
  /**
   * The caller's rate budget after this call was counted (set by the front on rate-limited
   * routes); `me.rateLimit` reports exactly this, so both read the same counter.
   */
  rateLimit?: { limit: number; windowSeconds: number; remaining: number };
}

/** Name of the browser session cookie (set by accept/arrive/enter, read by the front). */
export const sessionCookie = 'town_session';

export type TownContext = ParameterizedContext<TownState>;
/**
 * A handler as the front holds it, whatever its route: each is written against its own row's
 * types (route-types.ts) and the front calls it only for that row, after decoding.
 */
export type AnyHandler = (ctx: TownContext) => Promise<unknown>;

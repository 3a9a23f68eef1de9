/**
 * A request's context as the town's koa app holds it: the koa context with the state the front
 * sets (decoded body and query, the caller, the session, the request id…). Handlers, pages and
 * the front all read it; it sits in the contract, below the pages and the front, so pages can
 * take it without reaching up into src/http.
 */
import type { ParameterizedContext } from 'koa';
import type { Caller } from './caller.js';

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

/**
 * Set on a request another front of the box relayed here (an MCP session's, src/town/mcp-relay.ts):
 * that front spent the caller's rate budget already, so this one does not spend it again.
 */
export const relayedRequest: unique symbol = Symbol('relayed by another front of the box');

/** Name of the browser session cookie (set by accept/arrive/enter, read by the front). */
export const sessionCookie = 'town_session';

export type TownContext = ParameterizedContext<TownState>;

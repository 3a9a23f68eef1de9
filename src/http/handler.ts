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
import type { TownContext } from '../contract/town-context.js';

/** The request's context (src/contract/town-context.ts): what every handler is given. */
export { sessionCookie, type TownContext, type TownState } from '../contract/town-context.js';

/**
 * A handler as the front holds it, whatever its route: each is written against its own row's
 * types (route-types.ts) and the front calls it only for that row, after decoding.
 */
export type AnyHandler = (ctx: TownContext) => Promise<unknown>;

/**
 * Types a handler takes from its row of the route table (routes.ts): the body and query are what
 * the row's io-ts codecs decode to, the path parameters are read off the row's path, and the
 * caller is present whenever the row's auth guarantees one. The front decodes before it calls,
 * so a handler never casts what it was given; a handler bound to a name no row has, or a row
 * left without a handler, does not compile (see `RoomHandlers` and `HandlerTable`).
 */
import type * as t from 'io-ts';
import type { ParameterizedContext } from 'koa';
import type { Caller } from '../contract/caller.js';
import type { TownState } from './handler.js';
import type { RouteName, RouteRow } from './routes.js';

export type RowOf<K extends RouteName> = Extract<RouteRow, { name: K }>;

/** The decoded body: the codec's type, or nothing on a route that takes none. */
export type BodyOf<K extends RouteName> = RowOf<K> extends { body: t.Type<infer A, any, any> } ? A : undefined;

/** Query fields with no codec arrive as text, the first of repeated ones. */
type RawQuery = Record<string, string | undefined>;
export type QueryOf<K extends RouteName> = RowOf<K> extends { query: t.Type<infer A, any, any> } ? A : RawQuery;

/** `/AGENTS.md/world/:object/:method` → `{object: string; method: string}`. */
export type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [N in Name]: string } & ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [N in Name]: string }
    : Record<never, string>;

/**
 * Bearer routes and cookie routes that send the signed-out to /enter or refuse them always have
 * a caller by the time the handler runs; others may.
 */
export type CallerOf<K extends RouteName> = RowOf<K> extends { auth: 'bearer' } | { signedOut: 'enter' | 'refuse' } ? Caller : Caller | undefined;

export type RouteState<K extends RouteName> = Omit<TownState, 'body' | 'query' | 'caller'> & {
  body: BodyOf<K>;
  query: QueryOf<K>;
  caller: CallerOf<K>;
};

export type RouteContext<K extends RouteName> = ParameterizedContext<RouteState<K>> & {
  params: ParamsOf<RowOf<K>['path']>;
};

/**
 * A route's handler: returns a JSON-able object (sent with `_links` merged in), or sets
 * `ctx.body` itself (text, HTML, SSE) and returns undefined. Failures are thrown as TownError.
 */
export type RouteHandler<K extends RouteName> = (ctx: RouteContext<K>) => Promise<object | undefined>;

/** What a room provides: exactly the handlers of the routes it names, each typed by its row. */
export type RoomHandlers<K extends RouteName> = { [N in K]: RouteHandler<N> };

/**
 * A route the town does not serve yet: it answers 501 naming the route, and the catalogue marks
 * it `built: false`. Listing it is a decision the composition root states, not an accident of a
 * missing key.
 */
export const notBuilt = Symbol('not built');
export type NotBuilt = typeof notBuilt;

/** Every route of the table, each bound to its handler or stated as not built. */
export type HandlerTable = { [K in RouteName]: RouteHandler<K> | NotBuilt };

/** The routes the front serves itself (front/own-routes.ts): no room binds them. */
export type FrontRoute = 'guide' | 'api' | 'examples' | 'doc' | 'llmsTxt' | 'health';

/** What the rooms must bind: every route but the front's own (guide, catalogue, examples, health). */
export type RoomTable = Omit<HandlerTable, FrontRoute>;

/** A partial table (tests plug in the few handlers they exercise). */
export type SomeHandlers = Partial<HandlerTable>;

/** Marks routes as not built, for the composition root's table. */
export function unbuilt<K extends RouteName>(...names: K[]): { [N in K]: NotBuilt } {
  return Object.fromEntries(names.map((n) => [n, notBuilt])) as { [N in K]: NotBuilt };
}

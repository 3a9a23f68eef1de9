/**
 * A route's own handler, called for an MCP tool, a resource read or a resource listing: the
 * arguments are decoded by the row's codecs (front/decode.ts, so a refusal is the HTTP one), the
 * handler runs on a context holding what the front would have put there (caller, body, query,
 * params, the rate budget this call spent), and the reply is the HTTP reply's JSON
 * (front/reply.ts) or the envelope of its failure (src/contract/envelope.ts). Nothing here decides anything
 * about the town: the handlers, and the queries and commands they call, do.
 *
 * What a handler may use of its context here: `state`, `params`, `method`, `path`, `url`,
 * `originalUrl`, `querystring`, `status`, `body`, `get`/`set` of headers (none are read; any set
 * are dropped) and `accepts`. Cookies, redirects and streams are the HTTP front's alone: a route
 * that needs them is no agent route.
 */
import type { Caller } from '../contract/caller.js';
import { TownError } from '../contract/town-error.js';
import { envelope } from '../contract/envelope.js';
import { decode } from '../http/front/decode.js';
import { errorText } from '../http/front/failure.js';
import type { Logger } from '../operations/log.js';
import { measureReply, replyObject } from '../http/front/reply.js';
import type { AnyHandler, TownContext, TownState } from '../http/handler.js';
import { hrefOf, type RouteName } from '../http/routes.js';
import { routeArguments, type TownTool } from './tools.js';

/** A route's answer: its JSON (the HTTP reply's, or the envelope) and that JSON as text. */
export interface RouteReply {
  json: Record<string, unknown>;
  text: string;
  /** The HTTP status the route would have answered with (200 for a reply, refusals included). */
  status: number;
  /** An HTTP-level failure (the envelope), not a reply. */
  error: boolean;
}

/** Who calls, as the front verified it for the /mcp request carrying this call. */
export interface Calling {
  caller: Caller;
  rateLimit?: TownState['rateLimit'];
  requestId: string;
  address: string;
}

/** The part of a koa context a route handler may use when a tool calls it (see above). */
class ToolContext {
  status = 200;
  body: unknown = undefined;
  constructor(
    readonly state: TownState,
    readonly params: Record<string, string>,
    readonly method: string,
    readonly originalUrl: string,
  ) {}
  get url(): string {
    return this.originalUrl;
  }
  get path(): string {
    const q = this.originalUrl.indexOf('?');
    return q < 0 ? this.originalUrl : this.originalUrl.slice(0, q);
  }
  get querystring(): string {
    const q = this.originalUrl.indexOf('?');
    return q < 0 ? '' : this.originalUrl.slice(q + 1);
  }
  get(_header: string): string {
    return '';
  }
  set(_header: string | Record<string, string>, _value?: string): void {}
  vary(_header: string): void {}
  accepts(...types: string[]): string | false {
    return types.find((t) => t.includes('json')) ?? false;
  }
}

/** Query values as text for an href (the codec has checked them, or is about to refuse them). */
function hrefQuery(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/** Calls the route of `tool` with `args` as `who`; never throws (a failure is its envelope). */
export async function callRoute(
  tool: TownTool,
  handler: AnyHandler,
  args: Record<string, unknown> | undefined,
  who: Calling,
  logger: Logger,
): Promise<RouteReply> {
  const r = tool.route;
  let self = r.path;
  try {
    const a = routeArguments(tool, args);
    const inScratch = a.scratch !== undefined;
    const params = inScratch ? { ...a.params, name: a.scratch as string } : a.params;
    // The href the HTTP route has for this very request: the reply's `self`, as over HTTP.
    self = hrefOf((inScratch ? `scratch.${r.name}` : r.name) as RouteName, params, hrefQuery(a.query));
    const query = (r.query ? decode(r.query, a.query, 'query') : {}) as TownState['query'];
    const body = r.body ? decode(r.body, a.body, 'body') : a.body;
    const state: TownState = {
      body,
      query,
      caller: who.caller,
      address: who.address,
      requestId: who.requestId,
      route: r.name,
      ...(inScratch ? { scratch: a.scratch } : {}),
      ...(who.rateLimit ? { rateLimit: who.rateLimit } : {}),
    };
    const ctx = new ToolContext(state, params, r.method, self);
    const out = await handler(ctx as unknown as TownContext);
    if (typeof out === 'object' && out !== null && !Array.isArray(out)) {
      const json = replyObject(self, out as Record<string, unknown>);
      const text = JSON.stringify(json);
      measureReply(Buffer.byteLength(text));
      return { json, text, status: ctx.status, error: false };
    }
    if (out !== undefined) throw new Error(`handler ${r.name} returned ${Array.isArray(out) ? 'a list' : typeof out}; handlers return objects`);
    // A route that answers text: the text, and no structure.
    const text = ctx.body == null ? '' : String(ctx.body);
    return { json: {}, text, status: ctx.status, error: false };
  } catch (err) {
    return failure(err, self, who, r.name, logger);
  }
}

/** A failure as the envelope the HTTP route would have answered; anything unforeseen is `internal`. */
export function failure(err: unknown, self: string, who: Pick<Calling, 'requestId'>, route: string, logger: Logger): RouteReply {
  let e: TownError;
  if (err instanceof TownError) e = err;
  else {
    logger.error('an MCP call failed', { requestId: who.requestId, route, error: errorText(err) });
    e = new TownError('internal', 'the front failed; nothing was decided', { fields: { requestId: who.requestId } });
  }
  const rendered = envelope(e, self);
  return { json: rendered.body, text: JSON.stringify(rendered.body), status: rendered.status, error: true };
}

/**
 * A route's work, in order: enter (open-only routes, scratch name) → auth → rate limit → body
 * (413, badJson) and query → codecs (hostRequest) → handler (501 while not built) → `_links`.
 */
import type { Authenticator } from '../../contract/caller.js';
import type { Limiters } from '../../contract/rate-limit.js';
import { TownError } from '../../contract/town-error.js';
import { authenticate } from '../front/authenticate.js';
import { decodeBody, decodeQuery } from '../front/decode.js';
import { earlierReply } from '../front/earlier-reply.js';
import { spendRate } from '../front/rate.js';
import { jsonReply } from '../front/reply.js';
import type { TownContext } from '../handler.js';
import { heapPrefix, heapWorld } from '../routes.js';
import type { Entry } from './entries.js';

export interface RouteWorkParts {
  authenticator: Authenticator;
  limiters: Limiters;
  townOpen: () => boolean | Promise<boolean>;
  /** Replies in the earlier catalogue's shape. */
  earlierShape: boolean;
}

/** Resolves true when it serialised and measured a JSON reply itself. */
export type RouteWork = (ctx: TownContext, entry: Entry) => Promise<boolean>;

export function routeWork({ authenticator, limiters, townOpen, earlierShape }: RouteWorkParts): RouteWork {
  return async (ctx, { route: r, name: routeName, handler, read, inScratch }) => {
    const state = ctx.state;
    state.route = routeName;
    if (r.openOnly && !(await townOpen())) {
      throw new TownError('unknownRoute', `no route ${ctx.method} ${ctx.path} on an invited town; accept an invitation instead`, {
        hintHref: '/AGENTS.md/api',
      });
    }
    if (inScratch) state.scratch = r.path.startsWith(heapPrefix) ? heapWorld : (ctx.params as Record<string, string> | undefined)?.name;

    if (!(await authenticate(ctx, r, authenticator))) return false;
    spendRate(ctx, r, limiters);

    state.body = read || r.body ? await decodeBody(ctx, r, read) : undefined;
    state.query = decodeQuery(ctx, r);

    if (!handler) {
      throw new TownError('notImplemented', `route ${r.name} is not built yet`, { hintHref: '/AGENTS.md/api' });
    }
    const out = await handler(ctx);
    if (out === undefined) {
      if (ctx.body == null && ctx.status === 404) ctx.status = 204;
      return false;
    }
    if (typeof out !== 'object' || out === null || Array.isArray(out)) {
      throw new Error(`handler ${r.name} returned ${Array.isArray(out) ? 'a list' : typeof out}; handlers return objects`);
    }
    jsonReply(ctx, earlierShape ? earlierReply(out as Record<string, unknown>) : (out as Record<string, unknown>));
    return true;
  };
}

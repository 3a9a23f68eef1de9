/**
 * The rate step (spec 8, and our page budgets for signed-in people). Which budget a call spends:
 *
 * - a page or live stream for a signed-in browser: the session's page budget and its address's
 *   signed-in page budget, never the credential's API budget (a person clicking through pages
 *   and watching live ones must not use up what their programs may call);
 * - any other call with a verified credential: that credential's budget (an API call, a turn
 *   cast from /play, a post from /feed: the world is protected per credential whoever calls);
 * - anything else: its address's budget of the row's class;
 * - routes every agent must be able to read (guide, catalogue, assets, health): none.
 *
 * A live stream is one call when it connects, however many events it then carries.
 */
import type { Limiters, RateLimiter } from '../../contract/rate-limit.js';
import { TownError } from '../../contract/town-error.js';
import type { TownContext } from '../handler.js';
import { relayedRequest } from '../../contract/town-context.js';
import type { Route } from '../routes.js';

export function spendRate(ctx: TownContext, r: Route, limiters: Limiters): void {
  if (r.rate === 'none') return;
  // Relayed from the front that took it, which spent the budget (the budgets are shared).
  if ((ctx.req as { [relayedRequest]?: true })[relayedRequest]) return;
  const state = ctx.state;
  const caller = state.caller;
  if (r.rate === 'page' && caller && state.session !== undefined) {
    spend(ctx, limiters.session, state.session, 'pages for this session');
    spend(ctx, limiters.signedIn, state.address, 'pages for the signed-in sessions of this address');
    return;
  }
  if (caller) spend(ctx, limiters.credential, caller.credentialHash, 'calls for this credential');
  else spend(ctx, limiters[r.rate], state.address, r.rate === 'page' ? 'pages for this address' : 'calls for this address');
}

function spend(ctx: TownContext, limiter: RateLimiter, key: string, what: string): void {
  const d = limiter.take(key);
  ctx.state.rateLimit ??= { limit: d.limit, windowSeconds: d.windowSeconds, remaining: d.remaining };
  if (!d.ok) {
    throw new TownError('rateLimited', `over the rate limit: ${d.limit} ${what} in ${d.windowSeconds} s; retry after ${d.retryAfterSeconds} s`, {
      headers: { 'Retry-After': String(d.retryAfterSeconds) },
    });
  }
}

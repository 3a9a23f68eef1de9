/**
 * The rate step (spec 8): a call with a verified credential spends that credential's budget,
 * any other spends its address's budget of the row's class; routes every agent must be able to
 * read (guide, catalogue, assets, health) spend none.
 */
import type { Limiters } from '../../contract/rate-limit.js';
import { TownError } from '../../contract/town-error.js';
import type { TownContext } from '../handler.js';
import type { Route } from '../routes.js';

export function spendRate(ctx: TownContext, r: Route, limiters: Limiters): void {
  const state = ctx.state;
  const caller = state.caller;
  const budget = caller ? 'credential' : r.rate;
  if (budget === 'none') return;
  const d = limiters[budget].take(caller ? caller.credentialHash : state.address);
  state.rateLimit = { limit: d.limit, windowSeconds: d.windowSeconds, remaining: d.remaining };
  if (!d.ok) {
    const whose = caller ? 'this credential' : 'this address';
    throw new TownError('rateLimited', `over the rate limit: ${d.limit} calls in ${d.windowSeconds} s for ${whose}; retry after ${d.retryAfterSeconds} s`, {
      headers: { 'Retry-After': String(d.retryAfterSeconds) },
    });
  }
}

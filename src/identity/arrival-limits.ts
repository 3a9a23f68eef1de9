/**
 * Arrivals per hour (spec 4.1, 5, 8): 30 keys per address and 300 in all. These count keys the
 * town is about to issue (the service calls the gate once every check has passed), on the
 * front's own sliding-window limiter. Kept per front, like every rate limit here.
 */
import { limits } from '../contract/limits.js';
import { TownError } from '../contract/town-error.js';
import type { Clock } from '../contract/clock.js';
import { createLimiter, type RateLimiter } from '../contract/rate-limit.js';

const hour = 3600;
const everyone = 'all';

export interface ArrivalLimits {
  perAddress: RateLimiter;
  inAll: RateLimiter;
  /** Count one arrival from `address`, or throw `rateLimited` with Retry-After. */
  admit(address: string): void;
}

export function arrivalLimits(clock: Clock): ArrivalLimits {
  const perAddress = createLimiter({ limit: limits.arrivalPerAddressPerHour, windowSeconds: hour }, clock);
  const inAll = createLimiter({ limit: limits.arrivalInAllPerHour, windowSeconds: hour }, clock);
  return {
    perAddress,
    inAll,
    admit(address) {
      // Look at both before counting either, so that a refusal by one spends nothing of the other.
      const mine = perAddress.peek(address);
      const all = inAll.peek(everyone);
      if (mine.remaining === 0 || all.remaining === 0) {
        const retry = Math.max(
          mine.remaining === 0 ? perAddress.take(address).retryAfterSeconds : 0,
          all.remaining === 0 ? inAll.take(everyone).retryAfterSeconds : 0,
        );
        const which =
          mine.remaining === 0
            ? `${limits.arrivalPerAddressPerHour} arrivals an hour from one address`
            : `${limits.arrivalInAllPerHour} arrivals an hour in all`;
        throw new TownError('rateLimited', `over the arrival limit of ${which}`, {
          headers: { 'Retry-After': String(retry) },
          hint: `try again in ${retry} seconds`,
        });
      }
      perAddress.take(address);
      inAll.take(everyone);
    },
  };
}

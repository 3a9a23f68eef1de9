/**
 * Per-key rate limits of spec section 8, read as "at most `limit` calls in any `windowSeconds`".
 *
 * A sliding window log: each key keeps the times of its last `limit` admitted calls in a ring.
 * It is exact (no burst of 2×limit across a window edge, as fixed windows allow), `remaining` is
 * a whole count that `me.rateLimit` can report as it is, and `Retry-After` is the moment the
 * oldest call leaves the window. With limits of 16–32 the log costs at most 32 numbers a key;
 * the ring starts small and doubles only as calls arrive, so a generous limit (a test's or an
 * operator's) costs memory in proportion to use, never to the limit itself.
 * Refused calls are not logged, so a caller that keeps knocking is not locked out for longer.
 * Memory is bounded: idle keys (whose newest call left the window) are swept as calls arrive,
 * and beyond `maxKeys` the least recently used key is dropped.
 */
import { limits } from './limits.js';
import type { Clock } from './clock.js';

export interface RateBudget {
  limit: number;
  windowSeconds: number;
}

export interface RateStatus extends RateBudget {
  remaining: number;
}

export interface RateDecision extends RateStatus {
  ok: boolean;
  /** Whole seconds until a call would be admitted (0 when ok). */
  retryAfterSeconds: number;
}

export interface RateLimiter extends RateBudget {
  take(key: string): RateDecision;
  peek(key: string): RateStatus;
  /** Keys currently held (for tests and the memory bound). */
  readonly size: number;
}

interface Log {
  times: Float64Array; // ring of admitted call times, oldest at `head`
  head: number;
  count: number;
}

export function createLimiter(budget: RateBudget, clock: Clock, maxKeys = 100_000): RateLimiter {
  const { limit, windowSeconds } = budget;
  const windowMs = windowSeconds * 1000;
  const logs = new Map<string, Log>();

  const expire = (log: Log, now: number) => {
    while (log.count > 0 && log.times[log.head]! <= now - windowMs) {
      log.head = (log.head + 1) % log.times.length;
      log.count--;
    }
  };

  /** Room for one more admitted call: double the ring (oldest first) when it is full. */
  const grow = (log: Log) => {
    if (log.count < log.times.length) return;
    const times = new Float64Array(Math.min(limit, log.times.length * 2));
    for (let i = 0; i < log.count; i++) times[i] = log.times[(log.head + i) % log.times.length]!;
    log.times = times;
    log.head = 0;
  };

  // Map order is least-recently-used first: each take re-inserts its key at the end. Looking at
  // a couple of the oldest keys per call keeps idle keys from piling up at no per-call cost.
  const sweep = (now: number) => {
    let n = 0;
    for (const [key, log] of logs) {
      if (n++ >= 2) break;
      expire(log, now);
      if (log.count === 0) logs.delete(key);
      else break;
    }
  };

  return {
    limit,
    windowSeconds,
    get size() {
      return logs.size;
    },
    take(key) {
      const now = clock();
      sweep(now);
      let log = logs.get(key);
      if (log) logs.delete(key);
      else log = { times: new Float64Array(Math.min(limit, 8)), head: 0, count: 0 };
      logs.set(key, log);
      if (logs.size > maxKeys) logs.delete(logs.keys().next().value as string);
      expire(log, now);
      if (log.count < limit) {
        grow(log);
        log.times[(log.head + log.count) % log.times.length] = now;
        log.count++;
        return { ok: true, limit, windowSeconds, remaining: limit - log.count, retryAfterSeconds: 0 };
      }
      const wait = log.times[log.head]! + windowMs - now;
      return { ok: false, limit, windowSeconds, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
    },
    peek(key) {
      const log = logs.get(key);
      if (!log) return { limit, windowSeconds, remaining: limit };
      expire(log, clock());
      return { limit, windowSeconds, remaining: limit - log.count };
    },
  };
}

/** One limiter per budget of spec 8 (and the page budgets we add); the front and the identity room share these instances. */
export interface Limiters {
  /** ratePerCredential: every API call made with a verified credential (key: credential hash). */
  credential: RateLimiter;
  /** ratePerAddressOnChallengeAndVerify: accept, arrive, POST /enter (key: address). */
  identity: RateLimiter;
  /** ratePerAddressOnPagesWithoutLogin (key: address). */
  page: RateLimiter;
  /** ratePerAddressOnXrpcWithoutCredential (key: address). */
  xrpc: RateLimiter;
  /** ratePerSessionOnPages: pages and live streams of a signed-in browser (key: session). */
  session: RateLimiter;
  /** ratePerAddressOnPagesWithLogin: pages of every signed-in session at one address (key: address). */
  signedIn: RateLimiter;
}

type Budget = readonly [number, number];

export function createLimiters(
  clock: Clock,
  budgets: {
    credential: Budget;
    identity: Budget;
    page: Budget;
    xrpc: Budget;
    /** Default: ratePerSessionOnPages. */
    session?: Budget;
    /** Default: ratePerAddressOnPagesWithLogin. */
    signedIn?: Budget;
  },
  /** How a limiter is made: in this process's memory, or shared by the fronts of a box. */
  limiter: LimiterMaker = (_name, budget, clk) => createLimiter(budget, clk),
): Limiters {
  const make = (name: keyof Limiters, [limit, windowSeconds]: Budget) => limiter(name, { limit, windowSeconds }, clock);
  return {
    credential: make('credential', budgets.credential),
    identity: make('identity', budgets.identity),
    page: make('page', budgets.page),
    xrpc: make('xrpc', budgets.xrpc),
    session: make('session', budgets.session ?? limits.ratePerSessionOnPages),
    signedIn: make('signedIn', budgets.signedIn ?? limits.ratePerAddressOnPagesWithLogin),
  };
}

/** Makes the limiter of one budget, by the budget's name. */
export type LimiterMaker = (name: string, budget: RateBudget, clock: Clock) => RateLimiter;

/** The budgets of spec 8 as the front applies them. */
export function defaultLimiters(clock: Clock, limiter?: LimiterMaker): Limiters {
  return createLimiters(
    clock,
    {
      credential: limits.ratePerCredential,
      identity: limits.ratePerAddressOnChallengeAndVerify,
      page: limits.ratePerAddressOnPagesWithoutLogin,
      xrpc: limits.ratePerAddressOnXrpcWithoutCredential,
      session: limits.ratePerSessionOnPages,
      signedIn: limits.ratePerAddressOnPagesWithLogin,
    },
    limiter,
  );
}

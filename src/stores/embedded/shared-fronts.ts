/**
 * What the fronts of one box share (docs/decisions/embedded-fronts.md), in a small LMDB
 * environment under `<TOWN_DATA>/fronts` that every process of the box opens, written without
 * sync: what it holds matters for seconds and is worth nothing after a restart.
 * - Read-your-writes notes: per principal, the `$all` position its latest turn's answer depended
 *   on (src/queries/fresh.ts), so a read on any front waits for the turn made on another.
 * - Rate limits: each budget of spec 8 as one sliding-window log per key, the same as a single
 *   front keeps in memory (src/contract/rate-limit.ts), so a caller whose calls the load
 *   balancer spreads over the fronts gets exactly the budget, not one per front.
 * Each change is one synchronous write transaction: LMDB orders the fronts' writers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { Clock } from '../../contract/clock.js';
import type { RateBudget, RateLimiter } from '../../contract/rate-limit.js';

/** Keys of the environment: a note, or a limiter's log of admitted call times. */
type Key = ['note', string] | ['rate', string, string];

/** How often a front clears the logs whose newest call left their window. */
const SWEEP_MS = 60_000;

export class SharedFronts {
  private readonly sweeps = new Map<string, number>();

  private constructor(private readonly env: RootDatabase<unknown, Key>) {}

  static open(dataDir: string): SharedFronts {
    const dir = path.join(dataDir, 'fronts');
    fs.mkdirSync(dir, { recursive: true });
    return new SharedFronts(open<unknown, Key>({ path: dir, noSync: true, overlappingSync: false }));
  }

  /** The principal's note (a position), if a front of the box made one. */
  get(principal: string): bigint | undefined {
    const at = this.env.get(['note', principal]);
    return typeof at === 'string' ? BigInt(at) : undefined;
  }

  /**
   * Keeps the principal's note when it is newer than the one kept. Written before the turn's
   * answer leaves this front, so the guest's next read, on whichever front, finds it.
   */
  note(principal: string, position: bigint): void {
    this.env.transactionSync(() => {
      const had = this.env.get(['note', principal]);
      if (typeof had !== 'string' || BigInt(had) < position) this.env.putSync(['note', principal], position.toString());
    });
  }

  /** A limiter of `budget` whose logs every front of the box shares (`name` tells budgets apart). */
  limiter(name: string, budget: RateBudget, clock: Clock): RateLimiter {
    const { limit, windowSeconds } = budget;
    const windowMs = windowSeconds * 1000;
    const inWindow = (times: unknown, now: number): number[] => (Array.isArray(times) ? (times as number[]).filter((t) => t > now - windowMs) : []);
    const env = this.env;
    return {
      limit,
      windowSeconds,
      /** Keys with a log kept, for every front of the box. */
      get size() {
        return env.getKeysCount({ start: ['rate', name], end: ['rate', name, '\uffff'] });
      },
      take: (key) => {
        const now = clock();
        this.sweep(name, now, windowMs);
        return this.env.transactionSync(() => {
          const times = inWindow(this.env.get(['rate', name, key]), now);
          if (times.length < limit) {
            times.push(now);
            this.env.putSync(['rate', name, key], times);
            return { ok: true, limit, windowSeconds, remaining: limit - times.length, retryAfterSeconds: 0 };
          }
          const wait = times[0]! + windowMs - now;
          return { ok: false, limit, windowSeconds, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
        });
      },
      peek: (key) => ({ limit, windowSeconds, remaining: limit - inWindow(this.env.get(['rate', name, key]), clock()).length }),
    };
  }

  close(): Promise<void> {
    return this.env.close();
  }

  /** Now and then, the logs of a budget whose calls all left the window go (any front may). */
  private sweep(name: string, now: number, windowMs: number): void {
    if (now - (this.sweeps.get(name) ?? 0) < SWEEP_MS) return;
    this.sweeps.set(name, now);
    this.env.transactionSync(() => {
      for (const { key, value } of this.env.getRange({ start: ['rate', name], end: ['rate', name, '\uffff'] })) {
        const times = value as number[];
        if (!times.length || times[times.length - 1]! <= now - windowMs) this.env.removeSync(key);
      }
    });
  }
}

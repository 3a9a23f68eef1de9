/**
 * Stage 2, second gate (turn/decide-turn.ts): the opener's quiet and the open town's hourly
 * quota. Both journal nothing: nothing ran, and the same intent may be resent once they pass
 * (the receipt's `next` says when). REPL turns and cites pass the same gate.
 */
import type { KernelOptions } from '../options.js';
import type { Outcome } from '../outcome.js';
import { refusedBody, zeroUsage } from '../receipt.js';
import { hourMs, hourOf, turnsThisHour, type World } from '../world.js';

/** A `quiet` or `quota` refusal, or undefined when the principal may act now. */
export function quietOrQuota(world: World, principal: string, clock: number, options: KernelOptions, object: string, method: string): Outcome | undefined {
  const q = world.quiet.get(principal);
  if (q && q.until > clock) {
    return {
      kind: 'refused',
      receipt: refusedBody({ class: 'quiet', clause: new Date(q.until).toISOString(), reason: q.reading, next: q.until }, zeroUsage(), object, method),
    };
  }
  if (options.turnQuota !== undefined && turnsThisHour(world, principal, clock) >= options.turnQuota) {
    const next = (hourOf(clock) + 1) * hourMs;
    return {
      kind: 'refused',
      receipt: refusedBody({ class: 'quota', reason: `${options.turnQuota} turns an hour; this hour's are spent`, next }, zeroUsage(), object, method),
    };
  }
  return undefined;
}

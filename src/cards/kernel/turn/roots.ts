/**
 * Stage 2, last gate (turn/decide-turn.ts): the `if` roots. A turn may name the versions of the
 * cards it read; one that has moved (or that the guest may no longer see) refuses `moved`, and
 * nothing runs or is journaled: the guest reads again and resends under the same intent.
 */
import type { Outcome } from '../outcome.js';
import { refusedBody, zeroUsage } from '../receipt.js';
import { visibleCard, type World } from '../world.js';

export function movedRoot(
  world: World,
  roots: readonly { object: string; version: number }[] | undefined,
  principal: string,
  object: string,
  method: string,
): Outcome | undefined {
  if (!roots) return undefined;
  for (const root of roots) {
    const now = visibleCard(world, root.object, principal);
    if (!now || now.version !== root.version) {
      const where = now ? `stands at version ${now.version}` : 'is gone';
      return {
        kind: 'refused',
        receipt: refusedBody(
          { class: 'moved', reason: `${root.object} ${where}, not version ${root.version}; read it again and resend with new roots`, object: root.object },
          zeroUsage(),
          object,
          method,
        ),
      };
    }
  }
  return undefined;
}

/**
 * Stage 2, third gate (turn/decide-turn.ts): visibility. A card the guest may not see does not
 * exist for them: it is refused `unknownObject` exactly as an absent card is, so the refusal
 * tells nothing about cards hidden from them. The refusal is journaled (the intent is spent).
 */
import type { Refusal } from '../refusal.js';
import { visibleCard, type World } from '../world.js';

export function unseenObject(world: World, object: string, principal: string): Refusal | undefined {
  if (visibleCard(world, object, principal)) return undefined;
  return { class: 'unknownObject', reason: `no card ${JSON.stringify(object.slice(0, 128))} that you may see`, object };
}

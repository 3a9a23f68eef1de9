/**
 * The town's opener is the host itself (`town`, see src/town/world.ts): its moderation power `quiet`
 * is cast by the operator through the running town (`npm run town -- quiet …`), as a turn of the
 * host at the town card, decided by the world service like any other turn. The receipt says
 * whom and until when; the quieted guest's turns are refused `quiet` until then.
 */
import { TOWN } from '../cards/kernel/world.js';
import type { Receipt } from '../cards/kernel/outcome.js';
import type { WorldService } from './world-service.js';

export interface QuietOrder {
  /** A guest name, or a principal `guest:<host>:<name>`. */
  guest: string;
  /** Milliseconds since the epoch, or an ISO time with its zone. */
  until: string;
  reading?: string;
}

/** Casts `quiet` as the town's opener; answers the turn's receipt (done, or refused with why). */
export function openerQuiet(world: WorldService, clock: () => number): (order: QuietOrder) => Promise<Receipt> {
  let n = 0;
  return async (order) => {
    const decided = await world.submit({
      kind: 'turn',
      principal: TOWN,
      // The host's intents are its own: one a call, never repeated.
      intent: `operator:quiet:${clock()}:${++n}`,
      object: TOWN,
      method: 'quiet',
      fields: { guest: order.guest, until: order.until, ...(order.reading ? { reading: order.reading } : {}) },
    });
    const o = decided.outcome;
    if (o.kind === 'journal' || o.kind === 'refused' || o.kind === 'repeat') return o.receipt;
    throw new Error(`quiet was answered ${o.kind}`);
  };
}

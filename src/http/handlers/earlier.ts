/**
 * Handlers of the routes only the earlier catalogue shape has (spec 9; TOWN_CATALOGUE=earlier):
 * the private heap's card making and module check, and the `/o?object=` redirect. The heap is
 * one scratch world per guest (ScratchWorlds.heap); its world tails are the world room's,
 * reached with ctx.state.scratch = heapWorld. Receipts by intent or slug are the world room's
 * (`receiptEarlier`).
 */
import type { ScratchWorlds } from '../../commands/scratch-service.js';
import { ObjectId } from '../../contract/bodies.js';
import { TownError } from '../../contract/town-error.js';
import { checkOutcomeReply } from '../../queries/check-reply.js';
import type { ReadYourWrites } from '../../queries/fresh.js';
import { spellableId } from '../../queries/world-reads.js';
import type { RoomHandlers } from '../route-types.js';
import { heapWorld } from '../routes.js';
import { turnReply } from './world.js';

export interface EarlierDeps {
  scratches: ScratchWorlds;
  fresh: ReadYourWrites;
}

export type EarlierRoute = 'heapObjects' | 'checkEarlier' | 'cardPageQuery';

export function earlierHandlers(deps: EarlierDeps): RoomHandlers<EarlierRoute> {
  const { scratches, fresh } = deps;
  return {
    async heapObjects(ctx) {
      const caller = ctx.state.caller;
      const w = await scratches.heap(caller);
      const b = ctx.state.body;
      const object = spellableId(b.object);
      const decided = await w.service.submit({
        kind: 'create',
        principal: caller.principal,
        intent: b.intent,
        object,
        entry: b.entry,
        ...(b.source !== undefined ? { source: b.source } : {}),
        ...(b.modules !== undefined ? { modules: b.modules } : {}),
        ...(b.law !== undefined ? { law: b.law } : {}),
        ...(b.seed !== undefined ? { seed: b.seed } : {}),
      });
      fresh.note(caller.principal, decided.position);
      return turnReply(decided, object, {}, heapWorld);
    },

    // The library is the sealed one in every world, so the caller's heap checks as the town would.
    async checkEarlier(ctx) {
      const w = await scratches.heap(ctx.state.caller);
      const b = ctx.state.body;
      const decided = await w.service.submit({
        kind: 'check',
        ...(b.source !== undefined ? { source: b.source } : {}),
        ...(b.modules !== undefined ? { modules: b.modules } : {}),
        ...(b.entry !== undefined ? { entry: b.entry } : {}),
      });
      const reply = checkOutcomeReply(decided.outcome as Parameters<typeof checkOutcomeReply>[0]);
      const full = ctx.state.query.full === '1';
      return full ? reply : { ...reply, diagnostics: reply.diagnostics.map((d) => ({ ...d, message: d.message.split('\n')[0]! })) };
    },

    async cardPageQuery(ctx) {
      const object = ctx.state.query.object;
      if (object === undefined || !ObjectId.is(object)) {
        throw new TownError('hostRequest', '/o takes ?object=<id>: a card id (letters, digits, . _ : / -; 1..128)', { hintHref: '/AGENTS.md/api' });
      }
      ctx.redirect(`/o/${encodeURIComponent(object)}`);
      ctx.status = 303;
      return undefined;
    },
  };
}

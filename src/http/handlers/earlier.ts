/**
 * Handlers of the routes only the earlier catalogue shape has (spec 9; TOWN_CATALOGUE=earlier):
 * the private heap's card making and module check, and the `/o?object=` redirect. The heap is
 * one scratch world per guest (ScratchWorlds.heap); its world tails are the world room's,
 * reached with ctx.state.scratch = heapWorld. Receipts by intent or slug are the world room's
 * (`receiptEarlier`).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { TypedDataC } from '../../contract/typed.js';
import type { ScratchWorlds } from '../../commands/scratch-service.js';
import { links } from '../../contract/links.js';
import { ObjectId } from '../../contract/bodies.js';
import { TownError } from '../../contract/town-error.js';
import type { ReadYourWrites } from '../../queries/fresh.js';
import type { RoomHandlers } from '../route-types.js';
import { heapWorld } from '../routes.js';
import { hrefIn, turnReply } from './world.js';
import { checkIn, createIn } from './scratch.js';

export interface EarlierDeps {
  scratches: ScratchWorlds;
  fresh: ReadYourWrites;
  /** The town's MAC key: checkpoints are the town's word, not the caller's. */
  secret: Uint8Array;
}

export type EarlierRoute = 'heapObjects' | 'replEarlier' | 'checkEarlier' | 'cardPageQuery';

/**
 * A checkpoint names the object and entry of an Activity run in the caller's heap, for that
 * caller: `<base64url JSON>.<mac>`. An Activity here runs to the end of its turn; it is resumed
 * by casting its entry again on the same object with the response (docs/decisions/earlier-catalogue-shape.md).
 */
interface Checkpoint {
  object: string;
  entry: string;
  principal: string;
  height: number;
}

function sealCheckpoint(secret: Uint8Array, c: Checkpoint): string {
  const body = Buffer.from(JSON.stringify(c)).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

function openCheckpoint(secret: Uint8Array, text: string, principal: string): Checkpoint | undefined {
  const [body, mac, extra] = text.split('.');
  if (!body || !mac || extra !== undefined) return undefined;
  const want = createHmac('sha256', secret).update(body).digest();
  const got = Buffer.from(mac, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  try {
    const c = JSON.parse(Buffer.from(body, 'base64url').toString()) as Checkpoint;
    return c.principal === principal ? c : undefined;
  } catch {
    return undefined;
  }
}

export function earlierHandlers(deps: EarlierDeps): RoomHandlers<EarlierRoute> {
  const { scratches, fresh } = deps;
  return {
    async heapObjects(ctx) {
      const w = await scratches.heap(ctx.state.caller);
      return createIn(w.service, heapWorld, ctx.state.caller, ctx.state.body, fresh);
    },

    async replEarlier(ctx) {
      const caller = ctx.state.caller;
      const w = await scratches.heap(caller);
      const b = ctx.state.body;
      let object = b.object ?? 'repl';
      let entry = b.entry;
      if (b.checkpoint !== undefined) {
        const c = openCheckpoint(deps.secret, b.checkpoint, caller.principal);
        if (!c)
          throw new TownError('hostRequest', 'body field `checkpoint` is not one this town gave you; send it as a repl reply gave it', {
            hintHref: '/AGENTS.md/api',
          });
        object = c.object;
        entry = c.entry;
      }
      // `roots`: what the caller read before; a root that moved since refuses, nothing run.
      for (const root of b.roots ?? []) {
        const card = w.service.committed.cards.get(root.object);
        if (card?.version !== root.version) {
          return {
            status: 'refused',
            class: 'staleRoot',
            hintKind: 'world',
            line: `${root.object} moved since version ${root.version}; read it again and resend`,
            reason: `${root.object} is at ${card ? `version ${card.version}` : 'no version (absent)'}, not ${root.version}`,
            object: root.object,
            offers: [],
            journaled: false,
            receipt: { slug: null, height: w.service.height },
            _links: links({ object: hrefIn(heapWorld, 'object', { object: root.object }) }),
          };
        }
      }
      const response = b.response;
      const decided = await w.service.submit({
        kind: 'repl',
        principal: caller.principal,
        intent: b.intent ?? `repl:${randomUUID()}`,
        entry: entry as string,
        object,
        ...(b.source !== undefined ? { source: b.source } : {}),
        ...(b.modules !== undefined ? { modules: b.modules } : {}),
        ...(b.arguments !== undefined ? { arguments: b.arguments } : {}),
        // An Activity's input: the response resuming it, else the one argument of its first run.
        ...(response !== undefined
          ? TypedDataC.is(response)
            ? { argument: response }
            : { fields: response }
          : b.arguments?.length === 1
            ? { argument: b.arguments[0] }
            : {}),
        ...(b.limits !== undefined ? { limits: b.limits } : {}),
      });
      fresh.note(caller.principal, decided.position);
      const reply = turnReply(decided, object, {}, heapWorld);
      // A plain entry answers a value: no card was cast on.
      if (decided.outcome.kind === 'value') return { ...reply, _links: links({}) };
      if (reply.status !== 'done') return reply;
      // An Activity: what it did is its plan; the checkpoint resumes it on the same object.
      const plan = { line: reply.line, revealed: reply.revealed ?? [], offers: reply.offers, receipt: reply.receipt };
      const checkpoint = sealCheckpoint(deps.secret, { object, entry: entry as string, principal: caller.principal, height: w.service.height });
      return { ...reply, plan, checkpoint };
    },

    // The library is the sealed one in every world, so the caller's heap checks as the town would.
    async checkEarlier(ctx) {
      const w = await scratches.heap(ctx.state.caller);
      return checkIn(w.service, ctx.state.body, ctx.state.query.full === '1');
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

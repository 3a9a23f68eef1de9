/**
 * Handlers of the scratch routes proper (spec 4.3): open a world, create a card in it, run a
 * REPL entry, check modules, and cite a scratch receipt into the town. The world routes' scratch
 * tails are the world room's (src/http/handlers/world.ts), reached with ctx.state.scratch.
 */
import { randomUUID } from 'node:crypto';
import type { ScratchWorlds } from '../../commands/scratch-service.js';
import type { WorldService } from '../../commands/world-service.js';
import { decodeWorldEntry, worldStream } from '../../events/world.js';
import { checkOutcomeReply } from '../../queries/check-reply.js';
import type { ReadYourWrites } from '../../queries/fresh.js';
import { spellableId } from '../../queries/world-reads.js';
import { TownError } from '../../contract/town-error.js';
import type { EventStore } from '../../stores/event-store.js';
import { links } from '../../contract/links.js';
import type { RoomHandlers } from '../route-types.js';
import { hrefOf } from '../routes.js';
import { hrefIn, turnReply } from './world.js';
import type { Caller } from '../../contract/caller.js';
import type { Module } from '../../cards/program.js';
import { receiptsBySlug, type World } from '../../cards/kernel/world.js';
import type { ReceiptRecord } from '../../cards/kernel/world.js';

export interface ScratchDeps {
  scratches: ScratchWorlds;
  town: WorldService;
  events: EventStore;
  fresh: ReadYourWrites;
}

export type ScratchRoute = 'scratch' | 'scratchClose' | 'scratchObjects' | 'repl' | 'check' | 'cite';

/** What the card-making routes take (`scratch/{name}/objects`, the earlier shape's `heap/objects`). */
export interface CreateBody {
  object: string;
  intent: string;
  entry: string;
  source?: string;
  modules?: Module[];
  law?: string;
  seed?: Record<string, unknown>;
}

/** Makes a card in a private world (a scratch world, or the earlier shape's heap). */
export async function createIn(service: WorldService, label: string, caller: Caller, b: CreateBody, fresh: ReadYourWrites) {
  const object = spellableId(b.object);
  const decided = await service.submit({
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
  return turnReply(decided, object, {}, label);
}

/** Checks modules against a world's library; each diagnostic's message cut to its first line unless `full`. */
export async function checkIn(service: WorldService, b: { source?: string; modules?: Module[]; entry?: string }, full: boolean) {
  const decided = await service.submit({
    kind: 'check',
    ...(b.source !== undefined ? { source: b.source } : {}),
    ...(b.modules !== undefined ? { modules: b.modules } : {}),
    ...(b.entry !== undefined ? { entry: b.entry } : {}),
  });
  const reply = checkOutcomeReply(decided.outcome as Parameters<typeof checkOutcomeReply>[0]);
  return full ? reply : { ...reply, diagnostics: reply.diagnostics.map((d) => ({ ...d, message: d.message.split('\n')[0]! })) };
}

/**
 * The receipt a cite names in a scratch world: by its content id, or by its spoken name (slug)
 * when that names exactly one; a name shared by several is `ambiguous`, listing their ids.
 */
function citedReceipt(world: World, named: string, scratch: string): ReceiptRecord {
  const byCid = world.receipts.get(named);
  if (byCid) return byCid;
  const bySlug = receiptsBySlug(world, named);
  if (bySlug.length === 1) return bySlug[0]!;
  if (bySlug.length > 1) {
    throw new TownError('ambiguous', `${bySlug.length} receipts in scratch/${scratch} are named ${named}; cite one by its content id`, {
      fields: { receipts: bySlug.map((r) => ({ height: r.height, cid: r.cid })) },
      hintHref: hrefIn(scratch, 'receipt', { slug: named }, { full: '1' }),
    });
  }
  throw new TownError(
    'unknown',
    `no receipt ${JSON.stringify(named.slice(0, 80))} in scratch/${scratch}; cite a receipt by its spoken name (slug) or content id (cid)`,
    {
      hintHref: hrefIn(scratch, 'world'),
    },
  );
}

export function scratchHandlers(deps: ScratchDeps): RoomHandlers<ScratchRoute> {
  const { scratches, fresh } = deps;

  return {
    async scratch(ctx) {
      const { name, from } = ctx.state.body;
      const opened = await scratches.open(ctx.state.caller, name, from);
      // The world's first entry is read by the caller's next read (its cards, a fork's cards).
      fresh.note(ctx.state.caller.principal, opened.position);
      const { position: _, ...answer } = opened;
      return { ...answer, _links: links({ world: hrefIn(name, 'world'), objects: hrefOf('scratchObjects', { name }), me: hrefOf('me') }) };
    },

    async scratchClose(ctx) {
      const closed = await scratches.shut(ctx.state.caller, ctx.params.name);
      return { ...closed, _links: links({ me: hrefOf('me'), scratch: hrefOf('scratch') }) };
    },

    async scratchObjects(ctx) {
      const w = await scratches.world(ctx.state.caller, ctx.params.name);
      return createIn(w.service, w.name, ctx.state.caller, ctx.state.body, fresh);
    },

    async repl(ctx) {
      const caller = ctx.state.caller;
      const w = await scratches.world(caller, ctx.params.name);
      const b = ctx.state.body;
      const object = b.object ?? 'repl';
      const decided = await w.service.submit({
        kind: 'repl',
        principal: caller.principal,
        // Each REPL call is its own turn unless the caller names it (a retry then repeats it).
        intent: b.intent ?? `repl:${randomUUID()}`,
        entry: b.entry,
        object,
        ...(b.source !== undefined ? { source: b.source } : {}),
        ...(b.arguments !== undefined ? { arguments: b.arguments } : {}),
        ...(b.fields !== undefined ? { fields: b.fields } : {}),
        ...(b.argument !== undefined ? { argument: b.argument } : {}),
      });
      fresh.note(caller.principal, decided.position);
      const reply = turnReply(decided, object, {}, w.name);
      // A plain entry answers a value: no card was cast on.
      return decided.outcome.kind === 'value' ? { ...reply, _links: links({}) } : reply;
    },

    async check(ctx) {
      const w = await scratches.world(ctx.state.caller, ctx.params.name);
      return checkIn(w.service, ctx.state.body, ctx.state.query.full === '1');
    },

    async cite(ctx) {
      const caller = ctx.state.caller;
      const w = await scratches.world(caller, ctx.params.name);
      const b = ctx.state.body;
      const record = citedReceipt(w.service.committed, b.receipt, w.name);
      const [event] = await deps.events.readStream(worldStream(w.id), { fromRevision: BigInt(record.height), maxCount: 1 });
      if (!event) throw new Error(`scratch ${w.id} has no entry at ${record.height}`);
      const entry = decodeWorldEntry(event);
      const decided = await deps.town.submit({
        kind: 'cite',
        principal: caller.principal,
        world: w.id,
        entry,
        ...(b.intent !== undefined ? { intent: b.intent } : {}),
      });
      fresh.note(caller.principal, decided.position);
      const reply = turnReply(decided, entry.receipt.object ?? 'cite', {});
      // The cited card lives in the scratch world, not the town: link it there, while it stands,
      // and the scratch receipt cited; never a town card of that name the caller may not see.
      const object = entry.receipt.object;
      const own = reply._links as Record<string, unknown>;
      reply._links = links({
        receipt: own.receipt as string | undefined,
        hint: own.hint as string | undefined,
        cited: hrefIn(w.name, 'receipt', { slug: entry.slug }),
        card: object !== undefined && w.service.committed.cards.has(object) ? hrefIn(w.name, 'card', { object }) : undefined,
      });
      return reply;
    },
  };
}

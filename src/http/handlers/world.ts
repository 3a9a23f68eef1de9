/**
 * Handlers of the world and turn routes (spec 4.2): turns go to the world service (the write
 * side); every read is served from the read models (src/queries), after waiting until they show
 * the caller's own latest turn (read-your-writes, src/queries/fresh.ts).
 *
 * Scratch worlds (spec 4.3) reach these handlers too (ctx.state.scratch): the same handler
 * serves the caller's scratch world of that name, through its own world service and read models,
 * with links that stay in that world.
 */
import type { Answer } from '../../cards/kernel/outcome.js';
import type { Receipt } from '../../cards/kernel/receipt.js';
import { deliveryLine, outcomeReply } from '../../queries/turn-reply.js';
import type { KernelOptions } from '../../cards/kernel/options.js';
import type { Programs } from '../../cards/kernel/programs.js';
import { hourMs, hourOf } from '../../cards/kernel/world.js';
import { limits } from '../../contract/limits.js';
import { castTurn, turnCommand } from '../../commands/turn.js';
import type { ScratchWorlds } from '../../commands/scratch-service.js';
import type { Decided, WorldService } from '../../commands/world-service.js';
import { cardReply, objectReply } from '../../queries/card.js';
import type { ReadYourWrites } from '../../queries/fresh.js';
import { offersReply, waitForOffers } from '../../queries/offers.js';
import { pendingReply } from '../../queries/pending.js';
import { receiptByIntent, receiptBySlug } from '../../queries/receipt.js';
import { sourceReply } from '../../queries/source.js';
import { listWorld } from '../../queries/world.js';
import { spellableId, townReads, type WorldReads } from '../../queries/world-reads.js';
import { KeptCards } from '../../queries/kept-cards.js';
import { guestDocs, type GuestDoc } from '../../projections/guests.js';
import type { ProjectionName } from '../../projections/index.js';
import type { ReadStore } from '../../stores/read-store.js';
import type { EventStore } from '../../stores/event-store.js';
import type { TownContext } from '../handler.js';
import type { RoomHandlers } from '../route-types.js';
import { TownError } from '../../contract/town-error.js';
import type { Caller } from '../../contract/caller.js';
import type { Clock } from '../../contract/clock.js';
import { links } from '../../contract/links.js';
import { preparedReply } from '../front/reply.js';
import { heapPrefix, heapWorld, hrefOf, type ScratchBase } from '../routes.js';

export interface WorldDeps {
  service: WorldService;
  events: EventStore;
  reads: ReadStore;
  programs: Programs;
  clock: Clock;
  fresh: ReadYourWrites;
  /** The kernel options turns are decided with now (the open-town quota lives there). */
  options: () => KernelOptions;
  /** The guests' scratch worlds; without them the scratch tails answer as for no such world. */
  scratches?: ScratchWorlds;
}

/** The world a request is about: the town, or one of the caller's scratch worlds. */
export interface WorldAt {
  service: WorldService;
  reads: WorldReads;
  /** The scratch world's name, for links that stay in it. */
  scratch?: string;
}

/** A route's href in the world a request is about: `/AGENTS.md/scratch/{name}/…` in a scratch world. */
export function hrefIn(
  scratch: string | undefined,
  name: ScratchBase,
  params: Record<string, string> = {},
  query: Record<string, string | undefined> = {},
): string {
  if (scratch === undefined) return hrefOf(name, params, query);
  // The heap's routes (spec 9) are the town's tails under /AGENTS.md/heap/.
  if (scratch === heapWorld) return heapPrefix + hrefOf(name, params, query).slice('/AGENTS.md'.length);
  return hrefOf(`scratch.${name}`, { ...params, name: scratch }, query);
}

/** Where a refusal's hint kind (spec 7.2) points next. */
function hintHref(kind: string | undefined, object: string | undefined, slug: string | undefined, scratch: string | undefined): string | undefined {
  switch (kind) {
    case 'receipt':
      return slug ? hrefIn(scratch, 'receipt', { slug }) : undefined;
    case 'source':
      return object ? hrefIn(scratch, 'source', { object }) : undefined;
    case 'self':
      return object ? hrefIn(scratch, 'object', { object }) : undefined;
    case 'world':
      return hrefIn(scratch, 'world');
    default:
      return undefined;
  }
}

/** The turn reply of spec 2.5 (src/queries/turn-reply.ts) with its `_links`. */
export function turnReply(d: Decided, object: string, q: { compact?: string; full?: string }, scratch?: string): Record<string, unknown> {
  const o: Answer = d.outcome;
  const reply = outcomeReply(o, {
    height: d.height,
    full: q.full === '1',
    compact: q.compact === '1',
    ...(d.deliveries ? { deliveries: d.deliveries } : {}),
  }) as Record<string, unknown>;
  const r: Receipt | undefined = o.kind === 'journal' || o.kind === 'repeat' || o.kind === 'refused' ? o.receipt : undefined;
  const slug = r?.slug;
  // The reply is outcomeReply's own fresh object: its links go on it, not on a copy of it.
  reply._links = links({
    receipt: slug !== undefined ? hrefIn(scratch, 'receipt', { slug }) : undefined,
    card: hrefIn(scratch, 'card', { object }),
    // A refusal nothing journaled has no slug; `duplicateIdentity` points at the first receipt (a content id reads as a slug).
    hint: r?.status === 'refused' ? hintHref(r.hintKind, r.object ?? object, slug ?? r.original, scratch) : undefined,
  });
  return reply;
}

/** The routes of spec 4.2, each reached on the town and (by its scratch tail) in a scratch world. */
export type WorldRoute = 'world' | 'object' | 'card' | 'source' | 'turn' | 'receipt' | 'receiptByIntent' | 'receiptEarlier' | 'offers' | 'pending' | 'deliver';

export function worldHandlers(deps: WorldDeps): RoomHandlers<WorldRoute> {
  const { service, fresh } = deps;
  const folded = fresh.waits.folded;
  const town: WorldAt = {
    service,
    reads: {
      ...townReads(deps, service),
      // Card documents are kept between reads where the cards projection's checkpoint is known here.
      ...(folded ? { kept: new KeptCards(service.world, () => folded('cards')) } : {}),
    },
  };
  /** The object replies of kept cards, with their links (town reads only: links stay in the town). */
  const linked = new WeakMap<object, Record<string, unknown>>();
  const at = (ctx: TownContext & { state: { caller: Caller } }) => worldAt(deps, town, ctx.state.caller, ctx.state.scratch);

  /** Read-your-writes: the projection a read uses shows the caller's own latest turn. */
  const settled = (caller: Caller, projection: ProjectionName) => fresh.settle(caller.principal, projection);

  return {
    async world(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      const q = ctx.state.query;
      await settled(caller, 'cards');
      const page = await listWorld(w.reads, caller.principal, { after: q.after, prefix: q.prefix });
      return { ...page, _links: links({ next: page.next !== undefined ? hrefIn(w.scratch, 'world', {}, { after: page.next, prefix: q.prefix }) : undefined }) };
    },

    async object(ctx) {
      const caller = ctx.state.caller;
      // The usual read (the town, nothing to wait for, a kept card) takes no promise but this one.
      const w = ctx.state.scratch === undefined ? town : await at(ctx);
      const id = spellableId(ctx.params.object);
      const ready = settled(caller, 'cards');
      if (ready !== true) await ready;
      const made = objectReply(w.reads, id, caller.principal);
      const reply = made instanceof Promise ? await made : made;
      // A kept card's reply (src/queries/kept-cards.ts) is one object until the card changes: its
      // links and text are made once with it.
      let out = w.reads.kept !== undefined ? linked.get(reply) : undefined;
      if (out === undefined) {
        out = { ...reply, _links: links({ card: hrefIn(w.scratch, 'card', { object: id }), source: hrefIn(w.scratch, 'source', { object: id }) }) };
        if (w.reads.kept !== undefined) linked.set(reply, preparedReply(out));
      }
      return out;
    },

    async card(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      const id = spellableId(ctx.params.object);
      await settled(caller, 'cards');
      const reply = await cardReply(w.reads, id, caller.principal);
      return { ...reply, _links: links({ object: hrefIn(w.scratch, 'object', { object: id }), source: hrefIn(w.scratch, 'source', { object: id }) }) };
    },

    async source(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      const id = spellableId(ctx.params.object);
      await settled(caller, 'cards');
      const reply = await sourceReply(w.reads, id, caller.principal, ctx.state.query.full === '1');
      return { ...reply, _links: links({ object: hrefIn(w.scratch, 'object', { object: id }) }) };
    },

    async turn(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      const object = spellableId(ctx.params.object);
      const method = ctx.params.method;
      // A guest stands in the town (its avatar); a scratch world holds only what it was given.
      const decided =
        w.scratch === undefined
          ? await castTurn(w.service, caller, object, method, ctx.state.body)
          : await w.service.submit(turnCommand(caller, object, method, ctx.state.body));
      fresh.note(caller.principal, decided.position);
      return turnReply(decided, object, ctx.state.query, w.scratch);
    },

    async receipt(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      await settled(caller, 'receipts');
      return receiptBySlug(w.reads, ctx.params.slug, caller.principal, ctx.state.query.full === '1');
    },

    async receiptByIntent(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      await settled(caller, 'receipts');
      return receiptByIntent(w.reads, ctx.state.query.intent, caller.principal, ctx.state.query.full === '1');
    },

    // Spec 9 (earlier shape): one path for both. The caller's own intent is asked first, so a
    // receipt of theirs is never shadowed by someone's slug that reads the same.
    async receiptEarlier(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      await settled(caller, 'receipts');
      const full = ctx.state.query.full === '1';
      try {
        return await receiptByIntent(w.reads, ctx.params.intent, caller.principal, full);
      } catch (error) {
        if (!(error instanceof TownError) || error.cls !== 'unknown') throw error;
        return receiptBySlug(w.reads, ctx.params.intent, caller.principal, full);
      }
    },

    async offers(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      const q = ctx.state.query;
      await settled(caller, 'offers');
      const after = q.after !== undefined ? Number(q.after) : undefined;
      const waitMs = Math.min(Number(q.wait ?? 0), limits.offersWaitSeconds) * 1000;
      const found = await waitForOffers(w.reads, caller.principal, after, waitMs, (ms) => fresh.waits.changed(ms));
      const reply = offersReply(found, q.compact === '1', after);
      return {
        ...reply,
        _links: links({ next: hrefIn(w.scratch, 'offers', {}, { after: String(reply.height), ...(q.compact ? { compact: q.compact } : {}) }) }),
      };
    },

    async pending(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      await settled(caller, 'pending');
      return { ...(await pendingReply(w.reads, caller.principal)), _links: links({ deliver: hrefIn(w.scratch, 'deliver') }) };
    },

    async deliver(ctx) {
      const caller = ctx.state.caller;
      const w = await at(ctx);
      const decided = await w.service.submit({ kind: 'deliver', max: limits.deliverPerCall });
      fresh.note(caller.principal, decided.position);
      const o = decided.outcome;
      if (o.kind !== 'journal') return { status: 'nothing', delivered: 0, line: 'no sends wait', _links: links({ pending: hrefIn(w.scratch, 'pending') }) };
      return {
        status: 'delivered',
        delivered: o.entries.length,
        receipts: o.entries.map(deliveryLine),
        _links: links({ pending: hrefIn(w.scratch, 'pending') }),
      };
    },
  };
}

/** The town, or the caller's scratch world of that name (another's answers as none). */
export async function worldAt(deps: Pick<WorldDeps, 'scratches'>, town: WorldAt, caller: Caller, scratch: string | undefined): Promise<WorldAt> {
  if (scratch === undefined) return town;
  if (!deps.scratches) throw new TownError('unknown', `no scratch world ${JSON.stringify(scratch)} of yours is open`, { hintHref: '/AGENTS.md/scratch' });
  const s = scratch === heapWorld ? await deps.scratches.heap(caller) : await deps.scratches.world(caller, scratch);
  // A fork reading through to the town has documents only for the cards it made: its cards are read from its state.
  const state = s.service.readsThrough ? () => s.service.committed : undefined;
  // The town's kept cards are the town's alone.
  const { kept: _townOnly, ...reads } = town.reads;
  return {
    service: s.service,
    reads: { ...reads, world: s.id, label: s.world, past: () => s.service.committed.past, ...(state ? { state } : {}) },
    scratch,
  };
}

/** `me.turns` (spec 2.7): turns the guest may still start before the clock hour turns. */
export function turnsLeft(deps: Pick<WorldDeps, 'reads' | 'clock' | 'fresh' | 'options'>) {
  return async (principal: string) => {
    const quota = deps.options().turnQuota ?? 0;
    await deps.fresh.settle(principal, 'guests');
    const doc = (await deps.reads.collection(guestDocs.name).findOne({ _id: principal })) as GuestDoc | null;
    const now = deps.clock();
    const used = doc && doc.hour === hourOf(now) ? doc.count : 0;
    return { remaining: Math.max(0, quota - used), next: new Date((hourOf(now) + 1) * hourMs).toISOString() };
  };
}

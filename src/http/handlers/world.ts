/**
 * Handlers of the world and turn routes (spec 4.2): turns go to the world service (the write
 * side); every read is served from the read models (src/queries), after waiting until they show
 * the caller's own latest turn (read-your-writes, src/queries/fresh.ts).
 *
 * Scratch worlds (spec 4.3) reach these handlers too (ctx.state.scratch); they are not built
 * yet and answer `notImplemented`.
 */
import type { Answer, Receipt } from '../../cards/kernel/decide.js';
import { deliveryLine, outcomeReply } from '../../queries/turn-reply.js';
import type { KernelOptions } from '../../cards/kernel/options.js';
import type { Programs } from '../../cards/kernel/programs.js';
import { hourMs, hourOf } from '../../cards/kernel/world.js';
import { limits } from '../../contract/limits.js';
import { castTurn } from '../../commands/turn.js';
import type { Decided, WorldService } from '../../commands/world-service.js';
import { cardReply, objectReply } from '../../queries/card.js';
import type { ReadYourWrites } from '../../queries/fresh.js';
import { offersReply, waitForOffers } from '../../queries/offers.js';
import { pendingReply } from '../../queries/pending.js';
import { receiptByIntent, receiptBySlug } from '../../queries/receipt.js';
import { sourceReply } from '../../queries/source.js';
import { listWorld } from '../../queries/world.js';
import { spellableId, type WorldReads } from '../../queries/world-reads.js';
import { guestDocs, type GuestDoc } from '../../projections/guests.js';
import type { ProjectionName } from '../../projections/index.js';
import type { ReadStore } from '../../stores/read-store.js';
import type { EventStore } from '../../stores/event-store.js';
import type { TownContext } from '../handler.js';
import type { RoomHandlers } from '../route-types.js';
import { TownError } from '../../contract/town-error.js';
import type { Caller } from '../../contract/caller.js';
import type { Clock } from '../../contract/clock.js';
import { links } from '../links.js';
import { hrefOf } from '../routes.js';

export interface WorldDeps {
  service: WorldService;
  events: EventStore;
  reads: ReadStore;
  programs: Programs;
  clock: Clock;
  fresh: ReadYourWrites;
  /** The kernel options turns are decided with now (the open-town quota lives there). */
  options: () => KernelOptions;
}

function noScratch(ctx: TownContext): void {
  if (ctx.state.scratch !== undefined) {
    throw new TownError('notImplemented', 'scratch worlds are not built yet; the same routes work on the town at /AGENTS.md/…', { hintHref: '/AGENTS.md/api' });
  }
}

/** Where a refusal's hint kind (spec 7.2) points next. */
function hintHref(kind: string | undefined, object: string | undefined, slug: string | undefined): string | undefined {
  switch (kind) {
    case 'receipt':
      return slug ? hrefOf('receipt', { slug }) : undefined;
    case 'source':
      return object ? hrefOf('source', { object }) : undefined;
    case 'self':
      return object ? hrefOf('object', { object }) : undefined;
    case 'world':
      return hrefOf('world');
    default:
      return undefined;
  }
}

/** The turn reply of spec 2.5 (src/queries/turn-reply.ts) with its `_links`. */
export function turnReply(d: Decided, object: string, q: { compact?: string; full?: string }): Record<string, unknown> {
  const o: Answer = d.outcome;
  const reply = outcomeReply(o, {
    height: d.height,
    full: q.full === '1',
    compact: q.compact === '1',
    ...(d.deliveries ? { deliveries: d.deliveries } : {}),
  }) as Record<string, unknown>;
  const r: Receipt | undefined = o.kind === 'journal' || o.kind === 'repeat' || o.kind === 'refused' ? o.receipt : undefined;
  const slug = r?.slug;
  const _links = links({
    receipt: slug !== undefined ? hrefOf('receipt', { slug }) : undefined,
    card: hrefOf('card', { object }),
    // A refusal nothing journaled has no slug; `duplicateIdentity` points at the first receipt (a content id reads as a slug).
    hint: r?.status === 'refused' ? hintHref(r.hintKind, r.object ?? object, slug ?? r.original) : undefined,
  });
  return { ...reply, _links };
}

/** The routes of spec 4.2, each reached on the town and (by its scratch tail) in a scratch world. */
export type WorldRoute = 'world' | 'object' | 'card' | 'source' | 'turn' | 'receipt' | 'receiptByIntent' | 'offers' | 'pending' | 'deliver';

export function worldHandlers(deps: WorldDeps): RoomHandlers<WorldRoute> {
  const { service, fresh } = deps;
  const r: WorldReads = { reads: deps.reads, events: deps.events, programs: deps.programs, world: service.world, clock: deps.clock };

  /** Read-your-writes: the projection a read uses shows the caller's own latest turn. */
  const settled = (caller: Caller, projection: ProjectionName) => fresh.settle(caller.principal, projection);

  return {
    async world(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      const q = ctx.state.query;
      await settled(caller, 'cards');
      const page = await listWorld(r, caller.principal, { after: q.after, prefix: q.prefix });
      return { ...page, _links: links({ next: page.next !== undefined ? hrefOf('world', {}, { after: page.next, prefix: q.prefix }) : undefined }) };
    },

    async object(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      const id = spellableId(ctx.params.object);
      await settled(caller, 'cards');
      const reply = await objectReply(r, id, caller.principal);
      return { ...reply, _links: links({ card: hrefOf('card', { object: id }), source: hrefOf('source', { object: id }) }) };
    },

    async card(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      const id = spellableId(ctx.params.object);
      await settled(caller, 'cards');
      const reply = await cardReply(r, id, caller.principal);
      return { ...reply, _links: links({ object: hrefOf('object', { object: id }), source: hrefOf('source', { object: id }) }) };
    },

    async source(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      const id = spellableId(ctx.params.object);
      await settled(caller, 'cards');
      const reply = await sourceReply(r, id, caller.principal, ctx.state.query.full === '1');
      return { ...reply, _links: links({ object: hrefOf('object', { object: id }) }) };
    },

    async turn(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      const object = spellableId(ctx.params.object);
      const method = ctx.params.method;
      const decided = await castTurn(service, caller, object, method, ctx.state.body);
      fresh.note(caller.principal, decided.position);
      return turnReply(decided, object, ctx.state.query);
    },

    async receipt(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      await settled(caller, 'receipts');
      return receiptBySlug(r, ctx.params.slug, caller.principal, ctx.state.query.full === '1');
    },

    async receiptByIntent(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      await settled(caller, 'receipts');
      return receiptByIntent(r, ctx.state.query.intent, caller.principal, ctx.state.query.full === '1');
    },

    async offers(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      const q = ctx.state.query;
      await settled(caller, 'offers');
      const after = q.after !== undefined ? Number(q.after) : undefined;
      const waitMs = Math.min(Number(q.wait ?? 0), limits.offersWaitSeconds) * 1000;
      const found = await waitForOffers(r, caller.principal, after, waitMs, (ms) => fresh.waits.changed(ms));
      const reply = offersReply(found, q.compact === '1', after);
      return { ...reply, _links: links({ next: hrefOf('offers', {}, { after: String(reply.height), ...(q.compact ? { compact: q.compact } : {}) }) }) };
    },

    async pending(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      await settled(caller, 'pending');
      return { ...(await pendingReply(r, caller.principal)), _links: links({ deliver: hrefOf('deliver') }) };
    },

    async deliver(ctx) {
      noScratch(ctx);
      const caller = ctx.state.caller;
      const decided = await service.submit({ kind: 'deliver', max: limits.deliverPerCall });
      fresh.note(caller.principal, decided.position);
      const o = decided.outcome;
      if (o.kind !== 'journal') return { status: 'nothing', delivered: 0, line: 'no sends wait', _links: links({ pending: hrefOf('pending') }) };
      return {
        status: 'delivered',
        delivered: o.entries.length,
        receipts: o.entries.map(deliveryLine),
        _links: links({ pending: hrefOf('pending') }),
      };
    },
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

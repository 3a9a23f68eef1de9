/**
 * Who the town is and who may come in: its host, origin and secret (the TownConfig every room
 * reads), whether it is open now, and its first invitation when this start founds it; and the
 * identity room's handlers, which answer arrivals and `me`.
 */
import type { Clock } from '../contract/clock.js';
import type { Limiters } from '../contract/rate-limit.js';
import type { TownConfig } from '../contract/town-config.js';
import { loadSecret, type Settings } from '../config.js';
import type { ScratchWorlds } from '../commands/scratch-service.js';
import type { FeedService } from '../commands/feed-service.js';
import type { WorldService } from '../commands/world-service.js';
import { identityHandlers } from '../http/handlers/identity.js';
import type { turnsLeft } from '../http/handlers/world.js';
import { applyStartupMode, ensureFirstInvitation } from '../identity/town.js';
import type { ReadYourWrites } from '../queries/fresh.js';
import type { EventStore } from '../stores/event-store.js';

/**
 * Whether the town is open now. The operator may open or close a running town (a TownModeSet
 * the arrivals reactor sees), so every use reads it here rather than keeping a copy.
 */
export interface TownMode {
  open: boolean;
}

export interface TownIdentity {
  config: TownConfig;
  mode: TownMode;
  /** The first open invitation, present only when this start founded the town. */
  firstInvitation?: string;
}

/** Applies the start-up mode, reads the town's secret and founds the town if it is new. */
export async function townIdentity(events: EventStore, clock: Clock, settings: Settings, givenOrigin: string | undefined): Promise<TownIdentity> {
  const origin = givenOrigin ?? settings.origin ?? `http://localhost:${settings.port}`;
  const url = new URL(origin);
  const mode: TownMode = { open: await applyStartupMode(events, clock, settings.open) };
  const config: TownConfig = {
    host: url.host,
    origin: url.origin,
    open: mode.open,
    secret: loadSecret(settings.dataDir),
    secure: url.protocol === 'https:',
    ...(settings.catalogue === 'earlier' ? { catalogue: 'earlier' as const } : {}),
  };
  const firstInvitation = await ensureFirstInvitation(events, clock);
  return { config, mode, firstInvitation };
}

export interface IdentityRoomParts {
  events: EventStore;
  config: TownConfig;
  clock: Clock;
  limiters: Limiters;
  arrivalBits: number | undefined;
  turns: ReturnType<typeof turnsLeft>;
  feed: FeedService;
  scratches: ScratchWorlds;
  world: WorldService;
  fresh: ReadYourWrites;
}

/** The identity room: what `me` counts comes from the feed, the scratch worlds and the turn quota. */
export function identityRoom({ events, config, clock, limiters, arrivalBits, turns, feed, scratches, world, fresh }: IdentityRoomParts) {
  return identityHandlers({
    store: events,
    config,
    clock,
    limiters,
    arrivalBits,
    turns,
    feed: (principal) => feed.left(principal),
    scratches: (principal) => scratches.list({ principal, name: principal.slice(principal.lastIndexOf(':') + 1) }),
    arrived: async ({ principal, name }) => {
      // Idempotent (a second arrival decides nothing), and its answer's position covers the
      // arrival entry even when the arrivals reactor decided it first.
      fresh.note(principal, (await world.submit({ kind: 'arrive', principal, name })).position);
    },
  });
}

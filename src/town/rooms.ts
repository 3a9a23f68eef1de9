/**
 * The rooms' handlers, bound to the town's services: identity, scratch, the earlier shape's
 * rooms, feed, world, pages, operations and the repository's xrpc room. The MCP room is made
 * from these (src/town/mcp.ts).
 */
import type { Clock } from '../contract/clock.js';
import type { Limiters } from '../contract/rate-limit.js';
import type { TownConfig } from '../contract/town-config.js';
import type { Programs } from '../cards/kernel/programs.js';
import type { KernelOptions } from '../cards/kernel/options.js';
import type { FeedService } from '../commands/feed-service.js';
import type { ScratchWorlds } from '../commands/scratch-service.js';
import type { WorldService } from '../commands/world-service.js';
import { earlierHandlers } from '../http/handlers/earlier.js';
import { earlierIdentityHandlers } from '../http/handlers/earlier-identity.js';
import { feedHandlers } from '../http/handlers/feed.js';
import { operationsHandlers } from '../http/handlers/operations.js';
import { pagesHandlers } from '../http/handlers/pages.js';
import { scratchHandlers } from '../http/handlers/scratch.js';
import { turnsLeft, worldHandlers } from '../http/handlers/world.js';
import { IdentityService } from '../identity/service.js';
import type { TownMetrics } from '../operations/metrics.js';
import type { Operations } from '../operations/watch.js';
import type { ReadYourWrites } from '../queries/fresh.js';
import { identityRoom } from './identity.js';
import type { TownOptions } from './options.js';
import { repositoryRoom, type TownRepository } from './repository.js';
import type { Stores } from './stores.js';

export interface RoomParts {
  options: TownOptions;
  stores: Stores;
  programs: Programs;
  clock: Clock;
  config: TownConfig;
  limiters: Limiters;
  kernelOptions: () => KernelOptions;
  world: WorldService;
  fresh: ReadYourWrites;
  feed: FeedService;
  scratches: ScratchWorlds;
  operations: Operations;
  metrics: TownMetrics;
  repository: TownRepository;
  firehoseUrl: string | undefined;
}

export function townRooms(parts: RoomParts) {
  const { options, stores, programs, clock, config, limiters, kernelOptions, world, fresh, feed, scratches, operations, metrics } = parts;
  const { events, reads } = stores;
  const deps = { service: world, events, reads, programs, clock, fresh, options: kernelOptions, scratches };
  return {
    ...identityRoom({ events, config, clock, limiters, arrivalBits: options.arrivalBits, turns: turnsLeft(deps), feed, scratches, world, fresh }),
    ...scratchHandlers({ scratches, town: world, events, fresh }),
    ...earlierHandlers({ scratches, fresh, secret: config.secret }),
    ...earlierIdentityHandlers({ identity: new IdentityService({ store: events, config, clock }), feed, reads, fresh, config }),
    ...feedHandlers({ feed, reads, fresh, config, height: () => world.height }),
    ...worldHandlers(deps),
    ...pagesHandlers({ ...deps, config, onSlowDrop: () => metrics.slowConsumers.drop('live') }),
    ...operationsHandlers(operations),
    ...repositoryRoom(parts),
  };
}

export type TownRooms = ReturnType<typeof townRooms>;

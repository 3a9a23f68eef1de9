/**
 * The MCP room: its tools call the other rooms' handlers, so it is made from them; with it
 * every row of the route table is bound. The one place the town makes the MCP room.
 */
import type { TownConfig } from '../contract/town-config.js';
import type { WorldService } from '../commands/world-service.js';
import type { Logger } from '../http/app.js';
import { stderrLogger } from '../http/front/failure.js';
import { mcpHandlers } from '../http/handlers/mcp.js';
import type { RoomTable } from '../http/route-types.js';
import { type McpRoom, mcpRoom } from '../mcp/room.js';
import type { TownMetrics } from '../operations/metrics.js';
import type { ReadYourWrites } from '../queries/fresh.js';
import { relayingEndpoint } from './mcp-relay.js';
import type { TownMode } from './identity.js';
import type { TownOptions } from './options.js';
import type { TownRooms } from './rooms.js';
import type { Closers } from './shutdown.js';
import type { Stores } from './stores.js';

export type { McpRoom } from '../mcp/room.js';

export interface McpParts {
  options: TownOptions;
  rooms: TownRooms;
  stores: Stores;
  world: WorldService;
  fresh: ReadYourWrites;
  config: TownConfig;
  mode: TownMode;
  logger: Logger | undefined;
  metrics: TownMetrics;
}

/** The MCP room and the whole table of handlers, the rooms' and its own. */
export function openMcp(
  { options, rooms, stores, world, fresh, config, mode, logger, metrics }: McpParts,
  closers: Closers,
  /** With several fronts on the box: this front's id, and the data directory of their relay sockets. */
  relayFrom?: { front: string; dataDir: string },
): { mcp: McpRoom; handlers: RoomTable } {
  const mcp = mcpRoom({
    handlers: rooms,
    events: stores.events,
    world,
    waits: fresh.waits,
    origin: config.origin,
    townOpen: () => mode.open,
    logger: logger ?? stderrLogger,
    limits: options.mcp,
    onSlowDrop: () => metrics.slowConsumers.drop('mcp'),
    ...(config.catalogue ? { shape: config.catalogue } : {}),
    ...(relayFrom ? { sessionPrefix: relayFrom.front } : {}),
  });
  closers.push(() => mcp.close());
  // With several fronts, another front's session is relayed to it (mcp-relay.ts).
  const endpoint = relayFrom ? relayingEndpoint(mcp, relayFrom.front, relayFrom.dataDir) : mcp;
  // Every row of the route table is bound by the rooms or stated as not built: a route left
  // out, or a key no row has, does not compile.
  const handlers: RoomTable = { ...rooms, ...mcpHandlers(endpoint, config) };
  return { mcp, handlers };
}

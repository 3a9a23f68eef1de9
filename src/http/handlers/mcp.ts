/**
 * Handlers of /mcp (not in the spec): the town as a Model Context Protocol server. The room
 * (src/mcp/room.ts) holds the sessions and answers through the SDK's transport, which writes the
 * reply itself; here each route is bound to it, after the same-origin check MCP asks of
 * Streamable HTTP servers (a page of another site cannot drive a session). The MCP server sits
 * above the HTTP front (it calls the town's routes), so the wiring passes the room in and this
 * module names only what it asks of it.
 */
import type { TownConfig } from '../../contract/town-config.js';
import type { TownContext } from '../../contract/town-context.js';
import type { RoomHandlers } from '../route-types.js';
import { checkSameOrigin } from '../same-origin.js';

export type McpRoute = 'mcp' | 'mcpStream' | 'mcpEnd';

/** What the routes ask of the MCP room (src/mcp/room.ts, McpRoom): each writes its own reply. */
export interface McpEndpoint {
  post(ctx: TownContext): Promise<void>;
  stream(ctx: TownContext): Promise<void>;
  end(ctx: TownContext): Promise<void>;
}

export function mcpHandlers(room: McpEndpoint, config: Pick<TownConfig, 'origin'>): RoomHandlers<McpRoute> {
  return {
    async mcp(ctx) {
      checkSameOrigin(ctx, config);
      await room.post(ctx);
      return undefined;
    },
    async mcpStream(ctx) {
      checkSameOrigin(ctx, config);
      await room.stream(ctx);
      return undefined;
    },
    async mcpEnd(ctx) {
      checkSameOrigin(ctx, config);
      await room.end(ctx);
      return undefined;
    },
  };
}

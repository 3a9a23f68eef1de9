/**
 * The MCP room: the town as a Model Context Protocol server at /mcp (Streamable HTTP). Its tools
 * are the agent routes of the route table (tools.ts), its resources the cards the caller may see
 * (server.ts, card-watch.ts), its prompt the guide (prompt.ts). The front has authenticated the
 * bearer credential, spent its rate budget and read the body before the room sees a request;
 * the room finds the request's session (sessions.ts) and lets the SDK's transport answer.
 */
import { earlierGuideText } from '../http/earlier-guide.js';
import fs from 'node:fs';
import path from 'node:path';
import type { Caller } from '../contract/caller.js';
import { limits } from '../contract/limits.js';
import type { Logger } from '../operations/log.js';
import { projectRoot } from '../http/guide.js';
import type { AnyHandler, TownContext } from '../http/handler.js';
import { earlierReply } from '../http/front/earlier-reply.js';
import { type CatalogueShape, type Route, routesFor } from '../http/routes.js';
import type { EventStore } from '../stores/event-store.js';
import type { CheckpointWaits } from '../queries/fresh.js';
import { CardWatch, type WatchedWorld } from './card-watch.js';
import { instructions, promptText } from './prompt.js';
import type { TownMcp } from './server.js';
import { answer, jsonRpcError, sessionGone } from './replies.js';
import { type McpLimits, McpSessions } from './sessions.js';
import { agentTools } from './tools.js';

/** Our choices (spec 8 has no MCP): docs/decisions/mcp-server.md says why each. */
export const mcpLimits: McpLimits = {
  sessionsPerCredential: 4,
  sessions: 512,
  idleMs: 30 * 60_000,
  holdMs: limits.liveStreamSeconds * 1000,
  replay: 64,
  slowBytes: 256 * 1024,
};

export interface McpRoomDeps {
  /** The rooms' handlers by route name: what the tools call (a route without one has no tool). */
  handlers: Readonly<Record<string, unknown>>;
  events: EventStore;
  world: WatchedWorld;
  /** The read models' checkpoints: an update is announced once the cards read model shows it. */
  waits: CheckpointWaits;
  origin: string;
  townOpen: () => boolean;
  logger: Logger;
  limits?: Partial<McpLimits>;
  /** The catalogue shape the town serves (spec 9): its tools are that shape's routes. */
  shape?: CatalogueShape;
  /** A GET stream's reader was dropped for reading too slowly (counted in /metrics). */
  onSlowDrop?: () => void;
  /**
   * What this front's session ids start with, when the box has several fronts: a front handed a
   * request of another's session relays it there (src/town/mcp-relay.ts).
   */
  sessionPrefix?: string;
}

export interface McpRoom {
  /** POST /mcp: one JSON-RPC message. */
  post(ctx: TownContext): Promise<void>;
  /** GET (and HEAD) /mcp: the session's stream. */
  stream(ctx: TownContext): Promise<void>;
  /** DELETE /mcp: the session ends. */
  end(ctx: TownContext): Promise<void>;
  readonly sessions: McpSessions;
  readonly town: TownMcp;
  close(): Promise<void>;
}

function packageVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/**
 * The SDK's message types, loaded by the first request that may open a session: the SDK (with
 * ajv and its zod) was 145 of the ~1,200 modules a start loaded, for a room most starts never see
 * a request in (docs/decisions/mcp-server.md).
 */
let sdkTypesLoaded: Promise<typeof import('@modelcontextprotocol/sdk/types.js')> | undefined;
const sdkTypes = () => (sdkTypesLoaded ??= import('@modelcontextprotocol/sdk/types.js'));

export function mcpRoom(deps: McpRoomDeps): McpRoom {
  const handlerOf = (name: string) => (typeof deps.handlers[name] === 'function' ? (deps.handlers[name] as AnyHandler) : undefined);
  const built = (r: Route) => handlerOf(r.name) !== undefined;
  const shape = deps.shape ?? 'current';
  // The earlier shape's heap tails are not tool arguments: its tools act on the town.
  const tools = agentTools(routesFor(true, shape), built, shape === 'current' && handlerOf('scratch') !== undefined);
  const prompts = new Map<boolean, string>();
  const town: TownMcp = {
    tools: new Map(tools.map((t) => [t.tool.name, t])),
    toolList: tools.map((t) => t.tool),
    handler(name) {
      const h = handlerOf(name);
      if (!h) throw new Error(`route ${name} has no handler`);
      if (shape !== 'earlier') return h;
      // The earlier shape's refusal names, as its HTTP replies have them (src/http/front/earlier-reply.ts).
      return async (ctx) => {
        const out = await h(ctx);
        return out && typeof out === 'object' && !Array.isArray(out) ? earlierReply(out as Record<string, unknown>) : out;
      };
    },
    watch: new CardWatch(deps.world, deps.waits),
    logger: deps.logger,
    instructions: instructions(tools),
    prompt() {
      const open = deps.townOpen();
      let text = prompts.get(open);
      // A town of the earlier shape (spec 9) gives that shape's guide.
      const guide = shape === 'earlier' ? earlierGuideText() : undefined;
      if (text === undefined) prompts.set(open, (text = promptText(open, (name) => handlerOf(name) !== undefined, tools, guide)));
      return text;
    },
    version: packageVersion(),
  };
  const sessions = new McpSessions({
    events: deps.events,
    town,
    origin: deps.origin,
    limits: { ...mcpLimits, ...deps.limits },
    logger: deps.logger,
    ...(deps.onSlowDrop ? { onSlowDrop: deps.onSlowDrop } : {}),
    ...(deps.sessionPrefix ? { sessionPrefix: deps.sessionPrefix } : {}),
  });

  /** The session a request names, or the answer for one that names none of this caller's. */
  const named = (ctx: TownContext) => {
    const id = ctx.get('mcp-session-id');
    if (!id) return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return sessions.find(id, ctx.state.caller as Caller) ?? sessionGone();
  };

  return {
    sessions,
    town,
    async post(ctx) {
      if (ctx.get('mcp-session-id') || !(await sdkTypes()).isInitializeRequest(ctx.state.body)) {
        const s = named(ctx);
        return s instanceof Response ? answer(ctx, s) : s.handle(ctx);
      }
      const s = await sessions.open(ctx.state.caller as Caller);
      await s.handle(ctx);
    },
    async stream(ctx) {
      const s = named(ctx);
      if (s instanceof Response) return answer(ctx, s);
      // HEAD asks whether the stream would open, not for one: it must not hold the session's.
      if (ctx.method === 'HEAD') return answer(ctx, new Response(null, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
      await s.handle(ctx);
    },
    async end(ctx) {
      const s = named(ctx);
      return s instanceof Response ? answer(ctx, s) : s.handle(ctx);
    },
    close: () => sessions.close(),
  };
}

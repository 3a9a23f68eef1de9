/**
 * One MCP session's server: the SDK's `Server`, answering tools, resources and the prompt. Tools
 * and resources call the route handlers through route-call.ts; the caller of each request is the
 * one the front verified for the /mcp request that carried it (passed as the transport's
 * `authInfo`), so a tool sees what the same credential sees over HTTP and nothing else.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../operations/log.js';
import type { AnyHandler } from '../http/handler.js';
import type { CardWatch, Subscriber } from './card-watch.js';
import { cardUri, cardUriTemplate, objectOfUri, promptDescription, promptName } from './prompt.js';
import { type Calling, callRoute, type RouteReply } from './route-call.js';
import type { TownTool } from './tools.js';

/** What every session's server shares: the town's tools, its handlers, the watch. */
export interface TownMcp {
  tools: ReadonlyMap<string, TownTool>;
  toolList: Tool[];
  handler(name: string): AnyHandler;
  watch: CardWatch;
  logger: Logger;
  instructions: string;
  prompt(): string;
  version: string;
  /**
   * One validator for every session (the SDK would make an Ajv instance per session); made with
   * the first session's server (this module, and the SDK, load with the first session: room.ts).
   */
  validator?: jsonSchemaValidator;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** MCP's code for a resource that is not there (the spec's -32002). */
const resourceNotFound = -32002;

/** The calling the transport carried for this request (see McpSession.handle). */
function calling(extra: Extra): Calling {
  const c = extra.authInfo?.extra?.calling as Calling | undefined;
  if (!c) throw new McpError(ErrorCode.InternalError, 'the request reached the town without its caller');
  return c;
}

/** A route's reply as a tool result: the reply's JSON as structure and as text; failures flagged. */
export function toolResult(reply: RouteReply): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: reply.text }], structuredContent: reply.json };
  if (reply.error) {
    result.isError = true;
    result._meta = { 'town/httpStatus': reply.status };
  }
  return result;
}

export function townServer(town: TownMcp, session: Subscriber): Server {
  const server = new Server(
    { name: 'town', title: 'Town', version: town.version },
    {
      capabilities: { tools: {}, resources: { subscribe: true }, prompts: {} },
      instructions: town.instructions,
      jsonSchemaValidator: (town.validator ??= new AjvJsonSchemaValidator()),
    },
  );
  const tool = (name: string): TownTool => {
    const t = town.tools.get(name);
    if (!t) throw new McpError(ErrorCode.InvalidParams, `no tool ${JSON.stringify(name.slice(0, 80))} in this town; tools/list names them`);
    return t;
  };
  const call = (name: string, args: Record<string, unknown> | undefined, extra: Extra) =>
    callRoute(tool(name), town.handler(name), args, calling(extra), town.logger);
  /** A failed read as a JSON-RPC error carrying the envelope (resources have no error results). */
  const refused = (reply: RouteReply, code: number = ErrorCode.InvalidParams) => new McpError(code, String(reply.json.message ?? 'refused'), reply.json);
  const objectOf = (uri: string) => {
    const object = objectOfUri(uri);
    if (object === undefined)
      throw new McpError(ErrorCode.InvalidParams, `${JSON.stringify(uri.slice(0, 200))} names no card; card resources are ${cardUriTemplate}`);
    return object;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: town.toolList }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => toolResult(await call(request.params.name, request.params.arguments, extra)));

  // The cards you may see, a page of GET world at a time; the cursor is the page's `next`.
  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    const cursor = request.params?.cursor;
    const reply = await call('world', cursor !== undefined ? { after: cursor } : {}, extra);
    if (reply.error) throw refused(reply);
    const page = reply.json as { cards: { id: string; methods: string[] }[]; next?: string };
    return {
      resources: page.cards.map((c) => ({
        uri: cardUri(c.id),
        name: c.id,
        description: c.methods.length ? `a card; it hears ${c.methods.join(', ')}` : 'a card',
        mimeType: 'application/json',
      })),
      ...(page.next !== undefined ? { nextCursor: page.next } : {}),
    };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: cardUriTemplate,
        name: 'card',
        title: 'A card you may see',
        description: 'read as GET /AGENTS.md/world/{object}/card answers (a `/` in the id is written %2F)',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    const reply = await call('card', { object: objectOf(uri) }, extra);
    if (reply.error) throw refused(reply, reply.status === 404 ? resourceNotFound : ErrorCode.InvalidParams);
    return { contents: [{ uri, mimeType: 'application/json', text: reply.text }] };
  });
  // Subscribing reads the card first: a card the caller may not see is refused as over HTTP.
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const object = objectOf(request.params.uri);
    const reply = await call('card', { object }, extra);
    if (reply.error) throw refused(reply, reply.status === 404 ? resourceNotFound : ErrorCode.InvalidParams);
    town.watch.subscribe(session, object);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    town.watch.unsubscribe(session, objectOf(request.params.uri));
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [{ name: promptName, title: 'How to act in this town', description: promptDescription }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name !== promptName)
      throw new McpError(ErrorCode.InvalidParams, `no prompt ${JSON.stringify(request.params.name.slice(0, 80))}; there is ${promptName}`);
    return { description: promptDescription, messages: [{ role: 'user', content: { type: 'text', text: town.prompt() } }] };
  });
  return server;
}

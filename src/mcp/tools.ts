/**
 * The town's MCP tools, generated from the route table (src/http/routes.ts): every agent route
 * (a bearer route under /AGENTS.md) that this town serves is one tool, named as the catalogue
 * names the route. A tool's input is the route's path parameters, query fields and body fields
 * side by side in one object, its JSON Schema rendered from the row's io-ts codecs
 * (src/http/json-schema.ts). A route added to the table with a handler is a tool at once;
 * test/mcp/tools.test.ts checks every row against the tools.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ObjectId, ScratchName } from '../contract/bodies.js';
import { TownError } from '../contract/town-error.js';
import { type JsonSchema, jsonSchemaOf, objectSchemaOf } from '../http/json-schema.js';
import { hrefTemplate, type Route } from '../http/routes.js';

/** A tool and what it needs to turn its arguments back into the route's request. */
export interface TownTool {
  tool: Tool;
  route: Route;
  /** The row's path parameters, in path order. */
  params: string[];
  /** Argument names that are query fields. */
  query: ReadonlySet<string>;
  /** Argument names that are body fields (the body codec judges them). */
  body: ReadonlySet<string>;
  /** Whether the tool takes `scratch`: the route also runs in a scratch world. */
  scratch: boolean;
}

/** The request a tool's arguments stand for. */
export interface RouteArguments {
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** Undefined when the route takes no body and none was given. */
  body: Record<string, unknown> | undefined;
  scratch?: string;
}

/** A route is an agent route: a bearer route of the guide's /AGENTS.md (not the page or MCP rows). */
export function isAgentRoute(r: Route): boolean {
  return r.auth === 'bearer' && !r.base && r.path.startsWith('/AGENTS.md');
}

const paramSchemas: Record<string, JsonSchema> = {
  object: { ...jsonSchemaOf(ObjectId), description: 'a card id, as GET world lists it (a `/` in it stays `/`)' },
  method: { type: 'string', minLength: 1, description: "the method to cast: a key of the card's `_actions`, or `receive` for a spell" },
  slug: { type: 'string', minLength: 1, description: "a receipt's spoken name (its slug), or with full=1 its full id" },
  name: { ...jsonSchemaOf(ScratchName), description: 'the name of one of your scratch worlds' },
};

const paramsOf = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);

/**
 * The tools of a town: one per agent route `built` says is served. `scratchServed`: scratch
 * worlds can be opened here, so the routes that also run in one take `scratch`.
 */
export function agentTools(table: readonly Route[], built: (r: Route) => boolean, scratchServed: boolean): TownTool[] {
  return table.filter((r) => isAgentRoute(r) && built(r)).map((r) => toolOf(r, scratchServed));
}

function toolOf(r: Route, scratchServed: boolean): TownTool {
  const params = paramsOf(r.path);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const defs: Record<string, JsonSchema> = {};
  const rules: string[] = [];
  const take = (name: string, schema: JsonSchema, needed: boolean, from: string) => {
    if (name in properties) throw new Error(`route ${r.name}: ${from} field ${name} has the name of another argument; its tool cannot take both`);
    properties[name] = schema;
    if (needed) required.push(name);
  };
  for (const p of params) take(p, paramSchemas[p] ?? { type: 'string', description: `path parameter ${p}` }, true, 'path');
  const query = new Set<string>();
  const body = new Set<string>();
  for (const [codec, names, from] of [
    [r.query, query, 'query'],
    [r.body, body, 'body'],
  ] as const) {
    if (!codec) continue;
    const o = objectSchemaOf(codec);
    if (!o) throw new Error(`route ${r.name}: its ${from} codec is not an object of named fields; a tool cannot take it`);
    for (const [k, v] of Object.entries(o.properties)) {
      take(k, v, o.required.includes(k), from);
      names.add(k);
    }
    Object.assign(defs, o.defs);
    rules.push(...o.rules);
  }
  const scratch = Boolean(r.scratch) && scratchServed;
  if (scratch)
    take('scratch', { ...jsonSchemaOf(ScratchName), description: 'run this in your scratch world of that name instead of the town' }, false, 'scratch');

  const inputSchema: Tool['inputSchema'] = {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
    ...(Object.keys(defs).length ? { $defs: defs } : {}),
  };
  const href = `${r.method} ${hrefTemplate(r)}`;
  const description = `${r.does}.${rules.length ? ` Rules: ${rules.join('; ')}.` : ''} Answers what ${href} answers, as JSON.`;
  const readOnly = r.method === 'GET';
  // A turn, or any call named by an intent, is the same call when sent again (the first receipt).
  const named = body.has('intent') && properties.intent !== undefined && required.includes('intent');
  return {
    tool: {
      name: r.name,
      title: href,
      description,
      inputSchema,
      annotations: {
        title: href,
        readOnlyHint: readOnly,
        // DELETE ends what the caller holds (a scratch world): what was in it is gone.
        ...(r.method === 'DELETE' ? { destructiveHint: true } : {}),
        idempotentHint: readOnly || named,
        openWorldHint: false,
      },
    },
    route: r,
    params,
    query,
    body,
    scratch,
  };
}

/**
 * A tool's arguments as the route's request: path parameters (text, required), query fields,
 * `scratch`, and the rest as the body, where the body codec refuses what the route does not take
 * (with the message the HTTP route gives). A route without a body refuses any other argument.
 */
export function routeArguments(t: TownTool, args: Record<string, unknown> | undefined): RouteArguments {
  const given = args ?? {};
  const params: Record<string, string> = {};
  for (const p of t.params) {
    const v = given[p];
    if (typeof v !== 'string') {
      throw new TownError(
        'hostRequest',
        `argument \`${p}\` ${v === undefined ? 'is required' : 'must be text'} (${t.tool.name} takes it as the path's {${p}})`,
      );
    }
    params[p] = v;
  }
  const query: Record<string, unknown> = {};
  let body: Record<string, unknown> | undefined;
  let scratch: string | undefined;
  for (const [k, v] of Object.entries(given)) {
    if (v === undefined || t.params.includes(k)) continue;
    if (t.query.has(k)) query[k] = v;
    else if (k === 'scratch' && t.scratch) {
      if (typeof v !== 'string') throw new TownError('hostRequest', 'argument `scratch` must be the name of a scratch world (text)');
      scratch = v;
    } else if (t.route.body) (body ??= {})[k] = v;
    else
      throw new TownError(
        'hostRequest',
        `argument \`${k}\` is not one ${t.tool.name} takes; it takes ${Object.keys(t.tool.inputSchema.properties ?? {}).join(', ') || 'none'}`,
      );
  }
  // A route with a body codec always decodes one (its required fields are then named missing).
  if (t.route.body) body ??= {};
  return { params, query, body, ...(scratch !== undefined ? { scratch } : {}) };
}

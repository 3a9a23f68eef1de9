/**
 * The decode step: the body read (request-body.ts: size, depth, JSON) and the query, each
 * decoded by the route's io-ts codec. A value the codec refuses is the spec's class for it
 * (`badJson`, `hostRequest`, `moduleTooLarge`: shape.ts explains which and where).
 */
import type * as t from 'io-ts';
import { TownError } from '../../contract/town-error.js';
import type { TownContext } from '../handler.js';
import type { Route } from '../routes.js';
import { explain, shapeOf, shapeText } from '../shape.js';

export type BodyReader = (ctx: TownContext) => Promise<Record<string, unknown> | undefined>;

export async function decodeBody(ctx: TownContext, r: Route, read: BodyReader | undefined): Promise<unknown> {
  const raw = read ? await read(ctx) : undefined;
  if (!r.body) return raw;
  if (raw === undefined) {
    throw new TownError('badJson', `this route takes a JSON object body: ${shapeText(shapeOf(r.body))}`, { hintHref: '/AGENTS.md/api' });
  }
  return decode(r.body, raw, 'body');
}

/**
 * A route's codec's answer to no query at all, decoded once (most requests send none: a turn, a
 * read), frozen because every such request shares it; a codec that refuses an empty query is
 * asked every time, so the refusal is made as before.
 */
const noQuery = new WeakMap<object, Readonly<Record<string, string | undefined>> | false>();

export function decodeQuery(ctx: TownContext, r: Route): Record<string, string | undefined> {
  if (ctx.querystring === '') {
    if (!r.query) return {};
    let kept = noQuery.get(r.query);
    if (kept === undefined) {
      const d = r.query.decode({});
      kept = d._tag === 'Right' ? Object.freeze(d.right as Record<string, string | undefined>) : false;
      noQuery.set(r.query, kept);
    }
    if (kept !== false) return kept as Record<string, string | undefined>;
  }
  const q = ctx.query as Record<string, string | string[] | undefined>;
  if (r.query) return decode(r.query, q, 'query') as Record<string, string | undefined>;
  const flat: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(q)) flat[k] = Array.isArray(v) ? v[0] : v;
  return flat;
}

/** A value decoded by a codec, or the refusal the front gives for it (also what MCP tools give). */
export function decode(codec: t.Type<any, any, unknown>, value: unknown, where: 'body' | 'query'): unknown {
  const r = codec.decode(value);
  if (r._tag === 'Right') return r.right;
  const { cls, message } = explain(r.left, where, codec);
  throw new TownError(cls, message, { hintHref: '/AGENTS.md/api' });
}

/**
 * The reply step: a handler's object becomes the JSON reply with `_links`, serialised once and
 * measured against the reply limit (spec 8); a body a handler set itself is measured the same
 * way. Streams (SSE) are not measured: they are sent as they come.
 */
import { Stream } from 'node:stream';
import { limits } from '../../contract/limits.js';
import { TownError } from '../../contract/town-error.js';
import type { TownContext } from '../handler.js';
import { apiHref, type Links, replyLinks, selfLinksJson } from '../../contract/links.js';

/** Serialise a JSON reply (once) and refuse one over the reply limit. Streams are not measured. */
export function finishReply(ctx: TownContext): void {
  const body: unknown = ctx.body;
  if (body == null || body instanceof Stream) return;
  let size: number;
  if (typeof body === 'string') size = Buffer.byteLength(body);
  else if (Buffer.isBuffer(body)) size = body.length;
  else {
    const text = JSON.stringify(body);
    ctx.body = text;
    size = Buffer.byteLength(text);
  }
  measure(size);
}

function measure(size: number): void {
  if (size > limits.replyBytes) {
    throw new TownError('replyTooLarge', `the reply would be ${size} bytes, over the limit of ${limits.replyBytes}; ask for less (compact=1, a page)`);
  }
}

const jsonType = 'application/json; charset=utf-8';

/**
 * A handler's object as the reply's JSON value: its fields, then `_links` (self, api, then the
 * handler's own). `JSON.stringify` of it is the text jsonReply sends; the MCP tools (src/mcp)
 * answer with it, so a tool's result is the HTTP reply.
 */
export function replyObject(self: string, out: Record<string, unknown>): Record<string, unknown> {
  const { _links, ...rest } = out as { _links?: Links };
  return { ...rest, _links: replyLinks(self, _links) };
}

/** A prepared reply's text around its `self` href (preparedReply). */
interface Prepared {
  head: string;
  tail: string;
}

const preparedTexts = new WeakMap<object, Prepared>();

/**
 * Marks a handler's reply object as answered again and again unchanged (a kept card's reply,
 * src/queries/kept-cards.ts): its text is made here once, and jsonReply only puts each request's
 * `self` href into it. The text is exactly what jsonReply makes of the object otherwise. The
 * object is frozen, as it must not change once its text is made. A reply whose own links name
 * `self` or `api` is left as it is (they override the front's, which the text does not follow).
 */
export function preparedReply<T extends Record<string, unknown>>(out: T): T {
  const { _links, ...rest } = out as { _links?: Links };
  if (Object.getPrototypeOf(out) !== Object.prototype || 'toJSON' in out || (_links !== undefined && ('self' in _links || 'api' in _links))) return out;
  const fields = JSON.stringify(rest);
  const own = JSON.stringify(_links ?? {});
  preparedTexts.set(out, {
    head: `${fields.length === 2 ? '{' : `${fields.slice(0, -1)},`}"_links":{"self":{"href":`,
    tail: `},"api":${JSON.stringify({ href: apiHref })}${own.length === 2 ? '' : `,${own.slice(1, -1)}`}}}`,
  });
  return Object.freeze(out);
}

/** Refuses a reply of `size` bytes over the reply limit (replyTooLarge). */
export const measureReply = measure;

const apiJson = JSON.stringify({ href: apiHref });

/**
 * `JSON.stringify({...rest, _links: replyLinks(self, _links)})` of a plain object with an own,
 * writable `_links` that names neither `self` nor `api`, made without the two copies: `_links`
 * is set aside while the object is serialised (JSON leaves out a field that is undefined, in
 * place, so the other fields keep their order), then put back. Undefined for any other object.
 */
function withLinksSpliced(out: Record<string, unknown>, self: string): string | undefined {
  const own = out._links as Links | undefined;
  if (typeof own !== 'object' || own === null || Array.isArray(own) || 'self' in own || 'api' in own || 'toJSON' in own) return undefined;
  const d = Object.getOwnPropertyDescriptor(out, '_links');
  if (!d?.writable || !d.enumerable) return undefined;
  let fields: string;
  out._links = undefined;
  try {
    fields = JSON.stringify(out);
  } finally {
    out._links = own;
  }
  const ownJson = JSON.stringify(own);
  const links = `{"self":{"href":${JSON.stringify(self)}},"api":${apiJson}${ownJson.length === 2 ? '}' : `,${ownJson.slice(1)}`}`;
  return fields.length === 2 ? `{"_links":${links}}` : `${fields.slice(0, -1)},"_links":${links}}`;
}

/**
 * A handler's object as the reply: its fields, then `_links` (self, api, then the handler's
 * own), serialised once and measured. The same bytes and headers as setting `ctx.body` to the
 * object and letting koa serialise it, without building the object twice.
 */
export function jsonReply(ctx: TownContext, out: Record<string, unknown>): void {
  let text: string | undefined;
  const kept = preparedTexts.get(out);
  const proto: unknown = kept === undefined ? Object.getPrototypeOf(out) : undefined;
  if (kept !== undefined) {
    text = kept.head + JSON.stringify(ctx.originalUrl) + kept.tail;
  } else if ((proto === Object.prototype || proto === null) && !('toJSON' in out) && (text = withLinksSpliced(out, ctx.originalUrl)) !== undefined) {
    // A plain object with links of its own (a turn's reply): its text is made without copies.
  } else if ((proto !== Object.prototype && proto !== null) || '_links' in out || 'toJSON' in out) {
    const { _links, ...rest } = out as { _links?: Links };
    text = JSON.stringify({ ...rest, _links: replyLinks(ctx.originalUrl, _links) });
  } else {
    // `{...out, _links}` serialises as `out` with `_links` last: splice it into out's text.
    const own = JSON.stringify(out);
    const links = selfLinksJson(ctx.originalUrl);
    text = own.length === 2 ? `{"_links":${links}}` : `${own.slice(0, -1)},"_links":${links}}`;
  }
  measure(Buffer.byteLength(text));
  // As koa does for an object body: no stale length, a JSON type unless one is set.
  const response = ctx.response;
  response.remove('Content-Length');
  const type = response.type;
  if (!type || !/\bjson\b/i.test(type)) response.set('Content-Type', jsonType);
  ctx.body = text;
}

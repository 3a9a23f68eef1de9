/**
 * The MCP room's answers written to the socket: the transport's own (a web-standard `Response`),
 * and the JSON-RPC errors the room gives before a session is found. A module of its own, without
 * the SDK, so that the room answers these without loading the SDK (session.ts loads it, on a
 * session's first request: docs/decisions/mcp-server.md).
 */
import type { ServerResponse } from 'node:http';
import type { TownContext } from '../http/handler.js';

export function headersOf(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

/** A whole answer of the transport (JSON, or none) written to the socket: koa must not rewrite it (a 202 has no body). */
export async function answer(ctx: TownContext, response: Response): Promise<void> {
  write(ctx, response, response.body ? await response.text() : '');
}

/** The transport's answer with `text` as its body (the text its Response holds). */
export function write(ctx: TownContext, response: Response, text: string): void {
  ctx.respond = false;
  const res: ServerResponse = ctx.res;
  res.writeHead(response.status, { ...headersOf(response.headers), 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** What the transport itself answers for a session it no longer has. */
export function sessionGone(): Response {
  return jsonRpcError(404, -32001, 'Session not found');
}

/** A JSON-RPC error as the transport writes its own (id null: no message was taken). */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json' } });
}

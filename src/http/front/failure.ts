/**
 * Every failure of a request as its reply: a TownError or an AT Protocol failure as the spec's
 * envelope (2.10), an HTML error page on a page route asked for by a browser, an `/xrpc` error on
 * the repository routes; anything else is 500 `internal`, logged with the request id and never
 * shown to the caller.
 */
import { TownError } from '../../contract/town-error.js';
import { envelope, errorPage, XrpcFailure, xrpcError } from '../envelope.js';
import type { TownContext } from '../handler.js';
import type { Route } from '../routes.js';

export interface Logger {
  error(message: string, fields: Record<string, unknown>): void;
}

export const stderrLogger: Logger = {
  error: (message, fields) => process.stderr.write(`${JSON.stringify({ level: 'error', message, ...fields })}\n`),
};

export function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

export function replyFailure(ctx: TownContext, err: unknown, route: Route | undefined, logger: Logger): void {
  let failure: TownError | XrpcFailure;
  if (err instanceof TownError || err instanceof XrpcFailure) failure = err;
  else {
    logger.error('the front failed', {
      requestId: ctx.state.requestId,
      method: ctx.method,
      url: ctx.originalUrl,
      route: route?.name,
      error: errorText(err),
    });
    failure = new TownError('internal', 'the front failed; nothing was decided', { fields: { requestId: ctx.state.requestId } });
  }
  if (ctx.headerSent || !ctx.writable) return;
  for (const name of ctx.res.getHeaderNames()) if (name !== 'x-request-id') ctx.res.removeHeader(name);
  if (failure instanceof TownError && route?.reply === 'html' && ctx.accepts('json', 'html') === 'html') {
    const page = errorPage(failure);
    ctx.set(page.headers);
    ctx.status = page.status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page.html;
    return;
  }
  const rendered = failure instanceof XrpcFailure || route?.reply === 'xrpc' ? xrpcError(failure, ctx.originalUrl) : envelope(failure, ctx.originalUrl);
  ctx.set(rendered.headers);
  ctx.status = rendered.status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(rendered.body);
}

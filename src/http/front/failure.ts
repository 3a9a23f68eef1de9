/**
 * Every failure of a request as its reply: a TownError or an AT Protocol failure as the spec's
 * envelope (2.10), an HTML error page on a page route asked for by a browser, an `/xrpc` error on
 * the repository routes; a storage fault (full disk, I/O error) is 503 `hostUnavailable`;
 * anything else is 500 `internal`, logged with the request id and never shown to the caller.
 */
import type { Authenticator } from '../../contract/caller.js';
import { storageFault } from '../../contract/storage-fault.js';
import { TownError } from '../../contract/town-error.js';
import { errorPage } from '../../pages/error-page.js';
import { envelope, XrpcFailure, xrpcError } from '../../contract/envelope.js';
import { sessionCookie, type TownContext } from '../handler.js';
import type { Route } from '../routes.js';
import { setSecurityHeaders } from '../../contract/security-headers.js';
import type { Logger } from '../../operations/log.js';

/** The failure step writes through the operations log's shape (src/operations/log.ts). */
export type { Logger };

export const stderrLogger: Logger = {
  error: (message, fields) => process.stderr.write(`${JSON.stringify({ level: 'error', message, ...fields })}\n`),
};

export function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/**
 * Paths a browser may land on that are not the agents' (guide, API, repository, assets): a
 * person who mistypes one gets a page, not JSON.
 */
const agentsPath = /^\/(?:AGENTS\.md|xrpc|\.well-known|static)(?:\/|$)/;

/** Whether a person (a browser asking for HTML) is on a page: a page route, or no route at all. */
function onPage(ctx: TownContext, route: Route | undefined): boolean {
  if (route ? route.reply !== 'html' : agentsPath.test(ctx.path)) return false;
  return ctx.accepts('json', 'html') === 'html';
}

export async function replyFailure(ctx: TownContext, err: unknown, route: Route | undefined, logger: Logger, authenticator?: Authenticator): Promise<void> {
  let failure: TownError | XrpcFailure;
  const fault = err instanceof TownError || err instanceof XrpcFailure ? undefined : storageFault(err);
  if (err instanceof TownError || err instanceof XrpcFailure) failure = err;
  else if (fault) {
    // The disk, not the request: logged for the operator, answered as a host that cannot take
    // writes now (nothing was acknowledged; the same intent can be sent again).
    logger.error('storage fault', { requestId: ctx.state.requestId, route: route?.name, code: fault, error: errorText(err) });
    failure = new TownError(
      'hostUnavailable',
      `the town cannot write to its storage now (${fault}); nothing was acknowledged: send the same request again shortly`,
      {
        headers: { 'Retry-After': '5' },
      },
    );
  } else {
    logger.error('the front failed', {
      requestId: ctx.state.requestId,
      method: ctx.method,
      // The path, not the URL: a query may carry what must not be logged.
      path: ctx.path,
      route: route?.name,
      error: errorText(err),
    });
    failure = new TownError('internal', 'the front failed; nothing was decided', { fields: { requestId: ctx.state.requestId } });
  }
  if (ctx.headerSent || !ctx.writable) return;
  for (const name of ctx.res.getHeaderNames()) if (name !== 'x-request-id') ctx.res.removeHeader(name);
  setSecurityHeaders(ctx.res);
  if (failure instanceof TownError && onPage(ctx, route)) {
    const page = errorPage(failure, await signedIn(ctx, authenticator), ctx.originalUrl);
    if (ctx.headerSent || !ctx.writable) return;
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

/**
 * Who the error page's navigation names: the caller the auth step found, else (a failure before
 * it, e.g. no such route) the session the cookie names, if it is still good.
 */
async function signedIn(ctx: TownContext, authenticator: Authenticator | undefined) {
  if (ctx.state.caller?.via === 'cookie') return ctx.state.caller;
  const session = ctx.cookies.get(sessionCookie);
  if (!session || !authenticator || ctx.state.caller) return undefined;
  return authenticator.session(session).catch(() => undefined);
}

/**
 * The auth step of a route: a bearer credential (bearer routes require one), a session cookie
 * (cookie routes; the signed-out are served as guests, sent to /enter or refused, as the row
 * says; pages open to all read it too, to name who is signed in), or on /xrpc an optional
 * bearer that is never refused here.
 */
import type { Authenticator } from '../../contract/caller.js';
import { TownError } from '../../contract/town-error.js';
import { sessionCookie, type TownContext } from '../handler.js';
import type { Route } from '../routes.js';

/** Sets `ctx.state.caller`; resolves false when the request was answered here (a 303 to /enter). */
export async function authenticate(ctx: TownContext, r: Route, authenticator: Authenticator): Promise<boolean> {
  const state = ctx.state;
  if (r.auth === 'bearer') {
    const token = bearerToken(ctx);
    if (token === undefined) {
      throw new TownError('unauthenticated', 'this route needs the header `Authorization: Bearer <credential>`', {
        headers: { 'WWW-Authenticate': 'Bearer realm="town"' },
        hintHref: '/AGENTS.md',
      });
    }
    const caller = await authenticator.bearer(token);
    if (!caller) {
      throw new TownError('unauthenticated', 'the credential is not one this town issued, or it was revoked', {
        headers: { 'WWW-Authenticate': 'Bearer realm="town", error="invalid_token"' },
        hintHref: '/AGENTS.md',
      });
    }
    state.caller = caller;
  } else if (r.auth === 'optional') {
    // /xrpc also carries service JWTs the front cannot verify: an unverified bearer is left
    // to the handler, never refused here.
    const token = bearerToken(ctx);
    if (token !== undefined) state.caller = await authenticator.bearer(token);
  } else if (r.auth === 'cookie' || (r.auth === 'none' && r.reply === 'html' && r.method === 'GET')) {
    // A page anyone may read (the guest door, the style specimen) still names who is signed in.
    const session = ctx.cookies.get(sessionCookie);
    if (session) {
      state.caller = await authenticator.session(session);
      if (state.caller) state.session = session;
    }
    if (!state.caller && r.signedOut === 'enter') {
      ctx.status = 303;
      ctx.redirect(`/enter?next=${encodeURIComponent(ctx.originalUrl)}`);
      ctx.status = 303;
      return false;
    }
    if (!state.caller && r.signedOut === 'refuse') {
      throw new TownError('unauthenticated', 'this stream is for a signed-in browser: it needs the session cookie', { hintHref: '/enter' });
    }
  }
  return true;
}

/** The token of `Authorization: Bearer <token>`, or undefined for any other form. */
function bearerToken(ctx: TownContext): string | undefined {
  const header = ctx.req.headers.authorization ?? '';
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return m ? m[1] : undefined;
}

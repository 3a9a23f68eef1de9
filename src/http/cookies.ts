/**
 * The browser session cookie. Written by hand rather than through koa's cookie jar, which
 * refuses a Secure cookie on a plain connection: behind a TLS proxy the town is `secure` while
 * the socket it sees is not.
 */
import { sessionCookie as sessionCookieName, type TownContext } from './handler.js';
import type { TownConfig } from '../contract/town-config.js';

function cookie(value: string, maxAgeSeconds: number, config: Pick<TownConfig, 'secure'>): string {
  const parts = [`${sessionCookieName}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (config.secure) parts.push('Secure');
  return parts.join('; ');
}

export function setSessionCookie(ctx: TownContext, config: Pick<TownConfig, 'secure'>, sessionId: string, lifetimeMs: number): void {
  ctx.append('Set-Cookie', cookie(sessionId, Math.floor(lifetimeMs / 1000), config));
}

export function clearSessionCookie(ctx: TownContext, config: Pick<TownConfig, 'secure'>): void {
  ctx.append('Set-Cookie', cookie('', 0, config));
}

/** The session id the browser sent, if any. */
export function sessionCookieOf(ctx: TownContext): string | undefined {
  return ctx.cookies.get(sessionCookieName) || undefined;
}

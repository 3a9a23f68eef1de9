/**
 * The security headers every reply carries, set once here for the front, the
 * failure step and the wire guard alike, so no reply (a page, a JSON envelope, an event stream,
 * a refusal written straight to the socket) goes out without them.
 *
 * The policy allows the town's own script and stylesheet and nothing inline: every page works
 * without script, and what a guest wrote can never run even if an escape were missed. Pages are
 * never framed (clickjacking a "cast" button), replies are never sniffed into another type (a
 * JSON error echoing a request path must stay JSON), and a link out tells no other site which
 * page of the town it was on. They sit in the contract, below the front, because the
 * operations' worker server and start-up page send them too.
 */
import type { ServerResponse } from 'node:http';

export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const securityHeaders: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': contentSecurityPolicy,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
});

const entries = Object.entries(securityHeaders);

/** Sets the security headers on a reply that has not started. */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of entries) res.setHeader(name, value);
}

/** The same headers as raw HTTP/1.1 header lines, for replies written straight to a socket. */
export const securityHeaderLines = entries.map(([name, value]) => `${name}: ${value}\r\n`).join('');

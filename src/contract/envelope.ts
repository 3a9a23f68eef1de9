/**
 * The one place that turns a failure into a reply: the JSON envelope of spec 2.10 (status, class,
 * message, hint?, the host's extra fields, _links) or an AT Protocol error on /xrpc routes
 * (spec 7.3); a browser on a page gets src/pages/error-page.ts instead. The same bytes are also written
 * straight to a socket by the wire guard (src/http/wire.ts), below koa, and sent by the
 * operations' worker server and start-up page: so it sits in the contract, below all of them.
 */
import { errorClassOf, xrpcErrors, type ErrorClass, type XrpcError } from './errors.js';
import { TownError } from './town-error.js';
import { XrpcFailure } from './xrpc-failure.js';
import { securityHeaderLines } from './security-headers.js';
import { replyLinks, type Links } from './links.js';

export interface Rendered {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Thrown by /xrpc handlers for the errors of spec 7.3 (src/contract/xrpc-failure.ts). */
export { XrpcFailure };

const reserved = new Set(['status', 'class', 'message', 'hint', '_links']);

/** Spec 2.10. The host's extra fields are kept, but never over the envelope's own. */
export function envelope(err: TownError, self: string): Rendered {
  const spec = errorClassOf(err.cls);
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err.extra.fields ?? {})) if (!reserved.has(k)) extra[k] = v;
  const own: Links = err.extra.hintHref ? { hint: { href: err.extra.hintHref } } : {};
  const body: Record<string, unknown> = {
    status: spec.status,
    class: err.cls,
    message: err.message,
    ...(err.extra.hint !== undefined ? { hint: err.extra.hint } : {}),
    ...extra,
    _links: replyLinks(self, own),
  };
  return { status: spec.http, headers: { ...err.extra.headers }, body };
}

/** The front's own failures as AT Protocol errors, for /xrpc callers. */
const xrpcNameOf: Partial<Record<ErrorClass, XrpcError>> = {
  ambiguous: 'AmbiguousSlug',
  badJson: 'InvalidRequest',
  badRequest: 'InvalidRequest',
  bodyTooLarge: 'InvalidRequest',
  busy: 'HostUnavailable',
  denied: 'Denied',
  hostRequest: 'InvalidRequest',
  hostTimeout: 'HostTimeout',
  hostUnavailable: 'HostUnavailable',
  moduleTooLarge: 'InvalidRequest',
  notImplemented: 'MethodNotImplemented',
  rateLimited: 'RateLimitExceeded',
  unauthenticated: 'InvalidToken',
  unspellable: 'InvalidRequest',
};

export function xrpcError(err: TownError | XrpcFailure, self: string): Rendered {
  if (err instanceof XrpcFailure) {
    return { status: xrpcErrors[err.error].http, headers: err.headers, body: { error: err.error, message: err.message, _links: replyLinks(self) } };
  }
  const name = xrpcNameOf[err.cls];
  // Classes with no 7.3 counterpart keep their HTTP status under a name in the AT Protocol style.
  const error = name ?? (err.cls === 'internal' ? 'InternalServerError' : err.cls[0].toUpperCase() + err.cls.slice(1));
  const status = name ? xrpcErrors[name].http : errorClassOf(err.cls).http;
  return { status, headers: { ...err.extra.headers }, body: { error, message: err.message, _links: replyLinks(self) } };
}

const reasonPhrase: Partial<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
  505: 'HTTP Version Not Supported',
};

/**
 * A whole HTTP/1.1 response for the wire guard, which answers before koa (and closes). `self` is
 * the request target when the request line was read at all.
 */
export function rawEnvelope(cls: ErrorClass, message: string, self: string | undefined, date: Date): Buffer {
  // Spec 2.10 lists `self` in every envelope. A request refused before any target could be read
  // named no resource: the town's root stands in (docs/decisions/wire-guard.md).
  const { status, body } = envelope(new TownError(cls, message), self ?? '/');
  const json = Buffer.from(JSON.stringify(body));
  const head =
    `HTTP/1.1 ${status} ${reasonPhrase[status] ?? 'Error'}\r\n` +
    `Date: ${date.toUTCString()}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${json.length}\r\n` +
    securityHeaderLines +
    'Connection: close\r\n\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), json]);
}

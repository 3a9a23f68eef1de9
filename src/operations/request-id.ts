/**
 * The request id a caller may choose: X-Request-Id, echoed on the reply and written on the
 * request's log line, when it is a sane token. The front and the start-up page both read it.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** What a caller may send as X-Request-Id and have echoed: a token of 1–64 plain characters. */
const saneRequestId = /^[A-Za-z0-9._:+=@-]{1,64}$/;

/** The caller's X-Request-Id when it is sane, else undefined (the front makes one). */
export function givenRequestId(ctx: { req: { headers: IncomingHttpHeaders } }): string | undefined {
  const given = ctx.req.headers['x-request-id'];
  return typeof given === 'string' && saneRequestId.test(given) ? given : undefined;
}

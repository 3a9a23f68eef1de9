/**
 * The usual JSON body read directly: a Content-Length the front has already checked against the
 * route's limit, no Content-Encoding, no Transfer-Encoding (what every turn an agent sends is).
 * The bytes are gathered, decoded as UTF-8 and parsed exactly as koa-body (co-body, raw-body,
 * @hapi/bourne) would: a leading byte order mark dropped, an empty body read as none, `__proto__`
 * refused, and every failure thrown in the shape koa-body gives it (request-body.ts classes it),
 * so the answers do not change. Anything else (compressed, chunked, a form) still goes through
 * koa-body.
 *
 * Why: koa-body asks the Content-Type four times (type-is, a parse each) and raw-body decodes
 * through iconv-lite, listeners and closures of its own; for a 60-byte turn body that was ~7 % of
 * a turn's main thread and ~7 KB of its garbage (docs/performance.md, "Session 7").
 */
import type { IncomingMessage } from 'node:http';

/** What @hapi/bourne looks for before it walks a parsed body for `__proto__` keys. */
const suspectRx =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/** raw-body's failures, as request-body.ts's bodyFailure reads them (status, type). */
function rawFailure(message: string, type: string): Error {
  return Object.assign(new Error(message), { status: 400, statusCode: 400, expose: true, type });
}

/** Whether the body can be read here (else koa-body reads it). */
export function plainJsonBody(req: IncomingMessage): boolean {
  const h = req.headers;
  const coding = h['content-encoding'];
  return h['content-length'] !== undefined && h['transfer-encoding'] === undefined && (coding === undefined || coding === 'identity');
}

/** The body's text: exactly `length` bytes, decoded as UTF-8 without a leading byte order mark. */
export function readDeclared(req: IncomingMessage, length: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const finish = (error: Error | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) return reject(error);
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, got);
      const text = bytes.toString('utf8');
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    };
    const onData = (chunk: Buffer) => {
      got += chunk.length;
      if (got > length) finish(rawFailure('request size did not match content length', 'request.size.invalid'));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(got === length ? undefined : rawFailure('request size did not match content length', 'request.size.invalid'));
    // Node ends a request cut off mid-body with ECONNRESET (`aborted`); raw-body reports it first.
    const onError = (error: Error) => finish((error as { code?: string }).code === 'ECONNRESET' ? rawFailure('request aborted', 'request.aborted') : error);
    // Closed before its end: the client went away mid-body.
    const onClose = () => finish(rawFailure('request aborted', 'request.aborted'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

/**
 * co-body's JSON with `strict: false`: an empty text is no body; otherwise JSON.parse, and a
 * parsed object holding a `__proto__` key anywhere is refused as @hapi/bourne refuses it. Errors
 * carry status 400, as co-body's do.
 */
export function parseJsonText(text: string): unknown {
  if (!text) return text;
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && suspectRx.test(text)) refuseProto(value);
    return value;
  } catch (err) {
    throw Object.assign(err as Error, { status: 400 });
  }
}

/** @hapi/bourne's scan: a `__proto__` own key at any depth is an error. */
function refuseProto(value: object): void {
  let next: object[] = [value];
  while (next.length) {
    const nodes = next;
    next = [];
    for (const node of nodes) {
      if (Object.hasOwn(node, '__proto__')) throw new SyntaxError('Object contains forbidden prototype property');
      for (const key in node) {
        const v = (node as Record<string, unknown>)[key];
        if (v && typeof v === 'object') next.push(v);
      }
    }
  }
}

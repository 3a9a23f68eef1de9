/**
 * Reading a request body: koa-body with the route's size limit, then the two checks of spec 7.1
 * koa-body does not make: the body is a JSON object (not a list, not a bare value), and it nests
 * at most 256 containers deep. Failures are `bodyTooLarge` (413) and `badJson` (400); whether
 * the object has the right fields is the codec's business (hostRequest), not this module's.
 */
import { koaBody } from 'koa-body';
import { limits } from '../contract/limits.js';
import type { TownContext } from './handler.js';
import { TownError } from '../contract/town-error.js';
import type { Route } from './routes.js';

const wellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * What is wrong with a parsed body, in one walk: nesting deeper than `maxDepth` containers, or a
 * text (key or string) holding a lone surrogate (`"\ud800"` in JSON). No UTF-8 can carry one:
 * the read models (msgpack) and every reader would see U+FFFD where the journal keeps the
 * surrogate, so a key read back from a card would not name its row.
 */
export function bodyFault(value: unknown, maxDepth: number): 'depth' | 'surrogate' | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node === 'string') {
      if (!wellFormed(node)) return 'surrogate';
    } else if (typeof node === 'object' && node !== null) {
      if (depth + 1 > maxDepth) return 'depth';
      for (const [k, v] of Object.entries(node)) {
        if (!wellFormed(k)) return 'surrogate';
        stack.push([v, depth + 1]);
      }
    }
  }
  return undefined;
}

/**
 * Whether a declared Content-Length (digits only: the wire's scanner refused anything else) is
 * over `limit`. Compared as text, not through co-body, which truncates the length to 32 bits
 * (`~~len`): 2^31 and more came out negative, the check was skipped and the read waited for a
 * body of gigabytes until the request clock ran out, 30 s later.
 */
export function declaredOver(declared: string, limit: number): boolean {
  const digits = declared.trim().replace(/^0+(?=\d)/, '');
  return digits.length > 15 || Number(digits) > limit;
}

/** As type-is: a body is announced by Transfer-Encoding or a Content-Length (even 0). */
const hasBody = (ctx: TownContext) => ctx.req.headers['transfer-encoding'] !== undefined || ctx.req.headers['content-length'] !== undefined;

const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * Reads the body of a POST into `ctx.request.body` (a JSON object, or undefined when none was
 * sent). JSON routes read any body as JSON whatever its Content-Type claims (agents using
 * `curl -d` send form types by accident); form routes also take urlencoded forms.
 */
export function readBody(route: Route) {
  const parse = koaBody({
    json: true,
    jsonLimit: route.bodyLimit,
    jsonStrict: false,
    jsonTypes: ['application/json'],
    urlencoded: Boolean(route.form),
    formLimit: route.bodyLimit,
    // Browser forms are flat: `f.key` and `a[b]` are field names, not paths into objects.
    queryString: { allowDots: false, depth: 0, parseArrays: false },
    text: false,
    multipart: false,
    parsedMethods: ['POST' as never],
    patchKoa: true,
    patchNode: false,
  });
  return async (ctx: TownContext): Promise<Record<string, unknown> | undefined> => {
    if (!hasBody(ctx)) return undefined;
    const declared = ctx.req.headers['content-length'];
    if (declared !== undefined && declaredOver(declared, route.bodyLimit)) {
      // Refused before a byte of the body is read, and the connection closes after the answer:
      // the body it announced is not drained (it could be gigabytes).
      throw new TownError('bodyTooLarge', `the body is declared as ${declared.trim().slice(0, 24)} bytes, over ${route.bodyLimit}, the limit of this route`, {
        headers: { Connection: 'close' },
      });
    }
    const form = route.form && ctx.is('urlencoded');
    if (!form) ctx.req.headers['content-type'] = 'application/json';
    try {
      await parse(ctx as never, async () => {});
    } catch (err) {
      throw bodyFailure(err, route);
    }
    const value: unknown = (ctx.request as { body?: unknown }).body;
    if (value === undefined || value === '') return undefined;
    if (!isPlainObject(value))
      throw new TownError(
        'badJson',
        `the body must be a JSON object, not ${Array.isArray(value) ? 'a list' : typeof value === 'string' ? 'a text' : 'a bare value'}`,
      );
    const fault = bodyFault(value, limits.bodyDepth);
    if (fault === 'depth') throw new TownError('badJson', `the body nests deeper than ${limits.bodyDepth} objects and lists`);
    if (fault === 'surrogate')
      throw new TownError('badJson', 'the body holds a lone surrogate (such as "\\ud800"): no UTF-8 text can carry it; send well-formed text');
    return value;
  };
}

/** zlib's and brotli's codes: a body its Content-Encoding does not decode (the sender's fault). */
const undecodable = /^(Z_|ERR__ERROR_|ERR_BROTLI)/;

/** The class of a koa-body failure; anything unforeseen goes on as it is (500 internal). */
function bodyFailure(err: unknown, route: Route): unknown {
  const e = err as { status?: number; type?: string; message?: string; code?: unknown };
  if (typeof e.code === 'string' && undecodable.test(e.code)) {
    return new TownError('badJson', `the body is not JSON: its Content-Encoding does not decode (${e.message ?? e.code})`);
  }
  if (e.status === 413 || e.type === 'entity.too.large') {
    // The rest of the body is not drained (a chunked one may never end): the connection closes.
    return new TownError('bodyTooLarge', `the body is over ${route.bodyLimit} bytes, the limit of this route`, { headers: { Connection: 'close' } });
  }
  if (e.type === 'request.aborted' || e.type === 'request.size.invalid') {
    return new TownError('badRequest', 'the body did not match its Content-Length');
  }
  if (e.status === 400 || e.status === 415 || err instanceof SyntaxError) {
    return new TownError('badJson', `the body is not JSON: ${e.message ?? 'it does not parse'}`);
  }
  return err;
}

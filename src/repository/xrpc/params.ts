/**
 * The query parameters of the /xrpc methods, checked as @atproto/xrpc-server checks them: each
 * text is decoded by its lexicon's parameter type (xrpc-server's decodeQueryParam), then the
 * whole is validated by the method's lexicon (`Lexicons.assertValidXrpcParams`), the
 * com.atproto ones (atproto-lexicons.ts) and the town's own (../lexicons.ts). A refusal is
 * `InvalidRequest` (spec 7.3).
 *
 * The town's own rules that the lexicons do not state are here too, and the methods apply them
 * after the lexicon: a limit is digits only (the lexicon's decoding reads `5x` as 5), a flag is
 * `true` or `false` (the lexicon's decoding reads any other text as false), a required text is not empty.
 * Both libraries are loaded at the first query, as service-auth.ts loads xrpc-server.
 */
import type { LexiconDoc, Lexicons } from '@atproto/lexicon';
import { XrpcFailure } from '../../contract/xrpc-failure.js';
import { townLexicons } from '../lexicons.js';
import { atprotoLexicons } from './atproto-lexicons.js';

export type Params = Record<string, string | undefined>;

export const fail = (error: ConstructorParameters<typeof XrpcFailure>[0], message: string): never => {
  throw new XrpcFailure(error, message);
};

interface Checker {
  lexicons: Lexicons;
  decode: (type: string, value: unknown) => unknown;
}

let checker: Promise<Checker> | undefined;
const loaded = () =>
  (checker ??= Promise.all([import('@atproto/lexicon'), import('@atproto/xrpc-server/dist/util.js')]).then(([{ Lexicons }, { decodeQueryParam }]) => ({
    lexicons: new Lexicons([...atprotoLexicons, ...(townLexicons as unknown as LexiconDoc[])]),
    decode: decodeQueryParam,
  })));

interface ParamDef {
  type: string;
}

/**
 * Checks `q` against the lexicon of `nsid`, decoded by the parameters' types as xrpc-server's
 * decodeQueryParams does (an empty text is no value; no method served here takes an array).
 * `asText` names parameters the method reads as plain text and the lexicon does not judge.
 */
export async function lexiconParams(nsid: string, q: Params, asText: readonly string[] = []): Promise<void> {
  const { lexicons, decode } = await loaded();
  const def = lexicons.getDefOrThrow(`lex:${nsid}`) as { parameters?: { properties?: Record<string, ParamDef> } };
  const properties = def.parameters?.properties ?? {};
  const decoded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(q)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (property && !asText.includes(name)) decoded[name] = decode(property.type, value);
  }
  try {
    lexicons.assertValidXrpcParams(nsid, decoded);
  } catch (error) {
    fail('InvalidRequest', error instanceof Error ? error.message : String(error));
  }
}

export function required(q: Params, name: string): string {
  const v = q[name];
  if (v === undefined || v === '') fail('InvalidRequest', `missing parameter ${name}`);
  return v!;
}

export function limitOf(q: Params, fallback = 50, max = 100): number {
  const text = q.limit;
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > max) fail('InvalidRequest', `limit must be an integer from 1 to ${max}`);
  return n;
}

export function flag(q: Params, name: string): boolean {
  const v = q[name];
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  return fail('InvalidRequest', `${name} must be true or false`);
}

/** A check of @atproto/syntax, without narrowing the text (some of its types are plain strings). */
export const passes = (check: (s: string) => boolean, s: string) => check(s);

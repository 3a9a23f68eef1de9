/**
 * The query parameters of the /xrpc routes, checked as AT Protocol's syntax rules say
 * (@atproto/syntax); a bad one is `InvalidRequest` (spec 7.3).
 */
import { isValidNsid, isValidRecordKey } from '@atproto/syntax';
import { XrpcFailure } from '../contract/xrpc-failure.js';

export type Params = Record<string, string | undefined>;

export const fail = (error: ConstructorParameters<typeof XrpcFailure>[0], message: string): never => {
  throw new XrpcFailure(error, message);
};

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

export function nsidParam(q: Params, name: string): string {
  const v = required(q, name);
  if (!passes(isValidNsid, v)) fail('InvalidRequest', `${name} is not an NSID: ${JSON.stringify(v.slice(0, 80))}`);
  return v;
}

export function rkeyParam(q: Params): string {
  const v = required(q, 'rkey');
  if (!passes(isValidRecordKey, v)) fail('InvalidRequest', `rkey is not a record key: ${JSON.stringify(v.slice(0, 80))}`);
  return v;
}

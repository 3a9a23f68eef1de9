/**
 * Who may read the operator's routes (`/metrics`, on the fronts and the workers): a caller from
 * an address the operator allows (TOWN_METRICS_ALLOW: addresses and CIDR ranges, comma
 * separated; loopback by default), or one that presents the operator's token
 * (TOWN_METRICS_TOKEN, as `Authorization: Bearer <token>`). Only the token's SHA-256 is kept,
 * and the presented token is compared by its SHA-256 in constant time, so neither its length nor
 * its bytes leak through timing. The token is never logged (the front logs no headers).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

export const defaultAllow = '127.0.0.0/8,::1/128';

export interface OperatorAccess {
  /** Whether a request from `address` with this Authorization header may read operator routes. */
  allows(address: string, authorization: string | undefined): boolean;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The allow-list as a BlockList; an entry that is not an address or a range is a start error. */
export function allowList(spec: string): BlockList {
  const list = new BlockList();
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const [address, bits, extra] = item.split('/');
    const family = isIP(address ?? '');
    if (!family || extra !== undefined) throw new Error(`TOWN_METRICS_ALLOW: ${item} is not an address or a CIDR range`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      list.addAddress(address!, type);
      continue;
    }
    const prefix = Number(bits);
    if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`TOWN_METRICS_ALLOW: ${item} has no valid prefix length`);
    list.addSubnet(address!, prefix, type);
  }
  return list;
}

export function operatorAccess(options: { allow?: string; token?: string }): OperatorAccess {
  const list = allowList(options.allow ?? defaultAllow);
  const tokenHash = options.token ? sha256(options.token) : undefined;
  return {
    allows(address, authorization) {
      if (address && addressAllowed(list, address)) return true;
      if (!tokenHash || !authorization) return false;
      const m = /^Bearer ([\x21-\x7e]{1,1024})$/i.exec(authorization);
      return m !== null && timingSafeEqual(sha256(m[1]!), tokenHash);
    },
  };
}

/** An IPv4 caller on a dual-stack socket arrives as `::ffff:a.b.c.d`: checked as IPv4 too. */
function addressAllowed(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 4) return list.check(address, 'ipv4');
  if (family !== 6) return false;
  if (list.check(address, 'ipv6')) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped !== null && list.check(mapped[1]!, 'ipv4');
}

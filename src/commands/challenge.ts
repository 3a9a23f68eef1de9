/**
 * Arrival challenges (spec 2.3) are self-verifying: the town writes nothing when it hands one
 * out. A challenge is `<payload>.<mac>` in base64url, where the payload carries the expiry, the
 * required bits and 128 random bits, and the mac is HMAC-SHA256 under the town's secret. Only a
 * challenge this town made verifies, and its expiry and difficulty cannot be edited. Its random
 * part names it (`proof-<id>`) once it is spent.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const version = 1;
const payloadBytes = 1 + 1 + 8 + 16;
const macBytes = 32;
/** Domain separation: the same secret also signs other things (cookies, later). */
const macLabel = 'town arrival challenge\0';
/** Longest text that can possibly be a challenge (base64url of payload and mac, and a dot). */
const maxChallengeLength = 128;

export interface Challenge {
  /** The text the guest returns unchanged and hashes into the proof. */
  challenge: string;
  /** Hex of the random part: the proof stream is `proof-<id>`. */
  id: string;
  bits: number;
  /** Milliseconds since the epoch. */
  expires: number;
}

function mac(secret: Uint8Array, payload: Buffer): Buffer {
  return createHmac('sha256', secret).update(macLabel).update(payload).digest();
}

export function issueChallenge(
  secret: Uint8Array,
  now: number,
  lifetimeMs: number,
  bits: number,
  random: (size: number) => Uint8Array = randomBytes,
): Challenge {
  const payload = Buffer.alloc(payloadBytes);
  payload.writeUInt8(version, 0);
  payload.writeUInt8(bits, 1);
  const expires = now + lifetimeMs;
  payload.writeBigUInt64BE(BigInt(expires), 2);
  Buffer.from(random(16)).copy(payload, 10);
  const challenge = `${payload.toString('base64url')}.${mac(secret, payload).toString('base64url')}`;
  return { challenge, id: payload.subarray(10).toString('hex'), bits, expires };
}

/** The challenge if this town made it (whatever its age), else undefined. */
export function parseChallenge(secret: Uint8Array, text: unknown): Challenge | undefined {
  if (typeof text !== 'string' || text.length > maxChallengeLength) return undefined;
  const parts = text.split('.');
  if (parts.length !== 2) return undefined;
  const [payloadText, macText] = parts as [string, string];
  // Buffer.from(…, 'base64url') skips characters it does not know; re-encoding catches that.
  const payload = Buffer.from(payloadText, 'base64url');
  const given = Buffer.from(macText, 'base64url');
  if (payload.length !== payloadBytes || given.length !== macBytes) return undefined;
  if (payload.toString('base64url') !== payloadText || given.toString('base64url') !== macText) return undefined;
  if (!timingSafeEqual(mac(secret, payload), given)) return undefined;
  if (payload.readUInt8(0) !== version) return undefined;
  return {
    challenge: text,
    id: payload.subarray(10).toString('hex'),
    bits: payload.readUInt8(1),
    expires: Number(payload.readBigUInt64BE(2)),
  };
}

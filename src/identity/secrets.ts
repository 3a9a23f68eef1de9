/**
 * The town's secrets: invitation codes, credentials and session ids are random bearer texts;
 * the store only ever holds their SHA-256. A plain (unsalted, fast) hash is right here because
 * every one of these secrets carries 128 bits of entropy or more: nobody can guess a preimage,
 * so the slowness of a password hash would buy nothing and would cost every bearer request.
 */
import { hash, randomBytes } from 'node:crypto';

export const invitationPrefix = 'svc_invite_';
export const credentialPrefix = 'svc_key_';

/** Longest secret text worth hashing; anything longer is not one of ours. */
export const maxSecretLength = 256;

export function sha256Hex(text: string): string {
  // The one-shot hash: a Hash object per call costs more than hashing these short texts.
  return hash('sha256', text, 'hex');
}

const base32Alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32, lowercase, unpadded: easy to read aloud and to type, no ambiguous case. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += base32Alphabet[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += base32Alphabet[(buffer << (5 - bits)) & 31];
  return out;
}

/** `svc_invite_` + 160 random bits in base32 (32 characters). */
export function newInvitationCode(random: (size: number) => Uint8Array = randomBytes): string {
  return invitationPrefix + base32(random(20));
}

/** `svc_key_` + 256 random bits in base64url. */
export function newCredential(random: (size: number) => Uint8Array = randomBytes): string {
  return credentialPrefix + Buffer.from(random(32)).toString('base64url');
}

/** A browser session id: 256 random bits in base64url (it travels in a cookie). */
export function newSessionId(random: (size: number) => Uint8Array = randomBytes): string {
  return Buffer.from(random(32)).toString('base64url');
}

/** Hash of a secret text as it is named in streams; undefined for text that cannot be ours. */
export function secretHash(text: unknown, prefix = ''): string | undefined {
  if (typeof text !== 'string' || text.length > maxSecretLength || !text.startsWith(prefix)) return undefined;
  return sha256Hex(text);
}

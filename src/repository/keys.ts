/**
 * The repository's two keys, kept like the town's MAC key (config.ts `secret.key`): generated
 * once under the data directory, mode 0600, shared by every process of the box that reads it.
 *
 *   commit.key   K-256 (secp256k1) private key, hex: signs repository commits, the only curves
 *                AT Protocol verifiers accept (docs/decisions/repository-records-and-keys.md)
 *   receipt.key  ed25519 seed, hex: signs every world entry's content id, so a receipt can be
 *                checked on its own with tweetnacl (or any ed25519 verifier)
 *
 * Signing ed25519 goes through node:crypto, which makes the very signature tweetnacl makes
 * (ed25519 is deterministic) about 150 times faster; so does deriving the public key (tweetnacl
 * took ~40 ms of every start for it). tweetnacl is the independent verifier in the tests, and
 * test/repository/keys.test.ts holds the derived key to its own.
 */
import { createPrivateKey, createPublicKey, sign as nodeSign, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { Secp256k1Keypair } from '@atproto/crypto';
import { base58btc } from 'multiformats/bases/base58';
import { secretFile } from '../stores/secret-file.js';

export const commitKeyFile = 'commit.key';
export const receiptKeyFile = 'receipt.key';

/** Signs entries' content ids with ed25519. */
export interface ReceiptSigner {
  /** The 32-byte ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** The 64-byte ed25519 signature of `message`, byte for byte what tweetnacl's sign.detached makes. */
  sign(message: Uint8Array): Uint8Array;
}

export interface RepositoryKeys {
  /** Signs commits (K-256). */
  commit: Secp256k1Keypair;
  receipt: ReceiptSigner;
}

/** The multicodec prefix of an ed25519 public key (0xed, as a varint) in a Multikey. */
const ed25519Prefix = Uint8Array.of(0xed, 0x01);

/** `z…`: the Multikey text of an ed25519 public key (W3C Multikey, base58btc). */
export function ed25519Multikey(publicKey: Uint8Array): string {
  const bytes = new Uint8Array(ed25519Prefix.length + publicKey.length);
  bytes.set(ed25519Prefix);
  bytes.set(publicKey, ed25519Prefix.length);
  return base58btc.encode(bytes);
}

/** The public key of an ed25519 Multikey text (for verifiers and tests). */
export function ed25519FromMultikey(multikey: string): Uint8Array {
  const bytes = base58btc.decode(multikey);
  if (bytes[0] !== ed25519Prefix[0] || bytes[1] !== ed25519Prefix[1] || bytes.length !== 34) throw new Error('not an ed25519 Multikey');
  return bytes.subarray(2);
}

/** `z…`: the Multikey text of the commit key, as `did:key` writes it. */
export function commitMultikey(keys: Pick<RepositoryKeys, 'commit'>): string {
  return keys.commit.did().slice('did:key:'.length);
}

/** The 32-byte secret in `<dataDir>/<name>`, made once (src/stores/secret-file.ts). */
function keyFile(dataDir: string, name: string): Uint8Array {
  const bytes = Buffer.from(secretFile(dataDir, name), 'hex');
  if (bytes.length !== 32) throw new Error(`${path.join(dataDir, name)} must hold 32 bytes as hex`);
  return new Uint8Array(bytes);
}

const ed25519Pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');

export function receiptSigner(seed: Uint8Array): ReceiptSigner {
  // PKCS #8 of an ed25519 seed: a fixed DER prefix (RFC 8410), then the 32 bytes.
  const key: KeyObject = createPrivateKey({ key: Buffer.concat([ed25519Pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = new Uint8Array(Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x as string, 'base64url'));
  return { publicKey, sign: (message) => new Uint8Array(nodeSign(null, message, key)) };
}

/** The box's keys, made on first use. */
export async function loadRepositoryKeys(dataDir: string): Promise<RepositoryKeys> {
  const commit = await Secp256k1Keypair.import(keyFile(dataDir, commitKeyFile));
  return { commit, receipt: receiptSigner(keyFile(dataDir, receiptKeyFile)) };
}

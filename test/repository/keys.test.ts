/**
 * The receipt key: its public key (derived by node:crypto) is the one tweetnacl derives from the
 * same seed, and its signatures are tweetnacl's, checked by tweetnacl.
 */
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { receiptSigner } from '../../src/repository/keys.js';

test('the receipt key is the ed25519 key of its seed, as tweetnacl makes it', () => {
  const seeds = [new Uint8Array(32), new Uint8Array(32).fill(255), ...Array.from({ length: 30 }, () => new Uint8Array(randomBytes(32)))];
  for (const seed of seeds) {
    const signer = receiptSigner(seed);
    const pair = nacl.sign.keyPair.fromSeed(seed);
    assert.equal([...signer.publicKey], [...pair.publicKey]);
    const message = new Uint8Array(randomBytes(40));
    const signature = signer.sign(message);
    assert.equal([...signature], [...nacl.sign.detached(message, pair.secretKey)]);
    assert.ok(nacl.sign.detached.verify(message, signature, signer.publicKey));
  }
});

test.run();

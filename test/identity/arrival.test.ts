/** Given/when/then for arrival challenges (spec 2.3, 3 rows for Arrival challenge; reasons of 4.1). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkProof, decideArrive, isNonce, leadingZeroBits, proofDecider, proofDigest, type ArriveCommand } from '../../src/commands/arrival.js';
import { guestDecider, initialGuest } from '../../src/commands/guest.js';
import type { GuestEvent, ProofEvent } from '../../src/events/identity.js';
import { issueChallenge, parseChallenge, type Challenge } from '../../src/commands/challenge.js';
import { refused, specification } from '../support/given.js';
import { secret, shortNonce, solve } from './support.js';

const proof = specification(proofDecider);
const guest = specification(guestDecider);

const t0 = Date.UTC(2026, 10, 23, 12);
const tenMinutes = 600_000;
// Low difficulty keeps these tests instant; the decider reads the bits from the challenge, and
// test/identity/http.test.ts solves the spec's real 18 bits.
const bits = 10;
const challenge = issueChallenge(secret, t0, tenMinutes, bits);

function arrive(name: unknown, nonce: unknown, now = t0 + 1000, c: Challenge | 'forged' = challenge): ArriveCommand {
  return { challenge: c === 'forged' ? undefined : c, name, nonce, now, claimId: 'claim-1', credentialHash: 'cred-1' };
}

const spentBy = (name: string): ProofEvent => ({ type: 'ProofSpent', data: { name, claimId: 'old', credentialHash: 'h', at: t0 } });
const claimed = (name: string): GuestEvent => ({ type: 'GuestClaimed', data: { name, claimId: 'other', source: { invitation: 'i' }, at: t0 } });

function outcome(command: ArriveCommand, proofEvents: ProofEvent[] = [], guestEvents: GuestEvent[] = []) {
  const decision = decideArrive({ proof: proof(proofEvents).state, guest: guest(guestEvents).state }, command);
  return decision.ok ? 'arrived' : decision.reason;
}

test('issued, POST arrive with enough zero bits, in time, valid free name: spent, fresh guest', () => {
  const nonce = solve(challenge.challenge, 'ada', bits);
  const now = t0 + 1000;
  const decision = decideArrive({ proof: proof([]).state, guest: initialGuest }, arrive('ada', nonce, now));
  assert.equal(decision, {
    ok: true,
    name: 'ada',
    guest: [{ type: 'GuestClaimed', data: { name: 'ada', claimId: 'claim-1', source: { proof: challenge.id }, at: now } }],
    credential: [{ type: 'CredentialIssued', data: { name: 'ada', claimId: 'claim-1', at: now } }],
    proof: [{ type: 'ProofSpent', data: { name: 'ada', claimId: 'claim-1', credentialHash: 'cred-1', at: now } }],
  });
  if (decision.ok) assert.is(proof(decision.proof).state.kind, 'spent');
});

test('the proof stream: spent once, on the guest it admits', () => {
  const spend = { type: 'spend' as const, name: 'ada', claimId: 'c1', credentialHash: 'h1', now: t0 };
  proof([])
    .when(spend)
    .then([{ type: 'ProofSpent', data: { name: 'ada', claimId: 'c1', credentialHash: 'h1', at: t0 } }]);
  proof([spentBy('bea')])
    .when(spend)
    .then(refused('proof_spent'));
});

test('issued, POST arrive with a taken name: refused taken, proof stays unspent and serves another name', () => {
  const nonce = solve(challenge.challenge, 'ada', bits);
  assert.is(outcome(arrive('ada', nonce), [], [claimed('ada')]), 'taken');
  // Nothing was decided: the same challenge, solved for another name, still admits.
  assert.is(outcome(arrive('bea', solve(challenge.challenge, 'bea', bits))), 'arrived');
});

test('issued, ten minutes pass: refused proof_expired', () => {
  const nonce = solve(challenge.challenge, 'ada', bits);
  assert.is(outcome(arrive('ada', nonce, challenge.expires - 1)), 'arrived');
  assert.is(outcome(arrive('ada', nonce, challenge.expires)), 'proof_expired');
  assert.is(challenge.expires - t0, tenMinutes);
});

test('spent, POST arrive reusing it: refused proof_spent, for any name', () => {
  assert.is(outcome(arrive('ada', solve(challenge.challenge, 'ada', bits)), [spentBy('ada')]), 'proof_spent');
  assert.is(outcome(arrive('bea', solve(challenge.challenge, 'bea', bits)), [spentBy('ada')]), 'proof_spent');
});

test('a racing arrival with the same proof holding the name: refused proof_spent, not taken', () => {
  const racing: GuestEvent = { type: 'GuestClaimed', data: { name: 'ada', claimId: 'racer', source: { proof: challenge.id }, at: t0 } };
  assert.is(outcome(arrive('ada', solve(challenge.challenge, 'ada', bits)), [], [racing]), 'proof_spent');
});

test('a challenge the town did not give: refused proof_invalid', () => {
  const [payload, mac] = challenge.challenge.split('.') as [string, string];
  const flipped = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
  const forged = [
    `${flipped(payload)}.${mac}`,
    `${payload}.${flipped(mac)}`,
    issueChallenge(Buffer.alloc(32, 7), t0, tenMinutes, bits).challenge,
    `${payload}.${mac}.x`,
    payload,
    `${payload}!.${mac}`,
    '',
    'x'.repeat(5000),
    42,
    null,
    { challenge: challenge.challenge },
  ];
  for (const text of forged) {
    const parsed = parseChallenge(secret, text);
    assert.is(parsed, undefined, JSON.stringify(text).slice(0, 40));
    assert.is(outcome(arrive('ada', 'nonce', t0, parsed ?? 'forged')), 'proof_invalid');
  }
  assert.equal(parseChallenge(secret, challenge.challenge), challenge);
});

test('a nonce that is not 1 to 64 printable ASCII characters: refused proof_invalid', () => {
  for (const nonce of ['', 'x'.repeat(65), 'a\nb', 'tab\t', '\x7f', 'é', '😀', 5, null, undefined, ['a']]) {
    assert.is(isNonce(nonce), false, JSON.stringify(nonce));
    assert.is(outcome(arrive('ada', nonce)), 'proof_invalid', JSON.stringify(nonce));
  }
  for (const nonce of [' ', '~', 'x'.repeat(64), '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~']) assert.ok(isNonce(nonce), nonce);
});

test('a digest without the leading zero bits for this name: refused proof_short', () => {
  assert.is(outcome(arrive('ada', shortNonce(challenge.challenge, 'ada', bits))), 'proof_short');
  // Some zero bits are not enough: a nonce with 8 of the 10 wanted falls short.
  let nonce = solve(challenge.challenge, 'ada', 8);
  while (leadingZeroBits(proofDigest(challenge.challenge, 'ada', nonce)) >= bits) nonce = solve(challenge.challenge, 'ada', 8, parseInt(nonce, 36) + 1);
  assert.is(outcome(arrive('ada', nonce)), 'proof_short');
  // A proof is bound to its name: solved for ada, it falls short for bea.
  let forAda = solve(challenge.challenge, 'ada', bits);
  while (leadingZeroBits(proofDigest(challenge.challenge, 'bea', forAda)) >= bits) forAda = solve(challenge.challenge, 'ada', bits, parseInt(forAda, 36) + 1);
  assert.is(outcome(arrive('ada', forAda)), 'arrived');
  assert.is(outcome(arrive('bea', forAda)), 'proof_short');
});

test('a name outside the rule of 2.1: refused invalid_guest_name', () => {
  for (const name of ['Ada', 'ada-', '9', '', 'a'.repeat(33), 3, undefined]) {
    assert.is(outcome(arrive(name, solve(challenge.challenge, String(name), bits))), 'invalid_guest_name', JSON.stringify(name));
  }
});

test('order of checks: challenge, nonce, expiry, name, digest, then spent, then taken', () => {
  const late = challenge.expires + 1;
  assert.is(checkProof({ challenge: undefined, name: 'BAD', nonce: '', now: late }), 'proof_invalid');
  assert.is(checkProof({ challenge, name: 'BAD', nonce: '', now: late }), 'proof_invalid');
  assert.is(checkProof({ challenge, name: 'BAD', nonce: 'x', now: late }), 'proof_expired');
  assert.is(checkProof({ challenge, name: 'BAD', nonce: 'x', now: t0 }), 'invalid_guest_name');
  assert.is(checkProof({ challenge, name: 'ada', nonce: shortNonce(challenge.challenge, 'ada', bits), now: t0 }), 'proof_short');
  assert.is(outcome(arrive('ada', shortNonce(challenge.challenge, 'ada', bits)), [spentBy('ada')], [claimed('ada')]), 'proof_short');
  assert.is(outcome(arrive('ada', solve(challenge.challenge, 'ada', bits)), [spentBy('x')], [claimed('ada')]), 'proof_spent');
});

test('challenges: self-verifying, ten minutes, carry their bits, each one different', () => {
  const a = issueChallenge(secret, t0, tenMinutes, 18);
  const b = issueChallenge(secret, t0, tenMinutes, 18);
  assert.is.not(a.challenge, b.challenge);
  assert.is.not(a.id, b.id);
  assert.match(a.id, /^[0-9a-f]{32}$/);
  assert.equal(parseChallenge(secret, a.challenge), { challenge: a.challenge, id: a.id, bits: 18, expires: t0 + tenMinutes });
  assert.not.match(a.challenge, /:/, 'a colon would blur the proof text <challenge>:<name>:<nonce>');
});

test('leading zero bits are counted across bytes', () => {
  assert.is(leadingZeroBits(Uint8Array.of(0x80)), 0);
  assert.is(leadingZeroBits(Uint8Array.of(0x01)), 7);
  assert.is(leadingZeroBits(Uint8Array.of(0, 0, 0x3f, 0xff)), 18);
  assert.is(leadingZeroBits(Uint8Array.of(0, 0, 0x20)), 18);
  assert.is(leadingZeroBits(Uint8Array.of(0, 0, 0x40)), 17);
  assert.is(leadingZeroBits(new Uint8Array(32)), 256);
});

test.run();

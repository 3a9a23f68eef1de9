/** Given/when/then for credentials (spec 3 row for Credential), sessions and guest names. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { activeCredential, credentialDecider } from '../../src/commands/credential.js';
import { abandonedClaimAfterMs, claimMayBeAbandoned, guestDecider } from '../../src/commands/guest.js';
import { sessionCredential, sessionDecider } from '../../src/commands/session.js';
import type { CredentialEvent, GuestEvent, SessionEvent } from '../../src/events/identity.js';
import { refused, specification } from '../support/given.js';

const credential = specification(credentialDecider);
const session = specification(sessionDecider);
const guest = specification(guestDecider);

const t0 = Date.UTC(2026, 10, 23, 12);
const issued: CredentialEvent = { type: 'CredentialIssued', data: { name: 'ada', claimId: 'c1', at: t0 } };
const revokedByGuest: CredentialEvent = { type: 'CredentialRevoked', data: { why: 'guest', at: t0 + 5 } };

test('absent, issue: active, speaking for its guest since the claim', () => {
  credential([]).when({ type: 'issue', name: 'ada', claimId: 'c1', now: t0 }).then([issued]);
  assert.equal(activeCredential(credential([issued]).state), { name: 'ada', issuedAt: t0 });
});

test('active, POST revoke: revoked, and it speaks for no one from then on', () => {
  credential([issued])
    .when({ type: 'revoke', why: 'guest', now: t0 + 5 })
    .then([revokedByGuest]);
  const after = credential([issued, revokedByGuest]).state;
  assert.is(after.kind, 'revoked');
  assert.is(activeCredential(after), undefined);
});

test('revoked, revoke again: nothing more recorded; absent: unknown; issued twice: refused', () => {
  credential([issued, revokedByGuest]).when({ type: 'revoke', why: 'guest', now: t0 }).then([]);
  credential([]).when({ type: 'revoke', why: 'guest', now: t0 }).then(refused('credential_unknown'));
  credential([issued]).when({ type: 'issue', name: 'x', claimId: 'c', now: t0 }).then(refused('credential_exists'));
  assert.is(activeCredential(credential([]).state), undefined);
});

const started: SessionEvent = { type: 'SessionStarted', data: { credentialHash: 'cred', expires: t0 + 1000, at: t0 } };
const ended: SessionEvent = { type: 'SessionEnded', data: { at: t0 + 1 } };

test('sessions: start once, speak for their credential until they end or lapse', () => {
  session([]).when({ type: 'start', credentialHash: 'cred', now: t0, lifetimeMs: 1000 }).then([started]);
  session([started]).when({ type: 'start', credentialHash: 'x', now: t0, lifetimeMs: 1 }).then(refused('session_exists'));
  const state = session([started]).state;
  assert.is(sessionCredential(state, t0 + 999), 'cred');
  assert.is(sessionCredential(state, t0 + 1000), undefined, 'lapsed');
  session([started])
    .when({ type: 'end', now: t0 + 1 })
    .then([ended]);
  assert.is(sessionCredential(session([started, ended]).state, t0 + 2), undefined);
  session([started, ended])
    .when({ type: 'end', now: t0 + 2 })
    .then([]); // leaving twice records nothing
  session([]).when({ type: 'end', now: t0 }).then([]);
});

const claim: GuestEvent = { type: 'GuestClaimed', data: { name: 'ada', claimId: 'c1', source: { invitation: 'i' }, at: t0 } };

test('guest names: a claim holds the name, only its own release frees it', () => {
  const claimIt = { type: 'claim' as const, name: 'ada', claimId: 'c2', source: { proof: 'p' }, now: t0 };
  guest([])
    .when(claimIt)
    .then([{ type: 'GuestClaimed', data: { name: 'ada', claimId: 'c2', source: { proof: 'p' }, at: t0 } }]);
  guest([claim]).when(claimIt).then(refused('taken'));
  guest([claim]).when({ type: 'release', claimId: 'other', why: 'lostRace', now: t0 }).then([]);
  guest([claim])
    .when({ type: 'release', claimId: 'c1', why: 'lostRace', now: t0 })
    .then([{ type: 'GuestReleased', data: { claimId: 'c1', why: 'lostRace', at: t0 } }]);
  assert.is(guest([claim, { type: 'GuestReleased', data: { claimId: 'other', why: 'lostRace', at: t0 } }]).state.kind, 'held');
  assert.is(guest([claim, { type: 'GuestReleased', data: { claimId: 'c1', why: 'lostRace', at: t0 } }]).state.kind, 'free');
});

test('guest names: a claim may be judged abandoned only after ten minutes', () => {
  const held = guest([claim]).state;
  assert.is(claimMayBeAbandoned(held, t0 + abandonedClaimAfterMs), false);
  assert.is(claimMayBeAbandoned(held, t0 + abandonedClaimAfterMs + 1), true);
  assert.is(claimMayBeAbandoned(guest([]).state, t0 + 10 * abandonedClaimAfterMs), false);
});

test.run();

/** Given/when/then for credentials (spec 3 row for Credential), sessions and guest names. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { activeCredential, decideCredential } from '../../src/commands/credential.js';
import { abandonedClaimAfterMs, claimMayBeAbandoned, decideGuest } from '../../src/commands/guest.js';
import { decideSession, sessionCredential } from '../../src/commands/session.js';
import type { CredentialEvent, GuestEvent, SessionEvent } from '../../src/events/identity.js';
import { credentialKind, guestKind, sessionKind } from '../../src/identity/kinds.js';
import { given } from './support.js';

const t0 = Date.UTC(2026, 10, 23, 12);
const issued: CredentialEvent = { type: 'CredentialIssued', data: { name: 'ada', claimId: 'c1', at: t0 } };
const revokedByGuest: CredentialEvent = { type: 'CredentialRevoked', data: { why: 'guest', at: t0 + 5 } };

test('absent, issue: active, speaking for its guest since the claim', () => {
  const decision = decideCredential(given(credentialKind, []), { type: 'issue', name: 'ada', claimId: 'c1', now: t0 });
  assert.equal(decision, { ok: true, events: [issued] });
  assert.equal(activeCredential(given(credentialKind, [issued])), { name: 'ada', issuedAt: t0 });
});

test('active, POST revoke: revoked, and it speaks for no one from then on', () => {
  const decision = decideCredential(given(credentialKind, [issued]), { type: 'revoke', why: 'guest', now: t0 + 5 });
  assert.equal(decision, { ok: true, events: [revokedByGuest] });
  const after = given(credentialKind, [issued, revokedByGuest]);
  assert.is(after.kind, 'revoked');
  assert.is(activeCredential(after), undefined);
});

test('revoked, revoke again: nothing more recorded; absent: unknown; issued twice: refused', () => {
  assert.equal(decideCredential(given(credentialKind, [issued, revokedByGuest]), { type: 'revoke', why: 'guest', now: t0 }), { ok: true, events: [] });
  assert.equal(decideCredential(given(credentialKind, []), { type: 'revoke', why: 'guest', now: t0 }), { ok: false, reason: 'credential_unknown' });
  assert.equal(decideCredential(given(credentialKind, [issued]), { type: 'issue', name: 'x', claimId: 'c', now: t0 }), {
    ok: false,
    reason: 'credential_exists',
  });
  assert.is(activeCredential(given(credentialKind, [])), undefined);
});

const started: SessionEvent = { type: 'SessionStarted', data: { credentialHash: 'cred', expires: t0 + 1000, at: t0 } };

test('sessions: start once, speak for their credential until they end or lapse', () => {
  assert.equal(decideSession(given(sessionKind, []), { type: 'start', credentialHash: 'cred', now: t0, lifetimeMs: 1000 }), { ok: true, events: [started] });
  assert.equal(decideSession(given(sessionKind, [started]), { type: 'start', credentialHash: 'x', now: t0, lifetimeMs: 1 }), {
    ok: false,
    reason: 'session_exists',
  });
  const state = given(sessionKind, [started]);
  assert.is(sessionCredential(state, t0 + 999), 'cred');
  assert.is(sessionCredential(state, t0 + 1000), undefined, 'lapsed');
  const ended = decideSession(state, { type: 'end', now: t0 + 1 });
  assert.equal(ended, { ok: true, events: [{ type: 'SessionEnded', data: { at: t0 + 1 } }] });
  const after = given(sessionKind, [started, { type: 'SessionEnded', data: { at: t0 + 1 } }]);
  assert.is(sessionCredential(after, t0 + 2), undefined);
  assert.equal(decideSession(after, { type: 'end', now: t0 + 2 }), { ok: true, events: [] }, 'leaving twice records nothing');
  assert.equal(decideSession(given(sessionKind, []), { type: 'end', now: t0 }), { ok: true, events: [] });
});

const claim: GuestEvent = { type: 'GuestClaimed', data: { name: 'ada', claimId: 'c1', source: { invitation: 'i' }, at: t0 } };

test('guest names: a claim holds the name, only its own release frees it', () => {
  const claimIt = { type: 'claim' as const, name: 'ada', claimId: 'c2', source: { proof: 'p' }, now: t0 };
  assert.equal(decideGuest(given(guestKind, []), claimIt), {
    ok: true,
    events: [{ type: 'GuestClaimed', data: { name: 'ada', claimId: 'c2', source: { proof: 'p' }, at: t0 } }],
  });
  assert.equal(decideGuest(given(guestKind, [claim]), claimIt), { ok: false, reason: 'taken' });
  assert.equal(decideGuest(given(guestKind, [claim]), { type: 'release', claimId: 'other', why: 'lostRace', now: t0 }), { ok: true, events: [] });
  const release = decideGuest(given(guestKind, [claim]), { type: 'release', claimId: 'c1', why: 'lostRace', now: t0 });
  assert.equal(release, { ok: true, events: [{ type: 'GuestReleased', data: { claimId: 'c1', why: 'lostRace', at: t0 } }] });
  assert.is(given(guestKind, [claim, { type: 'GuestReleased', data: { claimId: 'other', why: 'lostRace', at: t0 } }]).kind, 'held');
  assert.is(given(guestKind, [claim, { type: 'GuestReleased', data: { claimId: 'c1', why: 'lostRace', at: t0 } }]).kind, 'free');
});

test('guest names: a claim may be judged abandoned only after ten minutes', () => {
  const held = given(guestKind, [claim]);
  assert.is(claimMayBeAbandoned(held, t0 + abandonedClaimAfterMs), false);
  assert.is(claimMayBeAbandoned(held, t0 + abandonedClaimAfterMs + 1), true);
  assert.is(claimMayBeAbandoned(given(guestKind, []), t0 + 10 * abandonedClaimAfterMs), false);
});

test.run();

/** Given/when/then for invitations (spec 3 rows for Invitation; reasons of 4.1). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialGuest } from '../../src/commands/guest.js';
import { acceptName, decideAccept, decideInvitation, invitationStatus, type AcceptCommand, type InvitationState } from '../../src/commands/invitation.js';
import type { GuestEvent, InvitationEvent } from '../../src/events/identity.js';
import { guestKind, invitationKind } from '../../src/identity/kinds.js';
import { given } from './support.js';

const hour = 3600_000;
const t0 = Date.UTC(2026, 10, 23, 12);
const codeHash = 'a'.repeat(64);

const issuedOpen: InvitationEvent = { type: 'InvitationIssued', data: { codeHash, guest: null, expires: t0 + 24 * hour, at: t0 } };
const issuedFor = (guest: string): InvitationEvent => ({ type: 'InvitationIssued', data: { codeHash, guest, expires: t0 + 24 * hour, at: t0 } });
const spent: InvitationEvent = { type: 'InvitationSpent', data: { name: 'ada', claimId: 'c0', credentialHash: 'h0', at: t0 + hour } };
const revoked: InvitationEvent = { type: 'InvitationRevoked', data: { at: t0 + hour } };
const claimedElsewhere = (name: string): GuestEvent => ({
  type: 'GuestClaimed',
  data: { name, claimId: 'other', source: { proof: 'p1' }, at: t0 },
});

function accept(name: unknown, now = t0 + 2 * hour): AcceptCommand {
  return { name, now, claimId: 'claim-1', credentialHash: 'cred-1' };
}

function refusal(invitation: InvitationState, command: AcceptCommand, guestEvents: GuestEvent[] = []) {
  const decision = decideAccept({ invitation, guest: given(guestKind, guestEvents) }, command);
  return decision.ok ? 'accepted' : decision.reason;
}

test('unused, POST accept with a valid free name: spent, credential issued, name claimed', () => {
  const now = t0 + 2 * hour;
  const decision = decideAccept({ invitation: given(invitationKind, [issuedOpen]), guest: initialGuest }, accept('ada', now));
  assert.equal(decision, {
    ok: true,
    name: 'ada',
    named: false,
    guest: [{ type: 'GuestClaimed', data: { name: 'ada', claimId: 'claim-1', source: { invitation: codeHash }, at: now } }],
    credential: [{ type: 'CredentialIssued', data: { name: 'ada', claimId: 'claim-1', at: now } }],
    invitation: [{ type: 'InvitationSpent', data: { name: 'ada', claimId: 'claim-1', credentialHash: 'cred-1', at: now } }],
  });
  if (!decision.ok) return;
  const after = decision.invitation.reduce(invitationKind.evolve, given(invitationKind, [issuedOpen]));
  assert.is(after.kind, 'spent');
  assert.is(invitationStatus(after as Exclude<InvitationState, { kind: 'absent' }>, now), 'spent');
});

test('unused, a code naming its guest: no name or exactly that name claims it, and signs the browser in', () => {
  const invitation = given(invitationKind, [issuedFor('grace')]);
  for (const name of [undefined, null, '', 'grace']) {
    const decision = decideAccept({ invitation, guest: initialGuest }, accept(name));
    assert.ok(decision.ok, `name ${String(name)}`);
    if (decision.ok) {
      assert.is(decision.name, 'grace');
      assert.is(decision.named, true);
    }
  }
});

test('unused, POST accept with a taken name: refused taken, invitation stays unused', () => {
  const invitation = given(invitationKind, [issuedOpen]);
  assert.is(refusal(invitation, accept('ada'), [claimedElsewhere('ada')]), 'taken');
  assert.is(refusal(given(invitationKind, [issuedFor('ada')]), accept(undefined), [claimedElsewhere('ada')]), 'taken');
  // Nothing was decided, so the invitation's stream is unchanged and a free name still works.
  assert.ok(decideAccept({ invitation, guest: initialGuest }, accept('bea')).ok);
});

test('a name released after a lost race is free again', () => {
  const events: GuestEvent[] = [claimedElsewhere('ada'), { type: 'GuestReleased', data: { claimId: 'other', why: 'lostRace', at: t0 } }];
  assert.is(refusal(given(invitationKind, [issuedOpen]), accept('ada'), events), 'accepted');
});

test('spent, POST accept again: refused invitation_spent', () => {
  const invitation = given(invitationKind, [issuedOpen, spent]);
  assert.is(refusal(invitation, accept('bea')), 'invitation_spent');
  assert.is(refusal(invitation, accept(undefined)), 'invitation_spent');
});

test('a racing acceptance of the same code holding the name: refused invitation_spent, not taken', () => {
  const racing: GuestEvent = { type: 'GuestClaimed', data: { name: 'grace', claimId: 'racer', source: { invitation: codeHash }, at: t0 } };
  assert.is(refusal(given(invitationKind, [issuedFor('grace')]), accept(undefined), [racing]), 'invitation_spent');
});

test('unused, operator revokes: revoked, later accept refused invitation_revoked', () => {
  const state = given(invitationKind, [issuedOpen]);
  const decision = decideInvitation(state, { type: 'revoke', now: t0 + hour });
  assert.equal(decision, { ok: true, events: [revoked] });
  const after = given(invitationKind, [issuedOpen, revoked]);
  assert.is(refusal(after, accept('ada')), 'invitation_revoked');
  assert.equal(decideInvitation(after, { type: 'revoke', now: t0 + 2 * hour }), { ok: true, events: [] }, 'revoking twice records nothing');
});

test('the operator cannot revoke a spent or unknown code', () => {
  assert.equal(decideInvitation(given(invitationKind, [issuedOpen, spent]), { type: 'revoke', now: t0 }), { ok: false, reason: 'invitation_spent' });
  assert.equal(decideInvitation(given(invitationKind, []), { type: 'revoke', now: t0 }), { ok: false, reason: 'invitation_unknown' });
});

test('unused, time passes: expired, later accept refused invitation_expired', () => {
  const state = given(invitationKind, [issuedOpen]);
  const expires = t0 + 24 * hour;
  assert.is(refusal(state, accept('ada', expires - 1)), 'accepted');
  assert.is(refusal(state, accept('ada', expires)), 'invitation_expired');
  assert.is(invitationStatus(state as Exclude<InvitationState, { kind: 'absent' }>, expires - 1), 'unused');
  assert.is(invitationStatus(state as Exclude<InvitationState, { kind: 'absent' }>, expires), 'expired');
});

test('an unknown code: refused invitation_unknown', () => {
  assert.is(refusal(given(invitationKind, []), accept('ada')), 'invitation_unknown');
});

test('an open code without a name: refused name_required', () => {
  for (const name of [undefined, null, '']) assert.is(refusal(given(invitationKind, [issuedOpen]), accept(name)), 'name_required');
});

test('a code naming its guest, with another name: refused name_fixed', () => {
  const state = given(invitationKind, [issuedFor('grace')]);
  for (const name of ['ada', 'Grace', 'grace ', 42, 'NOT A NAME']) assert.is(refusal(state, accept(name)), 'name_fixed', String(name));
});

test('an open code with a name outside the rule of 2.1: refused invalid_guest_name', () => {
  const state = given(invitationKind, [issuedOpen]);
  const bad = ['A', 'ada-', '1ada', '-ada', 'a_b', 'a.b', 'a b', 'ádá', 'a'.repeat(33), ' ada', 'ada\n', 7, true, {}, ['ada']];
  for (const name of bad) assert.is(refusal(state, accept(name)), 'invalid_guest_name', JSON.stringify(name));
  for (const name of ['a', 'a1', 'a-b', 'a--b', 'z'.repeat(32), 'x9']) assert.is(refusal(state, accept(name)), 'accepted', name);
});

test('the code is judged before the name', () => {
  assert.is(refusal(given(invitationKind, []), accept('NOT VALID')), 'invitation_unknown');
  assert.is(refusal(given(invitationKind, [issuedOpen, revoked]), accept(undefined)), 'invitation_revoked');
  assert.is(refusal(given(invitationKind, [issuedOpen]), accept(undefined, t0 + 25 * hour)), 'invitation_expired');
  assert.equal(acceptName(given(invitationKind, [issuedOpen, spent]), 'A', t0), { ok: false, reason: 'invitation_spent' });
});

test('issuing: once per code hash, and only for a valid guest name', () => {
  const issue = (guest: string | null) => ({ type: 'issue' as const, codeHash, guest, expires: t0 + hour, now: t0 });
  assert.equal(decideInvitation(given(invitationKind, []), issue(null)), {
    ok: true,
    events: [{ type: 'InvitationIssued', data: { codeHash, guest: null, expires: t0 + hour, at: t0 } }],
  });
  assert.equal(decideInvitation(given(invitationKind, [issuedOpen]), issue(null)), { ok: false, reason: 'invitation_exists' });
  assert.equal(decideInvitation(given(invitationKind, []), issue('Bad Name')), { ok: false, reason: 'invalid_guest_name' });
});

test('a spend or revoke arriving after the invitation left unused changes nothing', () => {
  assert.is(given(invitationKind, [issuedOpen, spent, revoked]).kind, 'spent');
  assert.is(given(invitationKind, [issuedOpen, revoked, spent]).kind, 'revoked');
});

test.run();

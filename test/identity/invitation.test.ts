/** Given/when/then for invitations (spec 3 rows for Invitation; reasons of 4.1). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { guestDecider, initialGuest } from '../../src/commands/guest.js';
import { acceptName, decideAccept, invitationDecider, invitationStatus, type AcceptCommand, type InvitationState } from '../../src/commands/invitation.js';
import type { GuestEvent, InvitationEvent } from '../../src/events/identity.js';
import { refused, specification } from '../support/given.js';

const invitations = specification(invitationDecider);
const guests = specification(guestDecider);
/** The invitation's state after these events (an acceptance decides over it and a guest name). */
const after = (events: InvitationEvent[]) => invitations(events).state;

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
  const decision = decideAccept({ invitation, guest: guests(guestEvents).state }, command);
  return decision.ok ? 'accepted' : decision.reason;
}

test('unused, POST accept with a valid free name: spent, credential issued, name claimed', () => {
  const now = t0 + 2 * hour;
  const decision = decideAccept({ invitation: after([issuedOpen]), guest: initialGuest }, accept('ada', now));
  assert.equal(decision, {
    ok: true,
    name: 'ada',
    named: false,
    guest: [{ type: 'GuestClaimed', data: { name: 'ada', claimId: 'claim-1', source: { invitation: codeHash }, at: now } }],
    credential: [{ type: 'CredentialIssued', data: { name: 'ada', claimId: 'claim-1', at: now } }],
    invitation: [{ type: 'InvitationSpent', data: { name: 'ada', claimId: 'claim-1', credentialHash: 'cred-1', at: now } }],
  });
  if (!decision.ok) return;
  const spentNow = decision.invitation.reduce(invitationDecider.evolve, after([issuedOpen]));
  assert.is(spentNow.kind, 'spent');
  assert.is(invitationStatus(spentNow as Exclude<InvitationState, { kind: 'absent' }>, now), 'spent');
});

test('unused, a code naming its guest: no name or exactly that name claims it, and signs the browser in', () => {
  const invitation = after([issuedFor('grace')]);
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
  const invitation = after([issuedOpen]);
  assert.is(refusal(invitation, accept('ada'), [claimedElsewhere('ada')]), 'taken');
  assert.is(refusal(after([issuedFor('ada')]), accept(undefined), [claimedElsewhere('ada')]), 'taken');
  // Nothing was decided, so the invitation's stream is unchanged and a free name still works.
  assert.ok(decideAccept({ invitation, guest: initialGuest }, accept('bea')).ok);
});

test('a name released after a lost race is free again', () => {
  const events: GuestEvent[] = [claimedElsewhere('ada'), { type: 'GuestReleased', data: { claimId: 'other', why: 'lostRace', at: t0 } }];
  assert.is(refusal(after([issuedOpen]), accept('ada'), events), 'accepted');
});

test('spent, POST accept again: refused invitation_spent', () => {
  const invitation = after([issuedOpen, spent]);
  assert.is(refusal(invitation, accept('bea')), 'invitation_spent');
  assert.is(refusal(invitation, accept(undefined)), 'invitation_spent');
});

test('a racing acceptance of the same code holding the name: refused invitation_spent, not taken', () => {
  const racing: GuestEvent = { type: 'GuestClaimed', data: { name: 'grace', claimId: 'racer', source: { invitation: codeHash }, at: t0 } };
  assert.is(refusal(after([issuedFor('grace')]), accept(undefined), [racing]), 'invitation_spent');
});

test('unused, operator revokes: revoked, later accept refused invitation_revoked', () => {
  invitations([issuedOpen])
    .when({ type: 'revoke', now: t0 + hour })
    .then([revoked]);
  assert.is(refusal(after([issuedOpen, revoked]), accept('ada')), 'invitation_revoked');
  invitations([issuedOpen, revoked])
    .when({ type: 'revoke', now: t0 + 2 * hour })
    .then([]); // revoking twice records nothing
});

test('the operator cannot revoke a spent or unknown code', () => {
  invitations([issuedOpen, spent]).when({ type: 'revoke', now: t0 }).then(refused('invitation_spent'));
  invitations([]).when({ type: 'revoke', now: t0 }).then(refused('invitation_unknown'));
});

test('unused, time passes: expired, later accept refused invitation_expired', () => {
  const state = after([issuedOpen]);
  const expires = t0 + 24 * hour;
  assert.is(refusal(state, accept('ada', expires - 1)), 'accepted');
  assert.is(refusal(state, accept('ada', expires)), 'invitation_expired');
  assert.is(invitationStatus(state as Exclude<InvitationState, { kind: 'absent' }>, expires - 1), 'unused');
  assert.is(invitationStatus(state as Exclude<InvitationState, { kind: 'absent' }>, expires), 'expired');
});

test('an unknown code: refused invitation_unknown', () => {
  assert.is(refusal(after([]), accept('ada')), 'invitation_unknown');
});

test('an open code without a name: refused name_required', () => {
  for (const name of [undefined, null, '']) assert.is(refusal(after([issuedOpen]), accept(name)), 'name_required');
});

test('a code naming its guest, with another name: refused name_fixed', () => {
  const state = after([issuedFor('grace')]);
  for (const name of ['ada', 'Grace', 'grace ', 42, 'NOT A NAME']) assert.is(refusal(state, accept(name)), 'name_fixed', String(name));
});

test('an open code with a name outside the rule of 2.1: refused invalid_guest_name', () => {
  const state = after([issuedOpen]);
  const bad = ['A', 'ada-', '1ada', '-ada', 'a_b', 'a.b', 'a b', 'ádá', 'a'.repeat(33), ' ada', 'ada\n', 7, true, {}, ['ada']];
  for (const name of bad) assert.is(refusal(state, accept(name)), 'invalid_guest_name', JSON.stringify(name));
  for (const name of ['a', 'a1', 'a-b', 'a--b', 'z'.repeat(32), 'x9']) assert.is(refusal(state, accept(name)), 'accepted', name);
});

test('the code is judged before the name', () => {
  assert.is(refusal(after([]), accept('NOT VALID')), 'invitation_unknown');
  assert.is(refusal(after([issuedOpen, revoked]), accept(undefined)), 'invitation_revoked');
  assert.is(refusal(after([issuedOpen]), accept(undefined, t0 + 25 * hour)), 'invitation_expired');
  assert.equal(acceptName(after([issuedOpen, spent]), 'A', t0), { ok: false, reason: 'invitation_spent' });
});

test('issuing: once per code hash, and only for a valid guest name', () => {
  const issue = (guest: string | null) => ({ type: 'issue' as const, codeHash, guest, expires: t0 + hour, now: t0 });
  invitations([])
    .when(issue(null))
    .then([{ type: 'InvitationIssued', data: { codeHash, guest: null, expires: t0 + hour, at: t0 } }]);
  invitations([issuedOpen]).when(issue(null)).then(refused('invitation_exists'));
  invitations([]).when(issue('Bad Name')).then(refused('invalid_guest_name'));
});

test('a spend or revoke arriving after the invitation left unused changes nothing', () => {
  assert.is(after([issuedOpen, spent, revoked]).kind, 'spent');
  assert.is(after([issuedOpen, revoked, spent]).kind, 'revoked');
});

test.run();

/**
 * Decider of an invitation (`invitation-<code hash>`) and of accepting one (spec 3, 4.1).
 *
 * An invitation is issued unused, and leaves that state once: spent by an acceptance or revoked
 * by the operator. Expiry is not an event: an unused invitation past its time reads as expired.
 * Accepting decides over two streams, the invitation and the guest name it claims; the service
 * appends the claim first and the spend last (see docs/decisions/admission-order.md).
 */
import type { Decider, Decision } from '../contract/decider.js';
import type { acceptReasons } from '../contract/errors.js';
import type { CredentialEvent, GuestEvent, InvitationEvent } from '../events/identity.js';
import { isGuestName } from '../contract/names.js';
import { decideCredential, initialCredential } from './credential.js';
import { decideGuest, type GuestState } from './guest.js';

export type AcceptReason = (typeof acceptReasons)[number];

export interface Issued {
  codeHash: string;
  /** The guest the code names, or null for an open code. */
  guest: string | null;
  expires: number;
  issuedAt: number;
}

export type InvitationState =
  | { kind: 'absent' }
  | { kind: 'unused'; issued: Issued }
  | { kind: 'spent'; issued: Issued; name: string; claimId: string; spentAt: number }
  | { kind: 'revoked'; issued: Issued; revokedAt: number };

export const initialInvitation: InvitationState = { kind: 'absent' };

export function evolveInvitation(state: InvitationState, event: InvitationEvent): InvitationState {
  switch (event.type) {
    case 'InvitationIssued': {
      const { codeHash, guest, expires, at } = event.data;
      return { kind: 'unused', issued: { codeHash, guest, expires, issuedAt: at } };
    }
    case 'InvitationSpent':
      return state.kind === 'unused'
        ? { kind: 'spent', issued: state.issued, name: event.data.name, claimId: event.data.claimId, spentAt: event.data.at }
        : state;
    case 'InvitationRevoked':
      return state.kind === 'unused' ? { kind: 'revoked', issued: state.issued, revokedAt: event.data.at } : state;
  }
}

export type InvitationStatus = 'unused' | 'spent' | 'revoked' | 'expired';

/** The state as a person reads it: an unused invitation past its time is expired. */
export function invitationStatus(state: Exclude<InvitationState, { kind: 'absent' }>, now: number): InvitationStatus {
  if (state.kind === 'unused' && now >= state.issued.expires) return 'expired';
  return state.kind;
}

export type InvitationCommand = { type: 'issue'; codeHash: string; guest: string | null; expires: number; now: number } | { type: 'revoke'; now: number };

export type OperatorReason = 'invitation_exists' | 'invalid_guest_name' | 'invitation_unknown' | 'invitation_spent' | 'invitation_revoked';

export type InvitationDecision = Decision<InvitationEvent, OperatorReason>;

/** The operator's commands: issue a code, revoke one not yet spent. */
export function decideInvitation(state: InvitationState, command: InvitationCommand): InvitationDecision {
  switch (command.type) {
    case 'issue':
      if (state.kind !== 'absent') return { ok: false, reason: 'invitation_exists' };
      if (command.guest !== null && !isGuestName(command.guest)) return { ok: false, reason: 'invalid_guest_name' };
      return {
        ok: true,
        events: [{ type: 'InvitationIssued', data: { codeHash: command.codeHash, guest: command.guest, expires: command.expires, at: command.now } }],
      };
    case 'revoke':
      if (state.kind === 'absent') return { ok: false, reason: 'invitation_unknown' };
      if (state.kind === 'spent') return { ok: false, reason: 'invitation_spent' };
      // Revoking twice is what the operator wanted already; a lapsed code may be revoked too.
      if (state.kind === 'revoked') return { ok: true, events: [] };
      return { ok: true, events: [{ type: 'InvitationRevoked', data: { at: command.now } }] };
  }
}

/**
 * The invitation stream's own decider: the operator's issue and revoke. Spending it is decided
 * with the guest name it claims, by `decideAccept` below, over both streams at once.
 */
export const invitationDecider: Decider<InvitationState, InvitationCommand, InvitationEvent, InvitationDecision> = {
  decide: decideInvitation,
  evolve: evolveInvitation,
  initialState: () => initialInvitation,
};

export type AcceptName = { ok: true; name: string; named: boolean } | { ok: false; reason: AcceptReason };

/**
 * Which name an acceptance claims, or why it cannot. The invitation is judged before the name:
 * the code is what the caller holds, and a dead code makes any name moot. An empty name (as a
 * blank form field sends it) counts as no name.
 */
export function acceptName(invitation: InvitationState, requested: unknown, now: number): AcceptName {
  switch (invitation.kind) {
    case 'absent':
      return { ok: false, reason: 'invitation_unknown' };
    case 'revoked':
      return { ok: false, reason: 'invitation_revoked' };
    case 'spent':
      return { ok: false, reason: 'invitation_spent' };
    case 'unused':
      break;
  }
  if (now >= invitation.issued.expires) return { ok: false, reason: 'invitation_expired' };
  const name = requested === '' || requested === null ? undefined : requested;
  const fixed = invitation.issued.guest;
  if (fixed !== null) {
    if (name !== undefined && name !== fixed) return { ok: false, reason: 'name_fixed' };
    return { ok: true, name: fixed, named: true };
  }
  if (name === undefined) return { ok: false, reason: 'name_required' };
  if (!isGuestName(name)) return { ok: false, reason: 'invalid_guest_name' };
  return { ok: true, name, named: false };
}

export interface AcceptCommand {
  /** As the caller sent it: checked here, so any JSON value is a fair input. */
  name: unknown;
  now: number;
  /** Fresh per attempt: ties the name claim, the credential and the spend together. */
  claimId: string;
  credentialHash: string;
}

export type AcceptDecision =
  | {
      ok: true;
      name: string;
      /** The code named its guest: the acceptance also signs a browser in (spec 3). */
      named: boolean;
      guest: GuestEvent[];
      credential: CredentialEvent[];
      invitation: InvitationEvent[];
    }
  | { ok: false; reason: AcceptReason };

/** Accept an invitation: spend it, claim the name, issue a credential; or refuse with a reason of 4.1. */
export function decideAccept(state: { invitation: InvitationState; guest: GuestState }, command: AcceptCommand): AcceptDecision {
  const { invitation, guest } = state;
  const chosen = acceptName(invitation, command.name, command.now);
  if (!chosen.ok) return chosen;
  if (invitation.kind !== 'unused') throw new Error('acceptName passes only an unused invitation');
  const codeHash = invitation.issued.codeHash;
  if (guest.kind === 'held' && 'invitation' in guest.claim.source && guest.claim.source.invitation === codeHash) {
    // This very invitation is being spent on this name by a racing acceptance.
    return { ok: false, reason: 'invitation_spent' };
  }
  const claim = decideGuest(guest, { type: 'claim', name: chosen.name, claimId: command.claimId, source: { invitation: codeHash }, now: command.now });
  if (!claim.ok) return claim;
  const credential = decideCredential(initialCredential, { type: 'issue', name: chosen.name, claimId: command.claimId, now: command.now });
  if (!credential.ok) throw new Error('a fresh credential is always issuable');
  return {
    ok: true,
    name: chosen.name,
    named: chosen.named,
    guest: claim.events,
    credential: credential.events,
    invitation: [{ type: 'InvitationSpent', data: { name: chosen.name, claimId: command.claimId, credentialHash: command.credentialHash, at: command.now } }],
  };
}

/**
 * Decider of a bearer credential (`credential-<hash>`): issued once for a guest name, active
 * until revoked, and revoked for good (spec 3: every later use answers 401).
 */
import type { Decider, Decision } from '../contract/decider.js';
import type { CredentialEvent } from '../events/identity.js';

export type CredentialState =
  | { kind: 'absent' }
  | { kind: 'active'; name: string; claimId: string; issuedAt: number }
  | { kind: 'revoked'; name: string; claimId: string; issuedAt: number; revokedAt: number };

export const initialCredential: CredentialState = { kind: 'absent' };

export function evolveCredential(state: CredentialState, event: CredentialEvent): CredentialState {
  switch (event.type) {
    case 'CredentialIssued':
      return { kind: 'active', name: event.data.name, claimId: event.data.claimId, issuedAt: event.data.at };
    case 'CredentialRevoked':
      return state.kind === 'active' ? { ...state, kind: 'revoked', revokedAt: event.data.at } : state;
  }
}

export type CredentialCommand = { type: 'issue'; name: string; claimId: string; now: number } | { type: 'revoke'; why: 'guest' | 'unissued'; now: number };

export type CredentialDecision = Decision<CredentialEvent, 'credential_exists' | 'credential_unknown'>;

export function decideCredential(state: CredentialState, command: CredentialCommand): CredentialDecision {
  switch (command.type) {
    case 'issue':
      // 256 random bits never collide; finding the stream means a retry of an issue already made.
      if (state.kind !== 'absent') return { ok: false, reason: 'credential_exists' };
      return { ok: true, events: [{ type: 'CredentialIssued', data: { name: command.name, claimId: command.claimId, at: command.now } }] };
    case 'revoke':
      if (state.kind === 'absent') return { ok: false, reason: 'credential_unknown' };
      if (state.kind === 'revoked') return { ok: true, events: [] };
      return { ok: true, events: [{ type: 'CredentialRevoked', data: { why: command.why, at: command.now } }] };
  }
}

export const credentialDecider: Decider<CredentialState, CredentialCommand, CredentialEvent, CredentialDecision> = {
  decide: decideCredential,
  evolve: evolveCredential,
  initialState: () => initialCredential,
};

/** The guest a credential speaks for, or undefined when it speaks for no one (any more). */
export function activeCredential(state: CredentialState): { name: string; issuedAt: number } | undefined {
  return state.kind === 'active' ? { name: state.name, issuedAt: state.issuedAt } : undefined;
}

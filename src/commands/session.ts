/**
 * Decider of a browser session (`session-<hash>`). A session borrows the credential it was
 * signed in with: it ends when the guest leaves, when it lapses, or when that credential is
 * revoked (the authenticator checks the credential on every use).
 */
import type { Decider, Decision } from '../contract/decider.js';
import type { SessionEvent } from '../events/identity.js';

export type SessionState =
  | { kind: 'absent' }
  | { kind: 'active'; credentialHash: string; expires: number; startedAt: number }
  | { kind: 'ended'; credentialHash: string; endedAt: number };

export const initialSession: SessionState = { kind: 'absent' };

export function evolveSession(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionStarted':
      return { kind: 'active', credentialHash: event.data.credentialHash, expires: event.data.expires, startedAt: event.data.at };
    case 'SessionEnded':
      return state.kind === 'active' ? { kind: 'ended', credentialHash: state.credentialHash, endedAt: event.data.at } : state;
  }
}

export type SessionCommand = { type: 'start'; credentialHash: string; now: number; lifetimeMs: number } | { type: 'end'; now: number };

export type SessionDecision = Decision<SessionEvent, 'session_exists'>;

export function decideSession(state: SessionState, command: SessionCommand): SessionDecision {
  switch (command.type) {
    case 'start':
      if (state.kind !== 'absent') return { ok: false, reason: 'session_exists' };
      return {
        ok: true,
        events: [{ type: 'SessionStarted', data: { credentialHash: command.credentialHash, expires: command.now + command.lifetimeMs, at: command.now } }],
      };
    case 'end':
      // Leaving twice, or leaving a session the town never knew, changes nothing.
      if (state.kind !== 'active') return { ok: true, events: [] };
      return { ok: true, events: [{ type: 'SessionEnded', data: { at: command.now } }] };
  }
}

export const sessionDecider: Decider<SessionState, SessionCommand, SessionEvent, SessionDecision> = {
  decide: decideSession,
  evolve: evolveSession,
  initialState: () => initialSession,
};

/** The credential an unexpired, unended session speaks with. */
export function sessionCredential(state: SessionState, now: number): string | undefined {
  return state.kind === 'active' && now < state.expires ? state.credentialHash : undefined;
}

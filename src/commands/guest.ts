/**
 * Decider of a guest name (`guest-<name>`). A name is held by its newest claim until that claim
 * is released. A claim is made before the invitation or proof it rests on is spent, so a claim
 * whose spend loses its race (or never happens) is released again; see docs/decisions/admission-order.md.
 */
import type { Decider, Decision } from '../contract/decider.js';
import type { ClaimSource, GuestEvent } from '../events/identity.js';

export interface Claim {
  name: string;
  claimId: string;
  source: ClaimSource;
  at: number;
}

export type GuestState = { kind: 'free' } | { kind: 'held'; claim: Claim };

export const initialGuest: GuestState = { kind: 'free' };

export function evolveGuest(state: GuestState, event: GuestEvent): GuestState {
  switch (event.type) {
    case 'GuestClaimed':
      return { kind: 'held', claim: event.data };
    case 'GuestReleased':
      return state.kind === 'held' && state.claim.claimId === event.data.claimId ? { kind: 'free' } : state;
  }
}

export type GuestCommand =
  | { type: 'claim'; name: string; claimId: string; source: ClaimSource; now: number }
  | { type: 'release'; claimId: string; why: 'lostRace' | 'abandoned'; now: number };

export type GuestDecision = Decision<GuestEvent, 'taken'>;

export function decideGuest(state: GuestState, command: GuestCommand): GuestDecision {
  switch (command.type) {
    case 'claim':
      if (state.kind === 'held') return { ok: false, reason: 'taken' };
      return {
        ok: true,
        events: [{ type: 'GuestClaimed', data: { name: command.name, claimId: command.claimId, source: command.source, at: command.now } }],
      };
    case 'release':
      // Releasing is idempotent: a claim already released, or replaced, has nothing to give back.
      if (state.kind !== 'held' || state.claim.claimId !== command.claimId) return { ok: true, events: [] };
      return { ok: true, events: [{ type: 'GuestReleased', data: { claimId: command.claimId, why: command.why, at: command.now } }] };
  }
}

export const guestDecider: Decider<GuestState, GuestCommand, GuestEvent, GuestDecision> = {
  decide: decideGuest,
  evolve: evolveGuest,
  initialState: () => initialGuest,
};

/**
 * A claim older than this whose spend is nowhere recorded was left by a front that stopped
 * between claiming and spending; it may be released for a newcomer. A live acceptance takes
 * milliseconds, and gives up long before this (see `claimCommitWindowMs`).
 */
export const abandonedClaimAfterMs = 10 * 60_000;

/**
 * A front that finds more time than this between its claim and its spend abandons the
 * acceptance instead of spending, so that it can never spend on a claim another front may
 * already have judged abandoned.
 */
export const claimCommitWindowMs = 60_000;

export function claimMayBeAbandoned(state: GuestState, now: number): state is { kind: 'held'; claim: Claim } {
  return state.kind === 'held' && now - state.claim.at > abandonedClaimAfterMs;
}

/**
 * Decider of an arrival (spec 2.3, 3, 4.1): a proof of work over a challenge the town gave buys
 * a fresh guest on an open town. The challenge itself is stateless (src/commands/challenge.ts);
 * what is stored is its spending, in `proof-<challenge id>`.
 *
 * Order of checks, cheapest and most telling first, all before any store is read:
 *   proof_invalid (challenge not the town's) → proof_invalid (nonce) → proof_expired →
 *   invalid_guest_name → proof_short; then from the streams: proof_spent → taken.
 * A name the town would never accept is reported before the digest, since the digest covers the
 * name: the guest must fix the name and solve again either way. A refused `taken` spends
 * nothing: the challenge stays good for another name (with a nonce solved for that name).
 */
import { createHash } from 'node:crypto';
import type { Decider, Decision } from '../contract/decider.js';
import type { arriveReasons } from '../contract/errors.js';
import type { CredentialEvent, GuestEvent, ProofEvent } from '../events/identity.js';
import type { Challenge } from './challenge.js';
import { isGuestName } from '../contract/names.js';
import { decideCredential, initialCredential } from './credential.js';
import { decideGuest, type GuestState } from './guest.js';
import { limits } from '../contract/limits.js';

export type ArriveReason = (typeof arriveReasons)[number];

export type ProofState = { kind: 'unspent' } | { kind: 'spent'; name: string; claimId: string; at: number };

export const initialProof: ProofState = { kind: 'unspent' };

export function evolveProof(_state: ProofState, event: ProofEvent): ProofState {
  return { kind: 'spent', name: event.data.name, claimId: event.data.claimId, at: event.data.at };
}

/** Spending a proof on the guest it admits: once. */
export type ProofSpend = { type: 'spend'; name: string; claimId: string; credentialHash: string; now: number };

export function decideProof(state: ProofState, command: ProofSpend): Decision<ProofEvent, 'proof_spent'> {
  if (state.kind === 'spent') return { ok: false, reason: 'proof_spent' };
  return {
    ok: true,
    events: [{ type: 'ProofSpent', data: { name: command.name, claimId: command.claimId, credentialHash: command.credentialHash, at: command.now } }],
  };
}

/**
 * The proof stream's own decider. An arrival spends it together with the name it claims, by
 * `decideArrive` below, over both streams at once.
 */
export const proofDecider: Decider<ProofState, ProofSpend, ProofEvent, Decision<ProofEvent, 'proof_spent'>> = {
  decide: decideProof,
  evolve: evolveProof,
  initialState: () => initialProof,
};

/** 1 to 64 characters, each printable ASCII (0x20 to 0x7E). */
export function isNonce(nonce: unknown): nonce is string {
  const [least, most] = limits.nonceLength;
  return typeof nonce === 'string' && nonce.length >= least && nonce.length <= most && /^[\x20-\x7e]*$/.test(nonce);
}

export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

export function proofDigest(challenge: string, name: string, nonce: string): Buffer {
  return createHash('sha256').update(`${challenge}:${name}:${nonce}`, 'utf8').digest();
}

export interface ProofCommand {
  /** The challenge as parsed and verified against the town's key; undefined when it is not the town's. */
  challenge: Challenge | undefined;
  name: unknown;
  nonce: unknown;
  now: number;
}

/** The checks that need no stream: undefined when the proof is good for this name right now. */
export function checkProof(command: ProofCommand): ArriveReason | undefined {
  const { challenge, name, nonce, now } = command;
  if (challenge === undefined) return 'proof_invalid';
  if (!isNonce(nonce)) return 'proof_invalid';
  if (now >= challenge.expires) return 'proof_expired';
  if (!isGuestName(name)) return 'invalid_guest_name';
  if (leadingZeroBits(proofDigest(challenge.challenge, name, nonce)) < challenge.bits) return 'proof_short';
  return undefined;
}

export interface ArriveCommand extends ProofCommand {
  claimId: string;
  credentialHash: string;
}

export type ArriveDecision =
  | { ok: true; name: string; guest: GuestEvent[]; credential: CredentialEvent[]; proof: ProofEvent[] }
  | { ok: false; reason: ArriveReason };

export function decideArrive(state: { proof: ProofState; guest: GuestState }, command: ArriveCommand): ArriveDecision {
  const refused = checkProof(command);
  if (refused !== undefined) return { ok: false, reason: refused };
  const challenge = command.challenge!;
  const name = command.name as string;
  const spend = decideProof(state.proof, { type: 'spend', name, claimId: command.claimId, credentialHash: command.credentialHash, now: command.now });
  if (!spend.ok) return spend;
  const { guest } = state;
  if (guest.kind === 'held' && 'proof' in guest.claim.source && guest.claim.source.proof === challenge.id) {
    // This very proof is being spent on this name by a racing arrival.
    return { ok: false, reason: 'proof_spent' };
  }
  const claim = decideGuest(state.guest, { type: 'claim', name, claimId: command.claimId, source: { proof: challenge.id }, now: command.now });
  if (!claim.ok) return claim;
  const credential = decideCredential(initialCredential, { type: 'issue', name, claimId: command.claimId, now: command.now });
  if (!credential.ok) throw new Error('a fresh credential is always issuable');
  return {
    ok: true,
    name,
    guest: claim.events,
    credential: credential.events,
    proof: spend.events,
  };
}

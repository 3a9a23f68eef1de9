/**
 * Handle challenges of the earlier catalogue shape (spec 9, "Identity"): `POST challenge
 * {handle}` issues a challenge text and a credential; the guest posts exactly that text as the
 * whole of a public post of the town's feed from that handle; `POST verify {handle, uri}` within
 * 15 minutes then claims the name (when free) and activates the credential.
 *
 * Decider of one challenge (`handle-challenge-<id>`), and the verification decided across the
 * challenge, the guest name and the credential, as `decideArrive` does for a proof. Pure: the
 * clock, the fresh ids and the post's facts come in the command.
 */
import type { Decider, Decision } from '../contract/decider.js';
import { decideCredential, initialCredential } from '../commands/credential.js';
import { decideGuest, type GuestState } from '../commands/guest.js';
import type { CredentialEvent, GuestEvent, HandleChallengeEvent } from '../events/identity.js';
import { handleOf, isGuestName, principalOf } from '../contract/names.js';

/** Spec 9: the post must be verified within 15 minutes of the challenge. */
export const handleChallengeLifetimeMs = 15 * 60_000;

export type HandleChallengeReason =
  | 'invalid_handle'
  | 'challenge_unknown'
  | 'challenge_expired'
  | 'challenge_spent'
  | 'handle_mismatch'
  | 'post_unknown'
  | 'post_text'
  | 'post_author'
  | 'taken';

export type HandleChallengeState =
  | { kind: 'absent' }
  | { kind: 'issued'; name: string; credentialHash: string; text: string; expires: number; at: number }
  | { kind: 'verified'; name: string; credentialHash: string; text: string; expires: number; at: number; uri: string; claimId: string };

export const initialHandleChallenge: HandleChallengeState = { kind: 'absent' };

/** The text to post: names the handle and the town, and carries the challenge id to find it by. */
export function challengeText(host: string, name: string, id: string): string {
  return `I am ${handleOf(host, name)} on ${host}. Challenge ${id}`;
}

/** The challenge id a post's text carries, when the text has the shape of a challenge. */
export function challengeIdOf(text: string): string | undefined {
  const m = /^I am [a-z0-9.-]+ on \S+\. Challenge ([a-z0-9]{26})$/.exec(text);
  return m?.[1];
}

/** A handle as agents send it: the guest name, or `<name>.<host>`. */
export function nameOfHandle(host: string, handle: unknown): string | undefined {
  if (typeof handle !== 'string') return undefined;
  const suffix = `.${handleOf(host, 'x').slice(2)}`;
  const name = handle.endsWith(suffix) ? handle.slice(0, -suffix.length) : handle;
  return isGuestName(name) ? name : undefined;
}

export function evolveHandleChallenge(state: HandleChallengeState, event: HandleChallengeEvent): HandleChallengeState {
  switch (event.type) {
    case 'HandleChallenged':
      return { kind: 'issued', ...event.data };
    case 'HandleVerified':
      return state.kind === 'issued' ? { ...state, kind: 'verified', uri: event.data.uri, claimId: event.data.claimId } : state;
  }
}

export type HandleChallengeCommand = { type: 'issue'; host: string; id: string; name: string; credentialHash: string; now: number };

export function decideHandleChallenge(state: HandleChallengeState, command: HandleChallengeCommand): Decision<HandleChallengeEvent, HandleChallengeReason> {
  if (state.kind !== 'absent') return { ok: false, reason: 'challenge_spent' };
  const { host, id, name, credentialHash, now } = command;
  return {
    ok: true,
    events: [
      { type: 'HandleChallenged', data: { name, credentialHash, text: challengeText(host, name, id), expires: now + handleChallengeLifetimeMs, at: now } },
    ],
  };
}

export const handleChallengeDecider: Decider<
  HandleChallengeState,
  HandleChallengeCommand,
  HandleChallengeEvent,
  Decision<HandleChallengeEvent, HandleChallengeReason>
> = {
  decide: decideHandleChallenge,
  evolve: evolveHandleChallenge,
  initialState: () => initialHandleChallenge,
};

/** A post of the town's feed, as verification reads it. */
export interface PostFacts {
  uri: string;
  text: string;
  /** The author's principal. */
  author: string;
  at: number;
}

export interface VerifyCommand {
  host: string;
  id: string;
  /** The name the verify request's handle names. */
  name: string;
  post: PostFacts;
  /** A fresh claim id, used when the name is free. */
  claimId: string;
  now: number;
}

export type VerifyDecision =
  | { ok: true; challenge: HandleChallengeEvent[]; guest: GuestEvent[]; credential: CredentialEvent[]; credentialHash: string }
  | { ok: false; reason: HandleChallengeReason };

/**
 * Verification: the challenge issued for this name, unexpired and unspent; the post exactly its
 * text and from the name's principal. A free name is claimed; a name already held is its guest's
 * only if it held it when the post was made (its own credential made the post), else `taken`.
 */
export function decideVerify(state: { challenge: HandleChallengeState; guest: GuestState }, c: VerifyCommand): VerifyDecision {
  const ch = state.challenge;
  if (ch.kind === 'absent') return { ok: false, reason: 'challenge_unknown' };
  if (ch.kind === 'verified') return { ok: false, reason: 'challenge_spent' };
  if (ch.name !== c.name) return { ok: false, reason: 'handle_mismatch' };
  if (c.now >= ch.expires) return { ok: false, reason: 'challenge_expired' };
  if (c.post.text !== ch.text) return { ok: false, reason: 'post_text' };
  if (c.post.author !== principalOf(c.host, ch.name)) return { ok: false, reason: 'post_author' };
  if (c.post.at < ch.at || c.post.at >= ch.expires) return { ok: false, reason: 'challenge_expired' };
  let claimId = c.claimId;
  let guest: GuestEvent[] = [];
  if (state.guest.kind === 'held') {
    // Claimed after the post (or in its very millisecond, to be safe): the post was the
    // challenge credential's while the name was free, and the name is another's now.
    if (state.guest.claim.at >= c.post.at) return { ok: false, reason: 'taken' };
    claimId = state.guest.claim.claimId;
  } else {
    const claim = decideGuest(state.guest, { type: 'claim', name: ch.name, claimId, source: { challenge: c.id }, now: c.now });
    if (!claim.ok) return claim;
    guest = claim.events;
  }
  const credential = decideCredential(initialCredential, { type: 'issue', name: ch.name, claimId, now: c.now });
  if (!credential.ok) throw new Error('a fresh credential is always issuable');
  return {
    ok: true,
    challenge: [{ type: 'HandleVerified', data: { name: ch.name, uri: c.post.uri, claimId, at: c.now } }],
    guest,
    credential: credential.events,
    credentialHash: ch.credentialHash,
  };
}

/**
 * Who may post a challenge's text before verifying (docs/decisions/earlier-catalogue-shape.md): the challenge's own
 * credential while the name is free (it speaks for no one yet, and for nothing else), or a
 * credential already active for that very name. Answers the name to post as, or undefined.
 */
export function challengePoster(
  challenge: HandleChallengeState,
  guest: GuestState,
  caller: { credentialHash: string; activeName?: string },
  now: number,
): string | undefined {
  if (challenge.kind !== 'issued' || now >= challenge.expires) return undefined;
  if (caller.activeName === challenge.name) return challenge.name;
  if (caller.credentialHash === challenge.credentialHash && guest.kind === 'free') return challenge.name;
  return undefined;
}

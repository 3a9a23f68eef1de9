/**
 * Events of the identity streams, as io-ts codecs. Every stored event is decoded through the
 * codec of its stream's category before a decider sees it, so a stream holding something else
 * fails loudly instead of being folded into a wrong state.
 *
 * Streams: `invitation-<code hash>`, `guest-<name>`, `proof-<challenge id>`,
 * `credential-<hash>`, `session-<hash>`, `town-config`, `town-founding`. Times are milliseconds
 * since the epoch, taken from the clock passed into the command.
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import type { RecordedEvent } from '../stores/event-store.js';

const at = t.number;

/** An event is stored as `{type, data}`; the pair is what the codec checks. */
function event<T extends string, D extends t.Mixed>(type: T, data: D) {
  return t.type({ type: t.literal(type), data });
}

export const InvitationIssued = event(
  'InvitationIssued',
  t.type({
    codeHash: t.string,
    /** The guest the code names, or null for an open code. */
    guest: t.union([t.string, t.null]),
    expires: t.number,
    at,
  }),
);
export const InvitationSpent = event(
  'InvitationSpent',
  t.type({
    name: t.string,
    /** The name claim this spend confirms (see GuestClaimed). */
    claimId: t.string,
    credentialHash: t.string,
    at,
  }),
);
export const InvitationRevoked = event('InvitationRevoked', t.type({ at }));
export const InvitationEvent = t.union([InvitationIssued, InvitationSpent, InvitationRevoked]);
export type InvitationEvent = t.TypeOf<typeof InvitationEvent>;

/**
 * What a name claim spends: an invitation (by code hash), an arrival proof (by challenge id), or
 * (the earlier catalogue shape, spec 9) a handle challenge verified by a post (by challenge id).
 */
export const ClaimSource = t.union([t.type({ invitation: t.string }), t.type({ proof: t.string }), t.type({ challenge: t.string })]);
export type ClaimSource = t.TypeOf<typeof ClaimSource>;

export const GuestClaimed = event(
  'GuestClaimed',
  t.type({
    name: t.string,
    claimId: t.string,
    source: ClaimSource,
    at,
  }),
);
/** A claim whose spend lost its race (or never happened) gives the name back. */
export const GuestReleased = event(
  'GuestReleased',
  t.type({
    claimId: t.string,
    why: t.keyof({ lostRace: null, abandoned: null }),
    at,
  }),
);
export const GuestEvent = t.union([GuestClaimed, GuestReleased]);
export type GuestEvent = t.TypeOf<typeof GuestEvent>;

export const ProofSpent = event(
  'ProofSpent',
  t.type({
    name: t.string,
    claimId: t.string,
    credentialHash: t.string,
    at,
  }),
);
export const ProofEvent = ProofSpent;
export type ProofEvent = t.TypeOf<typeof ProofEvent>;

export const CredentialIssued = event(
  'CredentialIssued',
  t.type({
    name: t.string,
    claimId: t.string,
    at,
  }),
);
export const CredentialRevoked = event(
  'CredentialRevoked',
  t.type({
    /** `guest`: POST revoke; `unissued`: the acceptance that made it lost its race. */
    why: t.keyof({ guest: null, unissued: null }),
    at,
  }),
);
export const CredentialEvent = t.union([CredentialIssued, CredentialRevoked]);
export type CredentialEvent = t.TypeOf<typeof CredentialEvent>;

/**
 * A handle challenge of the earlier catalogue shape (spec 9; `handle-challenge-<id>`): issued
 * for a guest name with the credential it will activate (by hash), then verified once by a post
 * of the town's feed that says exactly its text.
 */
export const HandleChallenged = event(
  'HandleChallenged',
  t.type({
    name: t.string,
    credentialHash: t.string,
    text: t.string,
    expires: t.number,
    at,
  }),
);
export const HandleVerified = event(
  'HandleVerified',
  t.type({
    name: t.string,
    /** The post's at:// URI. */
    uri: t.string,
    /** The name claim this verification made or found (GuestClaimed's claimId). */
    claimId: t.string,
    at,
  }),
);
export const HandleChallengeEvent = t.union([HandleChallenged, HandleVerified]);
export type HandleChallengeEvent = t.TypeOf<typeof HandleChallengeEvent>;

export const SessionStarted = event(
  'SessionStarted',
  t.type({
    credentialHash: t.string,
    expires: t.number,
    at,
  }),
);
export const SessionEnded = event('SessionEnded', t.type({ at }));
export const SessionEvent = t.union([SessionStarted, SessionEnded]);
export type SessionEvent = t.TypeOf<typeof SessionEvent>;

export const TownModeSet = event('TownModeSet', t.type({ open: t.boolean, at }));
export const TownConfigEvent = TownModeSet;
export type TownConfigEvent = t.TypeOf<typeof TownConfigEvent>;

/** Marks that a fresh town made its first invitation, so that only one front ever does. */
export const TownFounded = event('TownFounded', t.type({ invitationHash: t.string, at }));
export const TownFoundingEvent = TownFounded;
export type TownFoundingEvent = t.TypeOf<typeof TownFoundingEvent>;

export const streams = {
  invitation: (codeHash: string) => `invitation-${codeHash}`,
  guest: (name: string) => `guest-${name}`,
  proof: (challengeId: string) => `proof-${challengeId}`,
  handleChallenge: (challengeId: string) => `handle-challenge-${challengeId}`,
  credential: (hash: string) => `credential-${hash}`,
  session: (hash: string) => `session-${hash}`,
  townConfig: 'town-config',
  townFounding: 'town-founding',
} as const;

export class CorruptEvent extends Error {
  constructor(
    readonly stream: string,
    readonly revision: bigint,
    detail: string,
  ) {
    super(`event ${revision} of ${stream} is not an identity event of that stream: ${detail}`);
    this.name = 'CorruptEvent';
  }
}

/** Decode one stored event through its stream's codec; throws CorruptEvent when it does not fit. */
export function decodeEvent<E>(codec: t.Decoder<unknown, E>, recorded: RecordedEvent): E {
  const result = codec.decode({ type: recorded.type, data: recorded.data });
  if (isLeft(result)) throw new CorruptEvent(recorded.stream, recorded.revision, PathReporter.report(result).join('; '));
  return result.right;
}

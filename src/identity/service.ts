/**
 * The identity service: admits guests (accept, arrive), revokes credentials, starts and ends
 * browser sessions. It runs the deciders of src/commands against the EventStore: a command on
 * one stream through the shared handler (`handleCommand`, streams.ts), an admission, which
 * decides over several streams at once, through the same bounded retry loop (`retrying`).
 *
 * Admitting touches three streams and must leave nothing half done when it loses a race. The
 * order is: claim the name (`guest-<name>`, at its folded revision, usually noStream), write the
 * credential (`credential-<hash>`, noStream; its secret is shown to nobody until the end), then
 * spend the invitation or proof at its folded revision. The spend is the commit point. Whoever
 * loses it releases the name and voids the credential, then decides again on what won (and is
 * refused `invitation_spent` or `proof_spent`). A front that dies between claim and spend leaves
 * a claim no spend confirms; ten minutes later a newcomer may release it (see guest.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { checkProof, decideArrive } from '../commands/arrival.js';
import { activeCredential } from '../commands/credential.js';
import { claimCommitWindowMs, claimMayBeAbandoned, type GuestState } from '../commands/guest.js';
import { acceptName, decideAccept } from '../commands/invitation.js';
import { limits } from '../contract/limits.js';
import { streams, type CredentialEvent, type GuestEvent } from '../events/identity.js';
import { TownError } from '../contract/town-error.js';
import type { Clock } from '../contract/clock.js';
import type { TownConfig } from '../contract/town-config.js';
import type { EventStore, ExpectedRevision } from '../stores/event-store.js';
import { issueChallenge, parseChallenge, type Challenge } from '../commands/challenge.js';
import { credentialKind, handleChallengeKind, guestKind, invitationKind, proofKind, sessionKind } from './kinds.js';
import { challengeIdOf, challengePoster, decideVerify, nameOfHandle, type PostFacts } from './handle-challenge.js';
import { handleOf, identityOf, type GuestIdentity } from '../contract/names.js';
import { identityRefusal } from './refusals.js';
import { credentialPrefix, invitationPrefix, newCredential, newSessionId, secretHash, sha256Hex } from './secrets.js';
import { lost, lostRace, retrying } from '../commands/command-runner.js';
import { appendDecided, fold, handleCommand, type Folded } from '../commands/streams.js';

/** A browser stays signed in this long unless it leaves first (or its credential is revoked). */
export const sessionLifetimeMs = 30 * 24 * 3600_000;

export interface IdentityServiceOptions {
  store: EventStore;
  config: Pick<TownConfig, 'host' | 'secret'>;
  clock: Clock;
  /**
   * Difficulty of the challenges handed out; the spec's 18 unless a test needs many proofs
   * quickly. Each challenge carries (under its mac) the difficulty it was issued with.
   */
  arrivalBits?: number;
  random?: (size: number) => Uint8Array;
}

/** What a newly admitted guest is told once (spec 2.2), and how it was admitted. */
export interface Admission extends GuestIdentity {
  credential: string;
  credentialHash: string;
  /** An invitation that named its guest: accepting it also signs the browser in (spec 3). */
  named: boolean;
}

interface Commit {
  name: string;
  guest: Folded<GuestState>;
  guestEvents: GuestEvent[];
  claimId: string;
  claimedAt: number;
  credentialHash: string;
  credentialEvents: CredentialEvent[];
  commitStream: string;
  commitExpected: ExpectedRevision;
  commitEvents: { type: string; data: unknown }[];
}

export class IdentityService {
  private readonly store: EventStore;
  private readonly clock: Clock;
  private readonly random: (size: number) => Uint8Array;
  readonly arrivalBits: number;

  constructor(private readonly options: IdentityServiceOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.random = options.random ?? randomBytes;
    this.arrivalBits = options.arrivalBits ?? limits.arrivalBits;
  }

  /** A fresh challenge; nothing is written (spec 2.3). */
  issueChallenge(): Challenge {
    return issueChallenge(this.options.config.secret, this.clock(), limits.challengeLifetimeSeconds * 1000, this.arrivalBits, this.random);
  }

  /** Spec 4.1 `accept`: refusals are TownError `identity` with the reason. */
  async accept(code: unknown, name: unknown): Promise<Admission> {
    const codeHash = secretHash(code, invitationPrefix);
    if (codeHash === undefined) throw identityRefusal('invitation_unknown');
    const invitationStream = streams.invitation(codeHash);
    return retrying(invitationStream, async () => {
      const now = this.clock();
      const invitation = await fold(this.store, invitationStream, invitationKind);
      const chosen = acceptName(invitation.state, name, now);
      if (!chosen.ok) throw identityRefusal(chosen.reason);
      const guest = await fold(this.store, streams.guest(chosen.name), guestKind);
      if (await this.releaseIfAbandoned(guest, now)) return lost;
      const { credential, credentialHash, claimId } = this.freshSecrets();
      const decision = decideAccept({ invitation: invitation.state, guest: guest.state }, { name, now, claimId, credentialHash });
      if (!decision.ok) throw identityRefusal(decision.reason);
      const committed = await this.claimAndCommit({
        name: decision.name,
        guest,
        guestEvents: decision.guest,
        claimId,
        claimedAt: now,
        credentialHash,
        credentialEvents: decision.credential,
        commitStream: invitationStream,
        commitExpected: invitation.expected,
        commitEvents: decision.invitation,
      });
      return committed ? this.admission(decision.name, credential, credentialHash, decision.named) : lost;
    });
  }

  /**
   * Spec 4.1 `arrive`. `admit` runs once, after every check passed and before anything is
   * written: the rate limits count arrivals that would be made, not malformed requests (a flood
   * of junk must not spend the town's hourly budget of 300).
   */
  async arrive(name: unknown, proof: unknown, admit: () => void | Promise<void> = () => {}): Promise<Admission> {
    const { challenge: challengeText, nonce } = (typeof proof === 'object' && proof !== null ? proof : {}) as Record<string, unknown>;
    const challenge = parseChallenge(this.options.config.secret, challengeText);
    // The checks that need no store come first, so a junk proof costs no read.
    const early = checkProof({ challenge, name, nonce, now: this.clock() });
    if (early !== undefined) throw identityRefusal(early);
    const { id } = challenge!;
    const guestName = name as string;
    const proofStream = streams.proof(id);
    let admitted = false;
    return retrying(proofStream, async () => {
      const now = this.clock();
      const proofState = await fold(this.store, proofStream, proofKind);
      const guest = await fold(this.store, streams.guest(guestName), guestKind);
      if (await this.releaseIfAbandoned(guest, now)) return lost;
      const { credential, credentialHash, claimId } = this.freshSecrets();
      const decision = decideArrive({ proof: proofState.state, guest: guest.state }, { challenge, name, nonce, now, claimId, credentialHash });
      if (!decision.ok) throw identityRefusal(decision.reason);
      if (!admitted) {
        await admit();
        admitted = true;
      }
      const committed = await this.claimAndCommit({
        name: guestName,
        guest,
        guestEvents: decision.guest,
        claimId,
        claimedAt: now,
        credentialHash,
        credentialEvents: decision.credential,
        commitStream: proofStream,
        commitExpected: proofState.expected,
        commitEvents: decision.proof,
      });
      return committed ? this.admission(guestName, credential, credentialHash, false) : lost;
    });
  }

  /**
   * Spec 9 `POST challenge {handle}` (the earlier catalogue shape): a challenge text to post and
   * the credential a verification will activate (shown once; it speaks for no one until then).
   */
  async challengeHandle(handle: unknown): Promise<{ challenge: string; credential: string; handle: string; expires: string }> {
    const host = this.options.config.host;
    const name = nameOfHandle(host, handle);
    if (name === undefined) throw identityRefusal('invalid_handle');
    const id = Buffer.from(this.random(16)).toString('hex').slice(0, 26);
    const credential = newCredential(this.random);
    const handled = await handleCommand(this.store, streams.handleChallenge(id), handleChallengeKind, {
      type: 'issue',
      host,
      id,
      name,
      credentialHash: sha256Hex(credential),
      now: this.clock(),
    });
    if (!handled.ok || handled.state.kind !== 'issued') throw new Error('a fresh challenge id collided');
    return { challenge: handled.state.text, credential, handle: handleOf(host, name), expires: new Date(handled.state.expires).toISOString() };
  }

  /**
   * Whether `credential` may post `text` now, as the challenge it names allows (challengePoster):
   * the guest name to post as, or undefined.
   */
  async challengePostAs(text: string, credential: unknown): Promise<string | undefined> {
    const id = challengeIdOf(text);
    const credentialHash = secretHash(credential, credentialPrefix);
    if (id === undefined || credentialHash === undefined) return undefined;
    const challenge = (await fold(this.store, streams.handleChallenge(id), handleChallengeKind)).state;
    if (challenge.kind !== 'issued') return undefined;
    const guest = (await fold(this.store, streams.guest(challenge.name), guestKind)).state;
    const active = activeCredential((await fold(this.store, streams.credential(credentialHash), credentialKind)).state);
    return challengePoster(challenge, guest, { credentialHash, ...(active ? { activeName: active.name } : {}) }, this.clock());
  }

  /**
   * Spec 9 `POST verify {handle, uri}`: the post `uri` names (read by `postAt`) says exactly the
   * challenge's text, from the handle, within 15 minutes; the name is claimed (when free) and the
   * challenge's credential speaks for the guest from now on.
   */
  async verifyHandle(handle: unknown, uri: unknown, postAt: (uri: string) => Promise<PostFacts | undefined>): Promise<GuestIdentity> {
    const host = this.options.config.host;
    const name = nameOfHandle(host, handle);
    if (name === undefined) throw identityRefusal('invalid_handle');
    const post = typeof uri === 'string' ? await postAt(uri) : undefined;
    if (post === undefined) throw identityRefusal('post_unknown');
    const id = challengeIdOf(post.text);
    if (id === undefined) throw identityRefusal('post_text');
    const challengeStream = streams.handleChallenge(id);
    return retrying(challengeStream, async () => {
      const now = this.clock();
      const challenge = await fold(this.store, challengeStream, handleChallengeKind);
      const guest = await fold(this.store, streams.guest(name), guestKind);
      if (await this.releaseIfAbandoned(guest, now)) return lost;
      const decision = decideVerify({ challenge: challenge.state, guest: guest.state }, { host, id, name, post, claimId: randomUUID(), now });
      if (!decision.ok) throw identityRefusal(decision.reason);
      try {
        await appendDecided(this.store, streams.guest(name), decision.guest, guest.expected);
        await appendDecided(this.store, streams.credential(decision.credentialHash), decision.credential, 'noStream');
        await appendDecided(this.store, challengeStream, decision.challenge, challenge.expected);
      } catch (error) {
        if (!lostRace(error)) throw error;
        // A claim made here whose verification lost its race lapses as abandoned (guest.ts).
        return lost;
      }
      return identityOf(host, name);
    });
  }

  /** POST revoke: the credential, and every session signed in with it, answer 401 from now on. */
  async revoke(credentialHash: string): Promise<void> {
    const now = this.clock();
    const result = await handleCommand(this.store, streams.credential(credentialHash), credentialKind, { type: 'revoke', why: 'guest', now });
    if (!result.ok) throw new TownError('unauthenticated', 'no such credential');
  }

  /** Start a browser session for an active credential; the id is shown once, in the cookie. */
  async startSession(credentialHash: string): Promise<string> {
    const sessionId = newSessionId(this.random);
    const now = this.clock();
    const result = await handleCommand(this.store, streams.session(sha256Hex(sessionId)), sessionKind, {
      type: 'start',
      credentialHash,
      now,
      lifetimeMs: sessionLifetimeMs,
    });
    if (!result.ok) throw new Error('a fresh session id collided');
    return sessionId;
  }

  /** POST /enter {credential}: a session for that credential, or undefined if it speaks for no one. */
  async signIn(credential: unknown): Promise<{ sessionId: string; identity: GuestIdentity } | undefined> {
    const credentialHash = secretHash(credential, credentialPrefix);
    if (credentialHash === undefined) return undefined;
    const active = activeCredential((await fold(this.store, streams.credential(credentialHash), credentialKind)).state);
    if (active === undefined) return undefined;
    return { sessionId: await this.startSession(credentialHash), identity: identityOf(this.options.config.host, active.name) };
  }

  /** POST /leave: the session ends; the credential stays good. */
  async endSession(sessionId: unknown): Promise<void> {
    const hash = secretHash(sessionId);
    if (hash === undefined) return;
    const now = this.clock();
    await handleCommand(this.store, streams.session(hash), sessionKind, { type: 'end', now });
  }

  private freshSecrets() {
    const credential = newCredential(this.random);
    return { credential, credentialHash: sha256Hex(credential), claimId: randomUUID() };
  }

  private admission(name: string, credential: string, credentialHash: string, named: boolean): Admission {
    return { ...identityOf(this.options.config.host, name), credential, credentialHash, named };
  }

  /** Claim, credential, spend; true when committed, false when a race was lost and undone. */
  private async claimAndCommit(commit: Commit): Promise<boolean> {
    try {
      await appendDecided(this.store, streams.guest(commit.name), commit.guestEvents, commit.guest.expected);
    } catch (error) {
      if (lostRace(error)) return false;
      throw error;
    }
    try {
      await appendDecided(this.store, streams.credential(commit.credentialHash), commit.credentialEvents, 'noStream');
      if (this.clock() - commit.claimedAt > claimCommitWindowMs) {
        throw new TownError('internal', 'the store was too slow to admit the guest safely; nothing was decided, try again');
      }
      await appendDecided(this.store, commit.commitStream, commit.commitEvents, commit.commitExpected);
      return true;
    } catch (error) {
      await this.undoClaim(commit).catch(() => {
        // The claim then lapses as abandoned (guest.ts); the original failure is what to report.
      });
      if (lostRace(error)) return false;
      throw error;
    }
  }

  private async undoClaim(commit: Commit): Promise<void> {
    const now = this.clock();
    await handleCommand(this.store, streams.guest(commit.name), guestKind, { type: 'release', claimId: commit.claimId, why: 'lostRace', now });
    // The secret was never shown, but a voided credential keeps the streams telling the truth.
    await handleCommand(this.store, streams.credential(commit.credentialHash), credentialKind, { type: 'revoke', why: 'unissued', now });
  }

  /**
   * A claim old enough to be abandoned is released when no spend confirms it; true when the
   * caller should fold again.
   */
  private async releaseIfAbandoned(guest: Folded<GuestState>, now: number): Promise<boolean> {
    if (!claimMayBeAbandoned(guest.state, now)) return false;
    const { claim } = guest.state;
    const source = claim.source;
    const confirmedBy =
      'invitation' in source
        ? (await fold(this.store, streams.invitation(source.invitation), invitationKind)).state
        : 'proof' in source
          ? (await fold(this.store, streams.proof(source.proof), proofKind)).state
          : undefined;
    if (confirmedBy && confirmedBy.kind === 'spent' && confirmedBy.claimId === claim.claimId) return false;
    if ('challenge' in source) {
      const challenge = (await fold(this.store, streams.handleChallenge(source.challenge), handleChallengeKind)).state;
      if (challenge.kind === 'verified' && challenge.claimId === claim.claimId) return false;
    }
    await handleCommand(this.store, streams.guest(claim.name), guestKind, { type: 'release', claimId: claim.claimId, why: 'abandoned', now });
    return true;
  }
}

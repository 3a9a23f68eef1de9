/**
 * Service auth (spec 4.5, 5.6, 7.3): method-bound service JWTs for the town's hosted accounts.
 *
 * `issue` makes one for a guest who shows the town's bearer credential (com.atproto.server.
 * getServiceAuth), for one method (`lxm` is required): for the town's audience only the methods
 * that take a token here (`delegable`), for any audience never an account-managing method
 * (`undelegable`); `iss` the guest's did:web, `aud`, `exp`, `iat`, `lxm`, `jti`, signed by the
 * town's K-256 commit key, which every guest's DID document lists as its `#atproto` key (the
 * town speaks for the accounts it hosts; docs/decisions/service-auth.md).
 *
 * `verify` checks one a caller presents to the town's own service calls with AT Protocol's own
 * verifier (`@atproto/xrpc-server`'s verifyJwt, given a resolver of the town's guests' keys):
 * the audience must be the town, the `lxm` the method called, the issuer a guest of this town.
 * Each `jti` is kept until its token expires, so a token is spent once; the custody is bounded,
 * and when it is full the caller waits for the earliest expiry (RateLimitExceeded, Retry-After).
 */
import type { Keypair } from '@atproto/crypto';
import type { verifyJwt } from '@atproto/xrpc-server';
import { isValidDid, isValidNsid } from '@atproto/syntax';
import { XrpcFailure } from '../contract/xrpc-failure.js';
import { isGuestName, principalOf } from '../contract/names.js';
import { actNsid, getEntryNsid, planNsid, tryNsid } from './lexicons.js';

/**
 * AT Protocol's JWT code, loaded at the first service call: its package brings express and its
 * own lexicons, about a fifth of what the town loads at start (docs/decisions/world-snapshots.md), for a route most towns never serve.
 */
let jwtCode: Promise<typeof import('@atproto/xrpc-server')> | undefined;
const jwt = () => (jwtCode ??= import('@atproto/xrpc-server'));

/** The town's own methods a service token opens (its audience the town): what a guest may delegate here. */
export const delegable = [getEntryNsid, actNsid, tryNsid, planNsid] as const;

/**
 * Methods no token is issued for, whatever its audience: account management, which the reference
 * PDS refuses to delegate (its PROTECTED_METHODS), and the methods it delegates only from a
 * full-access session (its PRIVILEGED_METHODS): a town credential is handed to agents and the
 * services acting for them, as an app password is, so it is no such session.
 */
export const undelegable: ReadonlySet<string> = new Set([
  // protected
  'com.atproto.admin.sendEmail',
  'com.atproto.identity.requestPlcOperationSignature',
  'com.atproto.identity.signPlcOperation',
  'com.atproto.identity.updateHandle',
  'com.atproto.server.activateAccount',
  'com.atproto.server.confirmEmail',
  'com.atproto.server.createAppPassword',
  'com.atproto.server.deactivateAccount',
  'com.atproto.server.getAccountInviteCodes',
  'com.atproto.server.listAppPasswords',
  'com.atproto.server.requestAccountDelete',
  'com.atproto.server.requestEmailConfirmation',
  'com.atproto.server.requestEmailUpdate',
  'com.atproto.server.revokeAppPassword',
  'com.atproto.server.updateEmail',
  // privileged
  'chat.bsky.actor.deleteAccount',
  'chat.bsky.actor.exportAccountData',
  'chat.bsky.convo.deleteMessageForSelf',
  'chat.bsky.convo.getConvo',
  'chat.bsky.convo.getConvoForMembers',
  'chat.bsky.convo.getLog',
  'chat.bsky.convo.getMessages',
  'chat.bsky.convo.leaveConvo',
  'chat.bsky.convo.listConvos',
  'chat.bsky.convo.muteConvo',
  'chat.bsky.convo.sendMessage',
  'chat.bsky.convo.sendMessageBatch',
  'chat.bsky.convo.unmuteConvo',
  'chat.bsky.convo.updateRead',
  'com.atproto.server.createAccount',
  // the service-auth method itself: a token must not mint more tokens
  'com.atproto.server.getServiceAuth',
]);

/** Lifetimes in seconds: a token lives a minute unless asked otherwise, an hour at most. */
export const serviceTokenDefaultSeconds = 60;
export const serviceTokenMaxSeconds = 3600;
/** How many unexpired `jti`s the town keeps at once (a token is a few hundred bytes of state). */
export const jtiCustodyDefault = 100_000;

export interface ServiceAuthDeps {
  /** The town's host (`did:web:<host>:guest:<name>` names its guests). */
  host: string;
  /** The town's did: the only audience its service calls accept. */
  townDid: () => Promise<string>;
  /** The K-256 key that signs (undefined on a box that does not sign: no service auth there). */
  signer: Keypair | undefined;
  /** Whether the named guest exists in this town. */
  guestExists: (name: string) => Promise<boolean>;
  /** Seconds since the epoch, as verifyJwt reads the clock. */
  now?: () => number;
  /** Bound of the `jti` custody. */
  capacity?: number;
}

/** The account a verified token speaks for. */
export interface TokenAccount {
  principal: string;
  name: string;
  did: string;
}

const fail = (error: ConstructorParameters<typeof XrpcFailure>[0], message: string, headers?: Record<string, string>): never => {
  throw new XrpcFailure(error, message, headers);
};

export class ServiceAuth {
  /** jti → expiry (seconds): spent tokens, kept until they could no longer be used anyway. */
  private readonly spent = new Map<string, number>();
  private readonly capacity: number;
  private readonly now: () => number;
  private readonly guestPrefix: string;

  constructor(private readonly deps: ServiceAuthDeps) {
    this.capacity = deps.capacity ?? jtiCustodyDefault;
    this.now = deps.now ?? (() => Math.floor(Date.now() / 1000));
    this.guestPrefix = `did:web:${deps.host.replaceAll(':', '%3A')}:guest:`;
  }

  /** A service JWT for the account `did` (getServiceAuth's params already read as text). */
  async issue(did: string, q: { aud?: string; exp?: string; lxm?: string }): Promise<{ token: string }> {
    const signer = this.deps.signer;
    if (!signer) return fail('RepoNotServed', 'this box has no signing key: it cannot issue service tokens');
    const aud = q.aud;
    if (!aud || !isValidDid(aud.split('#')[0]!)) return fail('InvalidRequest', 'aud is the did of the service the token is for');
    const lxm = q.lxm;
    if (lxm === undefined || lxm === '') {
      return fail('InvalidRequest', `lxm is required: a token opens one method (${delegable.join(', ')} here, or another service's)`);
    }
    if (!isValidNsid(lxm)) return fail('InvalidRequest', 'lxm is the NSID of the method the token is for');
    if (undelegable.has(lxm)) {
      return fail(
        'InvalidRequest',
        `${lxm} is never delegated: account management and private messages are called with the account's own session, not a service token`,
      );
    }
    if (aud.split('#')[0] === (await this.deps.townDid()) && !(delegable as readonly string[]).includes(lxm)) {
      return fail('InvalidRequest', `the town takes service tokens for ${delegable.join(', ')} only, not ${lxm}`);
    }
    const iat = this.now();
    let exp = iat + serviceTokenDefaultSeconds;
    if (q.exp !== undefined) {
      exp = /^\d{1,12}$/.test(q.exp) ? Number(q.exp) : Number.NaN;
      if (!(exp > iat)) return fail('InvalidRequest', 'exp is a time in seconds since the epoch, after now');
      if (exp - iat > serviceTokenMaxSeconds) return fail('InvalidRequest', `exp is at most ${serviceTokenMaxSeconds} seconds from now`);
    }
    return { token: await (await jwt()).createServiceJwt({ iss: did, aud, iat, exp, lxm, keypair: signer }) };
  }

  /** The account a bearer token speaks for on method `lxm`, spending its `jti`. */
  async verify(token: string | undefined, lxm: string): Promise<TokenAccount> {
    if (token === undefined) return fail('AuthRequired', `${lxm} needs a service JWT: Authorization: Bearer <token from com.atproto.server.getServiceAuth>`);
    const signer = this.deps.signer;
    if (!signer) return fail('InvalidToken', 'this box has no signing key: it verifies no service tokens');
    const aud = await this.deps.townDid();
    let payload: Awaited<ReturnType<typeof verifyJwt>>;
    try {
      const { verifyJwt } = await jwt();
      payload = await verifyJwt(token, aud, lxm, async (iss) => this.keyOf(iss, signer));
    } catch (error) {
      if (error instanceof XrpcFailure) throw error;
      return fail('InvalidToken', `service JWT refused: ${(error as Error).message}`);
    }
    const { jti, exp } = payload;
    if (typeof jti !== 'string' || jti === '') return fail('InvalidToken', 'service JWT refused: it has no jti, so it could be replayed');
    this.spend(jti, exp);
    const did = payload.iss.split('#')[0]!;
    const name = did.slice(this.guestPrefix.length);
    return { principal: principalOf(this.deps.host, name), name, did };
  }

  /** The signing key of an issuer: the town's key, for a guest of this town only. */
  private async keyOf(iss: string, signer: Keypair): Promise<string> {
    const did = iss.split('#')[0]!;
    const name = did.startsWith(this.guestPrefix) ? did.slice(this.guestPrefix.length) : '';
    if (!isGuestName(name) || !(await this.deps.guestExists(name))) {
      return fail('InvalidToken', `service JWT refused: its issuer is not an account of this town: ${did.slice(0, 120)}`);
    }
    return signer.did();
  }

  /** Keeps `jti` until `exp`; a second use is a replay; a full custody waits for an expiry. */
  private spend(jti: string, exp: number): void {
    const now = this.now();
    const seen = this.spent.get(jti);
    if (seen !== undefined && seen >= now) fail('InvalidToken', 'service JWT refused: its jti was used already (a token is spent once)');
    if (this.spent.size >= this.capacity) this.sweep(now);
    if (this.spent.size >= this.capacity) {
      let first = Number.POSITIVE_INFINITY;
      for (const e of this.spent.values()) if (e < first) first = e;
      const wait = Math.max(1, first - now + 1);
      fail('RateLimitExceeded', `the town holds ${this.capacity} unexpired service tokens; try again in ${wait} s`, { 'Retry-After': String(wait) });
    }
    this.spent.set(jti, exp);
  }

  private sweep(now: number): void {
    for (const [jti, exp] of this.spent) if (exp < now) this.spent.delete(jti);
  }
}

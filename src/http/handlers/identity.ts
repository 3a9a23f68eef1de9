/**
 * Handlers of the identity routes: accept, arriveChallenge, arrive, me, revoke, and the guest
 * door for browsers (enterPage, enter, leavePage, leave). The work is done by the identity
 * service (src/identity/service.ts); here are the HTTP shapes of spec 2.2, 2.3, 2.7 and 4.6.
 */
import type { GuestIdentity } from '../../contract/names.js';
import { errorClassOf } from '../../contract/errors.js';
import { arrivalLimits } from '../../identity/arrival-limits.js';
import { clearSessionCookie, sessionCookieOf, setSessionCookie } from '../cookies.js';
import { enterPage, keyPage, leavePage, localPath } from '../../pages/door-page.js';
import { checkSameOrigin } from '../same-origin.js';
import { IdentityService, sessionLifetimeMs, type Admission } from '../../identity/service.js';
import { readTownOpen } from '../../identity/town.js';
import type { ScratchSummary } from '../../commands/scratch-service.js';
import { type FeedLeft, readMe, type TurnsLeft } from '../../queries/me.js';
import type { EventStore } from '../../stores/event-store.js';
import type { TownContext } from '../handler.js';
import type { RoomHandlers, RouteContext } from '../route-types.js';
import { TownError } from '../../contract/town-error.js';
import type { Clock } from '../../contract/clock.js';
import type { TownConfig } from '../../contract/town-config.js';
import { links } from '../../contract/links.js';
import type { Limiters } from '../../contract/rate-limit.js';
import { hrefOf } from '../routes.js';

export interface IdentityDeps {
  store: EventStore;
  config: TownConfig;
  clock: Clock;
  /**
   * The front's limiters. `me` reports the budget the front counted for this very call
   * (ctx.state.rateLimit); these are read only when a call reaches `me` without that.
   */
  limiters?: Pick<Limiters, 'credential'>;
  /** Difficulty of issued challenges; the spec's 18 unless a test needs many proofs fast. */
  arrivalBits?: number;
  /** The service to use (one is made from store, config and clock when absent). */
  service?: IdentityService;
  /** The caller's open scratch worlds (the scratch room); none without it. */
  scratches?(principal: string): Promise<ScratchSummary[]>;
  /** Turns left this hour on an open town (the world room); `me` omits `turns` without it. */
  turns?(principal: string): Promise<TurnsLeft>;
  /** Posts left this hour (the feed room); `me` omits `feed` without it. */
  feed?(principal: string): Promise<FeedLeft>;
  /**
   * Makes the admitted guest's avatar before the admission is answered, so the guest's own reads
   * (its avatar, /play/) see it at once (read-your-writes, as after a turn). Without it the
   * arrivals reactor makes the avatar shortly after.
   */
  arrived?(guest: GuestIdentity): Promise<void>;
}

/** The credential reply of spec 2.2. */
function credentialReply(admission: Admission) {
  const { credential, principal, did, handle } = admission;
  return { credential, principal, did, handle, _links: links({ me: hrefOf('me'), revoke: hrefOf('revoke') }) };
}

/** A form post from a page wants a page back; an API client asking for JSON gets JSON. */
function wantsJson(ctx: TownContext): boolean {
  const preferred = ctx.accepts('html', 'json');
  if (preferred === 'json') return true;
  if (preferred === 'html' && /text\/html/i.test(ctx.get('Accept'))) return false;
  return Boolean(ctx.is('json'));
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** The identity routes of spec 4.1, 4.4 and the guest door of 4.6. */
export type IdentityRoute = 'accept' | 'arriveChallenge' | 'arrive' | 'me' | 'revoke' | 'enterPage' | 'enter' | 'leavePage' | 'leave';

export function identityHandlers(deps: IdentityDeps): RoomHandlers<IdentityRoute> {
  const { store, config, clock } = deps;
  const service = deps.service ?? new IdentityService({ store, config, clock, arrivalBits: deps.arrivalBits });
  const arrivals = arrivalLimits(clock);

  /** The open-only routes vanish from a town the operator has since closed. */
  async function requireOpen(ctx: TownContext): Promise<void> {
    if (!(await readTownOpen(store))) throw new TownError('unknownRoute', `no route ${ctx.method} ${ctx.path} on an invited town`);
  }

  async function signBrowserIn(ctx: TownContext, credentialHash: string): Promise<void> {
    setSessionCookie(ctx, config, await service.startSession(credentialHash), sessionLifetimeMs);
  }

  async function arrive(ctx: TownContext, name: unknown, proof: unknown): Promise<Admission> {
    const admission = await service.arrive(name, proof, () => arrivals.admit(ctx.state.address));
    await signBrowserIn(ctx, admission.credentialHash);
    await standIn(admission);
    return admission;
  }

  /** The admitted guest's avatar, made (once) before the answer; a failure leaves it to the reactor. */
  async function standIn(admission: Admission): Promise<void> {
    await deps.arrived?.(admission).catch(() => {});
  }

  /** A town serving the earlier catalogue shape (spec 9). */
  const earlier = config.catalogue === 'earlier';

  /** POST /enter: an invitation, a key, or (open town) a solved challenge. */
  async function enter(ctx: RouteContext<'enter'>): Promise<object | undefined> {
    checkSameOrigin(ctx, config);
    const body = ctx.state.body;
    const json = wantsJson(ctx);
    const code = field(body, 'code');
    const credential = field(body, 'credential');
    const name = field(body, 'name');
    try {
      // The earlier shape has no accept and no arrive (spec 9): the door only signs a key in.
      if (earlier && credential === undefined) {
        throw new TownError(
          'identity',
          'this town takes no invitations and no arrivals at its door: claim a handle with POST /AGENTS.md/challenge, post the text, then POST /AGENTS.md/verify',
          {
            hint: 'sign in here with the key the challenge gave you once it is verified',
          },
        );
      }
      if (code !== undefined) {
        const admission = await service.accept(code, name);
        await signBrowserIn(ctx, admission.credentialHash);
        await standIn(admission);
        return admitted(ctx, admission, json);
      }
      if (credential !== undefined) {
        const signedIn = await service.signIn(credential);
        if (!signedIn) throw new TownError('unauthenticated', 'that key is unknown or revoked', { hint: 'check the key, or enter with an invitation' });
        setSessionCookie(ctx, config, signedIn.sessionId, sessionLifetimeMs);
        if (json) return { status: 'signedIn', handle: signedIn.identity.handle, _links: links({ play: '/play/' }) };
        ctx.redirect(localPath(field(body, 'next')) ?? '/play/');
        ctx.status = 303;
        return undefined;
      }
      await requireOpen(ctx);
      const admission = await arrive(ctx, name, { challenge: field(body, 'challenge'), nonce: field(body, 'nonce') });
      return admitted(ctx, admission, json);
    } catch (error) {
      if (json || !(error instanceof TownError) || error.cls === 'rateLimited' || error.cls === 'unknownRoute') throw error;
      // A person at the door sees the door again, with what went wrong and what they typed.
      const open = await readTownOpen(store);
      ctx.status = errorClassOf(error.cls).http;
      ctx.type = 'html';
      ctx.body = enterPage({
        challenge: open && !earlier ? service.issueChallenge() : undefined,
        earlier,
        error: { message: error.message, hint: error.extra.hint },
        values: { code: typeof code === 'string' ? code : undefined, name: typeof name === 'string' ? name : undefined },
        next: field(body, 'next'),
      });
      return undefined;
    }
  }

  /** The new key, shown once: as the credential reply, or as a page. */
  function admitted(ctx: TownContext, admission: Admission, json: boolean): object | undefined {
    ctx.set('Cache-Control', 'no-store');
    if (json) return credentialReply(admission);
    ctx.type = 'html';
    ctx.body = keyPage(admission, admission.credential);
    return undefined;
  }

  return {
    async accept(ctx) {
      const admission = await service.accept(ctx.state.body.code, ctx.state.body.name);
      if (admission.named) await signBrowserIn(ctx, admission.credentialHash);
      await standIn(admission);
      ctx.set('Cache-Control', 'no-store');
      return credentialReply(admission);
    },

    async arriveChallenge(ctx) {
      await requireOpen(ctx);
      const { challenge, bits, expires } = service.issueChallenge();
      return { challenge, bits, expires: new Date(expires).toISOString(), _links: links({ arrive: hrefOf('arrive') }) };
    },

    async arrive(ctx) {
      await requireOpen(ctx);
      const admission = await arrive(ctx, ctx.state.body.name, ctx.state.body.proof);
      ctx.set('Cache-Control', 'no-store');
      return credentialReply(admission);
    },

    async me(ctx) {
      const caller = ctx.state.caller;
      const rateLimit = ctx.state.rateLimit ?? deps.limiters?.credential.peek(caller.credentialHash);
      if (!rateLimit) throw new Error("me needs the front's credential rate limit: ctx.state.rateLimit or deps.limiters");
      const reply = await readMe(caller, {
        store,
        rateLimit: { limit: rateLimit.limit, windowSeconds: rateLimit.windowSeconds, remaining: rateLimit.remaining },
        townOpen: await readTownOpen(store),
        scratches: deps.scratches,
        turns: deps.turns,
        feed: deps.feed,
      });
      return { ...reply, _links: links({ revoke: hrefOf('revoke') }) };
    },

    async revoke(ctx) {
      const caller = ctx.state.caller;
      await service.revoke(caller.credentialHash);
      return { status: 'revoked', principal: caller.principal };
    },

    async enterPage(ctx) {
      const open = await readTownOpen(store);
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = enterPage({
        challenge: open && !earlier ? service.issueChallenge() : undefined,
        earlier,
        next: ctx.state.query.next,
        caller: ctx.state.caller,
      });
      return undefined;
    },

    enter,

    async leavePage(ctx) {
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = leavePage(ctx.state.caller);
      return undefined;
    },

    async leave(ctx) {
      checkSameOrigin(ctx, config);
      await service.endSession(sessionCookieOf(ctx));
      clearSessionCookie(ctx, config);
      ctx.redirect('/leave');
      ctx.status = 303;
      return undefined;
    },
  };
}

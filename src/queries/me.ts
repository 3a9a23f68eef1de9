/**
 * The me reply (spec 2.7): who the caller is, since when, its scratch worlds, its rate budget
 * and, on an open town, the turns it may still start this hour.
 */
import { streams } from '../events/identity.js';
import { TownError } from '../contract/town-error.js';
import type { Caller } from '../contract/caller.js';
import { credentialKind } from '../identity/kinds.js';
import { fold } from '../commands/streams.js';
import type { EventStore } from '../stores/event-store.js';
import type { ScratchSummary } from '../commands/scratch-service.js';

export interface TurnsLeft {
  remaining: number;
  next: string;
}

export interface MeReply {
  principal: string;
  handle: string;
  did: string;
  /** ISO time the guest's claim was made (its credential was issued with it). */
  verified: string;
  scratches: ScratchSummary[];
  rateLimit: { limit: number; windowSeconds: number; remaining: number };
  turns?: TurnsLeft;
  /** Posts the caller may still make to the feed this clock hour (feed_quota: our value, 20). */
  feed?: FeedLeft;
}

export interface FeedLeft {
  limit: number;
  remaining: number;
  next: string;
}

export interface MeSources {
  store: EventStore;
  /** The caller's budget as the front counted this very call. */
  rateLimit: MeReply['rateLimit'];
  townOpen: boolean;
  /** The scratch room's answer; without it the caller has none open. */
  scratches?(principal: string): Promise<ScratchSummary[]>;
  /** The world room's turn quota; only an open town counts turns. */
  turns?(principal: string): Promise<TurnsLeft>;
  /** The feed's quota; without it `me` has no `feed`. */
  feed?(principal: string): Promise<FeedLeft>;
}

export async function readMe(caller: Caller, sources: MeSources): Promise<MeReply> {
  const { state } = await fold(sources.store, streams.credential(caller.credentialHash), credentialKind);
  // The front authenticated this credential a moment ago; if a revoke won the race since, the
  // caller is no one, as the next call would find.
  if (state.kind !== 'active') throw new TownError('unauthenticated', 'credential revoked');
  const reply: MeReply = {
    principal: caller.principal,
    handle: caller.handle,
    did: caller.did,
    verified: new Date(state.issuedAt).toISOString(),
    scratches: sources.scratches ? await sources.scratches(caller.principal) : [],
    rateLimit: sources.rateLimit,
  };
  if (sources.townOpen && sources.turns) reply.turns = await sources.turns(caller.principal);
  if (sources.feed) reply.feed = await sources.feed(caller.principal);
  return reply;
}

/**
 * The Authenticator the HTTP machinery calls (src/http/handler.ts). Every call checks the
 * credential and session streams' current revisions in the store (fold-cache.ts), so a revoke
 * made through any front is seen by every front at once: nothing is trusted that the store has
 * moved past.
 */
import { activeCredential } from '../commands/credential.js';
import { sessionCredential } from '../commands/session.js';
import { streams } from '../events/identity.js';
import type { Authenticator, Caller } from '../contract/caller.js';
import type { Clock } from '../contract/clock.js';
import type { TownConfig } from '../contract/town-config.js';
import type { EventStore } from '../stores/event-store.js';
import { credentialKind, sessionKind } from './kinds.js';
import { identityOf } from '../contract/names.js';
import { credentialPrefix, secretHash } from './secrets.js';
import { FoldCache } from './fold-cache.js';

export class StoreAuthenticator implements Authenticator {
  private readonly folded: FoldCache;
  private readonly callers = new WeakMap<object, Partial<Record<Caller['via'], Caller>>>();

  constructor(
    store: EventStore,
    private readonly config: Pick<TownConfig, 'host'>,
    private readonly clock: Clock,
  ) {
    this.folded = new FoldCache(store);
  }

  async bearer(credential: string): Promise<Caller | undefined> {
    const hash = secretHash(credential, credentialPrefix);
    return hash === undefined ? undefined : this.caller(hash, 'bearer');
  }

  async session(sessionId: string): Promise<Caller | undefined> {
    const hash = secretHash(sessionId);
    if (hash === undefined) return undefined;
    const state = await this.folded.state(streams.session(hash), sessionKind);
    const credentialHash = sessionCredential(state, this.clock());
    return credentialHash === undefined ? undefined : this.caller(credentialHash, 'cookie');
  }

  private async caller(credentialHash: string, via: Caller['via']): Promise<Caller | undefined> {
    const state = await this.folded.state(streams.credential(credentialHash), credentialKind);
    const active = activeCredential(state);
    if (active === undefined) return undefined;
    // The caller follows from the folded state: made once per state, not per request.
    let callers = this.callers.get(state);
    if (callers === undefined) this.callers.set(state, (callers = {}));
    return (callers[via] ??= Object.freeze({ ...identityOf(this.config.host, active.name), credentialHash, via }));
  }
}

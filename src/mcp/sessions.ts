/**
 * The MCP sessions of this front, each owned by the credential that opened it. A request naming
 * a session reaches it only with that same credential (any other is told the session is not
 * found). Sessions end when their client ends them (DELETE), when they have been idle, when the
 * town closes, and when their credential is revoked: the journal's `CredentialRevoked` events
 * (through any front) end them once the requests they are answering are answered.
 */
import type { Caller } from '../contract/caller.js';
import { TownError } from '../contract/town-error.js';
import { CredentialRevoked, streams } from '../events/identity.js';
import type { Logger } from '../operations/log.js';
import type { EventStore, Subscription } from '../stores/event-store.js';
import type { TownMcp } from './server.js';
import type { McpSession } from './session.js';

export interface McpLimits {
  /** Sessions one credential holds at once; opening another ends its least recently used. */
  sessionsPerCredential: number;
  /** Sessions this front holds at once; beyond, opening one is `busy`. */
  sessions: number;
  /** A session without a request or an open stream this long is ended. */
  idleMs: number;
  /** How long a GET stream is held before it is ended (the client reconnects). */
  holdMs: number;
  /** Messages of a GET stream kept for a client that reconnects. */
  replay: number;
  /** Bytes that may wait unsent on a GET stream before its reader is dropped. */
  slowBytes: number;
}

const credentialStreams = streams.credential('');
const revokedType = CredentialRevoked.props.type.value;

export class McpSessions {
  private readonly byId = new Map<string, McpSession>();
  private watching: Promise<Subscription> | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      events: EventStore;
      town: TownMcp;
      origin: string;
      limits: McpLimits;
      logger: Logger;
      onSlowDrop?: () => void;
      sessionPrefix?: string;
    },
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** The sessions held now. */
  list(): McpSession[] {
    return [...this.byId.values()];
  }

  /** The session `id` if `caller`'s credential owns it. */
  find(id: string, caller: Caller): McpSession | undefined {
    const s = this.byId.get(id);
    return s !== undefined && s.credentialHash === caller.credentialHash ? s : undefined;
  }

  /** A new session for `caller`, to be initialised by the request in hand. */
  async open(caller: Caller): Promise<McpSession> {
    const { limits } = this.deps;
    if (this.byId.size >= limits.sessions) {
      throw new TownError('busy', `${limits.sessions} MCP sessions are open, the most this front holds; end one (DELETE /mcp) or try again shortly`, {
        headers: { 'Retry-After': '5' },
      });
    }
    await this.watchRevocations();
    // The session's module loads the SDK: on the first session, not at start (room.ts).
    const { McpSession } = await import('./session.js');
    return McpSession.open(caller, this.deps.town, {
      origin: this.deps.origin,
      holdMs: limits.holdMs,
      replay: limits.replay,
      slowBytes: limits.slowBytes,
      ...(this.deps.onSlowDrop ? { onSlowDrop: this.deps.onSlowDrop } : {}),
      ...(this.deps.sessionPrefix ? { idPrefix: this.deps.sessionPrefix } : {}),
      initialized: (s) => this.register(s),
      closed: (s) => this.forget(s),
    });
  }

  private register(s: McpSession): void {
    this.byId.set(s.id as string, s);
    const mine = [...this.byId.values()].filter((o) => o.credentialHash === s.credentialHash);
    if (mine.length > this.deps.limits.sessionsPerCredential) {
      const oldest = mine.reduce((a, b) => (b.lastUsed < a.lastUsed ? b : a));
      void oldest.close();
    }
    if (this.sweeper === undefined) {
      this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, this.deps.limits.idleMs));
      this.sweeper.unref();
    }
  }

  private forget(s: McpSession): void {
    if (s.id !== undefined && this.byId.get(s.id) === s) this.byId.delete(s.id);
    this.deps.town.watch.drop(s);
  }

  private sweep(): void {
    const now = Date.now();
    for (const s of this.byId.values()) if (!s.streaming && now - s.lastUsed > this.deps.limits.idleMs) void s.close();
  }

  /** Revocations as the journal has them, from now on (begun with the first session). */
  private watchRevocations(): Promise<Subscription> {
    this.watching ??= (async () => {
      const { events, logger } = this.deps;
      const head = await events.headPosition();
      return events.subscribeToAll(
        head,
        {
          onEvent: (e) => {
            if (e.type === revokedType) this.revoked(e.stream.slice(credentialStreams.length));
          },
          onError: (error) => {
            logger.error('the MCP sessions lost the journal; revocations are seen again from the next session', { error: error.message });
            this.watching = undefined;
          },
        },
        { streamPrefixes: [credentialStreams] },
      );
    })();
    return this.watching;
  }

  /** A credential was revoked: its sessions end once what they are answering is answered. */
  revoked(credentialHash: string): void {
    for (const s of this.byId.values()) if (s.credentialHash === credentialHash) s.endWhenAnswered();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const watching = this.watching;
    this.watching = undefined;
    await (await watching?.catch(() => undefined))?.close();
    await Promise.all([...this.byId.values()].map((s) => s.close()));
  }
}

/**
 * The cards MCP sessions subscribed to (resources/subscribe), and `notifications/resources/updated`
 * when one moves. Driven by the world service's commits, as /live is (src/pages/live.ts): after a
 * commit, each subscribed card is looked up in the committed world as its subscriber sees it; a
 * card whose version changed, or that came into or went out of the subscriber's sight, is
 * announced once the cards read model has folded that commit (bounded), so that reading the
 * resource on the announcement shows the move. A card the subscriber cannot see moving is never
 * announced: what they hear is what they could have read.
 *
 * The watch listens to commits only while some session has a subscription: a town nobody
 * subscribes in pays nothing per turn.
 */
import { visibleCard, type World } from '../cards/kernel/world.js';
import type { CheckpointWaits } from '../queries/fresh.js';

/** What the watch needs of the world service (src/commands/world-service.ts). */
export interface WatchedWorld {
  readonly committed: World;
  onCommit(listener: (entries: readonly unknown[], position: bigint) => void): () => void;
}

/** One subscriber: an MCP session, reading as its principal. */
export interface Subscriber {
  readonly principal: string;
  /** The card `object` moved as this subscriber sees it. */
  moved(object: string): void;
}

/** How long an announcement waits for the cards read model to fold the move. */
const foldedWithinMs = 1000;

/** A subscriber's cards → the version they last saw (-1: not in their sight). */
type Seen = Map<string, number>;

export class CardWatch {
  private readonly subs = new Map<Subscriber, Seen>();
  private off: (() => void) | undefined;
  private scheduled = false;
  private position: bigint | undefined;

  constructor(
    private readonly world: WatchedWorld,
    private readonly waits: CheckpointWaits,
  ) {}

  /** Watch `object` for `s` from its version now (as `s` sees it). */
  subscribe(s: Subscriber, object: string): void {
    let seen = this.subs.get(s);
    if (seen === undefined) this.subs.set(s, (seen = new Map()));
    seen.set(object, this.versionFor(this.world.committed, object, s.principal));
    this.off ??= this.world.onCommit((_entries, position) => this.committed(position));
  }

  unsubscribe(s: Subscriber, object: string): void {
    const seen = this.subs.get(s);
    seen?.delete(object);
    if (seen?.size === 0) this.drop(s);
  }

  /** Forget every subscription of `s` (its session ended). */
  drop(s: Subscriber): void {
    this.subs.delete(s);
    if (this.subs.size === 0 && this.off) {
      this.off();
      this.off = undefined;
    }
  }

  /** Subscriptions held now, across sessions. */
  get size(): number {
    let n = 0;
    for (const seen of this.subs.values()) n += seen.size;
    return n;
  }

  private versionFor(world: World, object: string, principal: string): number {
    return visibleCard(world, object, principal)?.version ?? -1;
  }

  /** Commits come in bursts: one sweep after the burst, at the latest position. */
  private committed(position: bigint): void {
    this.position = position;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.sweep());
  }

  private async sweep(): Promise<void> {
    this.scheduled = false;
    const position = this.position;
    const world = this.world.committed;
    const moved: [Subscriber, string][] = [];
    for (const [s, seen] of this.subs) {
      for (const [object, was] of seen) {
        const now = this.versionFor(world, object, s.principal);
        if (now === was) continue;
        seen.set(object, now);
        moved.push([s, object]);
      }
    }
    if (!moved.length) return;
    if (position !== undefined) await this.waits.wait('cards', position, foldedWithinMs).catch(() => false);
    for (const [s, object] of moved) if (this.subs.get(s)?.has(object)) s.moved(object);
  }
}

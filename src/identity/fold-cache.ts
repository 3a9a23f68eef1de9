/**
 * Folded identity streams, kept between requests. Every use asks the store for the stream's
 * current revision and folds again when it moved, so a revoke appended through any front is seen
 * by the next request on every front, as without the cache; what it saves is reading and
 * decoding the same few events on every request. On the embedded store the revision is a map
 * lookup; on EventStoreDB it is one read of the last event.
 */
import type { EventStore } from '../stores/event-store.js';
import { fold, type Foldable } from '../commands/streams.js';

/** Enough for every active guest of a busy town; past it the cache starts over (costs folds only). */
const defaultSize = 50_000;

export class FoldCache {
  private readonly folded = new Map<string, { revision: bigint; state: unknown }>();

  constructor(
    private readonly store: EventStore,
    private readonly size = defaultSize,
  ) {}

  /** The stream's state as of its current revision. States are never mutated (evolve makes new ones). */
  async state<S, E>(stream: string, kind: Foldable<S, E>): Promise<S> {
    const revision = await this.store.streamRevision(stream);
    if (revision === undefined) return kind.decider.initialState();
    const kept = this.folded.get(stream);
    if (kept !== undefined && kept.revision === revision) return kept.state as S;
    const { state, expected } = await fold(this.store, stream, kind);
    if (typeof expected === 'bigint') {
      if (this.folded.size >= this.size) this.folded.clear();
      this.folded.set(stream, { revision: expected, state });
    }
    return state;
  }
}

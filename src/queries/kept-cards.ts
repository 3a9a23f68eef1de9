/**
 * The town's card documents kept between reads: a read of a card the cards projection
 * has not changed since the last read is answered from the document read then, instead of being
 * read from the store and decoded again (and the replies made of it are kept with it: card.ts).
 *
 * A kept document is good while the projector that folds `cards` in this process reports the
 * checkpoint it reported when the document was read, and the read store is at the same
 * generation: every unit that projector commits moves its checkpoint, and a live rebuild's switch
 * moves the generation. The checkpoint is taken before the read, so a kept document is never
 * older than the checkpoint it is kept under. Read-your-writes holds: a caller's read first waits
 * until that checkpoint has passed the caller's own turn (fresh.ts), which is a later checkpoint
 * than any document kept from before. A read between a unit's commit and this thread hearing of
 * it gets the document as it stood a moment before, as a read started a moment earlier would.
 * Where the checkpoint is not known here (projectors running as workers, another front), nothing
 * is kept.
 *
 * Kept documents are shared by every reader of the town: nothing that reads them changes them
 * (they are frozen at the top; their state is read by views, which never write to it).
 */
import type { CardDoc } from '../projections/cards.js';
import type { ReadStore } from '../stores/read-store.js';

interface Kept {
  at: bigint;
  generation: number;
  doc: CardDoc;
}

export class KeptCards {
  private readonly kept = new Map<string, Kept>();

  /**
   * `world`: the world whose documents are kept (the town's; another world's reads pass by);
   * `folded()`: the checkpoint of the projector that folds `cards`, undefined when unknown.
   */
  constructor(
    readonly world: string,
    readonly folded: () => bigint | undefined,
    private readonly size = 4096,
  ) {}

  /** The document kept for card `id`, if it is still good. */
  get(reads: ReadStore, id: string): CardDoc | undefined {
    const kept = this.kept.get(id);
    if (kept === undefined || kept.at !== this.folded() || kept.generation !== reads.generation) return undefined;
    return kept.doc;
  }

  /** Keeps `doc`, read at checkpoint `at` (taken before the read) and `generation`. */
  keep(id: string, at: bigint, generation: number, doc: CardDoc | null): CardDoc | null {
    if (doc === null) {
      this.kept.delete(id);
      return doc;
    }
    if (this.kept.size >= this.size && !this.kept.has(id)) this.kept.clear();
    this.kept.set(id, { at, generation, doc: Object.freeze(doc) });
    return doc;
  }
}

/**
 * What the world's projections share: decoding journal entries (once per stored event, however
 * many projections fold it), and a batch of documents read once and written once per unit.
 */
import type { RecordedEvent } from '../stores/event-store.js';
import type { Doc, IndexSpec, Unit } from '../stores/read-store.js';
import { storedEntryOf, worldEntryType, type StoredEntry } from '../events/world.js';
import { scratchEndTypes } from '../events/scratch.js';
import type { Projection } from './projection.js';
import type { Docs } from './read-model.js';

const decoded = new WeakMap<RecordedEvent, StoredEntry | null>();

/**
 * The entry a stored event holds, checked once per event object however many projections fold
 * it: through the entry codec compiled to JavaScript (storedEntryOf, src/contract/fast-guard.ts),
 * as the world's own replay checks it; an event that does not fit throws the codec's explanation.
 */
export function entryOf(event: RecordedEvent): StoredEntry | undefined {
  let e = decoded.get(event);
  if (e === undefined) {
    e = storedEntryOf(event) ?? null;
    decoded.set(event, e);
  }
  return e ?? undefined;
}

export interface WorldProjectionSpec {
  name: string;
  collections: string[];
  indexes?: { collection: string; spec: IndexSpec }[];
  /** The version of `fold` (Projection.version): bump it when the fold changes. */
  version: number;
  /** Folds entries (in journal order) into the unit; must be idempotent. */
  fold(entries: StoredEntry[], unit: Unit): Promise<void>;
  /**
   * Collections whose documents carry their `world`: when a scratch world ends (ScratchExpired or
   * ScratchClosed, on its guest's registry stream) its documents there are deleted, so an expired world's read
   * models are reclaimed by the journal itself and a rebuild agrees.
   */
  perWorld?: string[];
  /** Projection.reset: forgets what `fold` remembers of the store between units. */
  reset?(): void;
  /**
   * The read-model rule of a carry entry (kind `carry`, the first of an epoch), run before the
   * entry itself is folded: it makes the world's documents what the carried present gives,
   * whatever the old epoch left, so the live read models (which folded the old epoch) and a
   * rebuild from the new epoch alone (which never saw it) agree.
   */
  carry?(carried: StoredEntry, unit: Unit): Promise<void>;
}

const isCarry = (event: RecordedEvent) => event.type === worldEntryType && (event.data as { kind?: unknown } | null)?.kind === 'carry';

/** A scratch world ended (expired, or closed by its guest): its documents go. */
const isEnd = (type: string) => scratchEndTypes.has(type);

/** A projection of journal entries (events of type WorldEntry on `world-*` streams). */
export function worldProjection(spec: WorldProjectionSpec): Projection {
  const entries = (events: RecordedEvent[]) => events.map(entryOf).filter((e): e is StoredEntry => e !== undefined);
  const perWorld = spec.perWorld ?? [];
  const forget = async (event: RecordedEvent, unit: Unit) => {
    const world = (event.data as { world?: unknown } | null)?.world;
    if (typeof world !== 'string' || !world.startsWith('scratch.')) return;
    for (const c of perWorld) await unit.collection(c).deleteMany({ world });
  };
  // Entries folded in runs between expiries and carries, in journal order: an expiry never meets
  // entries of its world that come after it in the batch, and a carry's rule runs on what came before.
  const breaks = (e: RecordedEvent) => (perWorld.length > 0 && isEnd(e.type)) || (spec.carry !== undefined && isCarry(e));
  const foldAll = async (events: RecordedEvent[], unit: Unit) => {
    // Almost every batch holds no expiry or carry: fold it whole, with no copy of it.
    if (!events.some(breaks)) return spec.fold(entries(events), unit);
    let run: RecordedEvent[] = [];
    for (const event of events) {
      if (!breaks(event)) {
        run.push(event);
        continue;
      }
      if (run.length) await spec.fold(entries(run), unit);
      run = [];
      if (isEnd(event.type)) await forget(event, unit);
      else {
        const carried = entryOf(event);
        if (carried) await spec.carry!(carried, unit);
        run.push(event);
      }
    }
    if (run.length) await spec.fold(entries(run), unit);
  };
  return {
    name: spec.name,
    version: spec.version,
    collections: spec.collections,
    indexes: spec.indexes,
    handles: (type) => type === worldEntryType || (perWorld.length > 0 && isEnd(type)),
    apply: (event, unit) => foldAll([event], unit),
    applyBatch: foldAll,
    ...(spec.reset ? { reset: spec.reset } : {}),
  };
}

/**
 * Documents of one collection for one unit: loaded with one query, changed in memory, written
 * once each at `flush`. Reads inside a unit see the unit's own writes, so the batch is the only
 * copy that matters until it is flushed.
 */
export class DocBatch<D extends Doc = Doc> {
  private readonly docs = new Map<string, D | null>();
  private readonly dirty = new Set<string>();
  /** Ids absent when loaded: deleting one the batch made and unmade needs no store call. */
  private readonly absent = new Set<string>();

  constructor(private readonly collection: Docs<D>) {}

  async load(ids: Iterable<string>): Promise<void> {
    // One pass: an id not seen yet counts as absent until a find says otherwise (which also
    // skips its repeats), and is asked for in chunks of 500.
    const missing: string[] = [];
    for (const id of ids) {
      if (this.docs.has(id)) continue;
      this.docs.set(id, null);
      this.absent.add(id);
      missing.push(id);
    }
    for (let i = 0; i < missing.length; i += 500) {
      const found = await this.collection.find({ _id: { $in: missing.slice(i, i + 500) } });
      for (const doc of found) {
        this.docs.set(doc._id, doc);
        this.absent.delete(doc._id);
      }
    }
  }

  /** A loaded document (undefined when absent; load first). */
  get(id: string): D | undefined {
    return this.docs.get(id) ?? undefined;
  }

  set(doc: D): void {
    this.docs.set(doc._id, doc);
    this.dirty.add(doc._id);
  }

  delete(id: string): void {
    this.docs.set(id, null);
    this.dirty.add(id);
  }

  /** Whether the document exists (as loaded, or as this batch has set it). */
  has(id: string): boolean {
    return Boolean(this.docs.get(id));
  }

  async flush(): Promise<void> {
    const gone: string[] = [];
    const put: D[] = [];
    for (const id of this.dirty) {
      const doc = this.docs.get(id);
      if (doc) put.push(doc);
      else if (!this.absent.has(id)) gone.push(id);
    }
    // One bulk write: the store neither reads a document back nor compares it, nor copies it:
    // the batch made these documents for this write (or read them fresh) and changes none of
    // them after it (a later change makes a new document: cards.ts's written).
    if (put.length) await this.collection.putMany(put, { handOver: true });
    if (gone.length) await this.collection.deleteMany({ _id: { $in: gone } });
    this.dirty.clear();
    this.absent.clear();
  }
}

/** The `_id` of a thing of a world: worlds and ids never hold a space. */
export const worldKey = (world: string, id: string) => `${world} ${id}`;

/**
 * What the world's projections share: decoding journal entries (once per stored event, however
 * many projections fold it), and a batch of documents read once and written once per unit.
 */
import type { RecordedEvent } from '../stores/event-store.js';
import type { Doc, IndexSpec, Unit } from '../stores/read-store.js';
import { storedEntryOf, streamStart, worldEntryType, WorldEntryEvent, worldOfStream, type StoredEntry } from '../events/world.js';
import type { Projection } from './projection.js';
import type { Docs } from './read-model.js';

const decoded = new WeakMap<RecordedEvent, StoredEntry | null>();

/** The entry a stored event holds (checked against the codec once per event object). */
export function entryOf(event: RecordedEvent): StoredEntry | undefined {
  let e = decoded.get(event);
  if (e === undefined) {
    e = fitting(event) ?? storedEntryOf(event) ?? null;
    decoded.set(event, e);
  }
  return e ?? undefined;
}

/**
 * A world event that fits the codec, taken as it is. `WorldEntryEvent` transforms nothing
 * (every part decodes to its input), so `is` accepts exactly what `decode` accepts and the
 * entry is the same object, at about a third of the cost; anything else goes through
 * storedEntryOf, which throws the codec's own explanation.
 */
function fitting(event: RecordedEvent): StoredEntry | undefined {
  if (event.type !== worldEntryType) return undefined;
  const world = worldOfStream(event.stream);
  if (world === undefined) return undefined;
  const data = event.data as { height?: unknown } | null;
  if (!WorldEntryEvent.is({ type: event.type, data }) || BigInt(data!.height as number) !== BigInt(streamStart(event.stream)) + event.revision)
    return undefined;
  return { world, entry: data as StoredEntry['entry'], position: event.position };
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
   * Collections whose documents carry their `world`: when a scratch world expires (ScratchExpired,
   * on its guest's registry stream) its documents there are deleted, so an expired world's read
   * models are reclaimed by the journal itself and a rebuild agrees.
   */
  perWorld?: string[];
  /**
   * The read-model rule of a carry entry (kind `carry`, the first of an epoch), run before the
   * entry itself is folded: it makes the world's documents what the carried present gives,
   * whatever the old epoch left, so the live read models (which folded the old epoch) and a
   * rebuild from the new epoch alone (which never saw it) agree.
   */
  carry?(carried: StoredEntry, unit: Unit): Promise<void>;
}

const isCarry = (event: RecordedEvent) => event.type === worldEntryType && (event.data as { kind?: unknown } | null)?.kind === 'carry';

const expiredType = 'ScratchExpired';

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
  const breaks = (e: RecordedEvent) => (perWorld.length > 0 && e.type === expiredType) || (spec.carry !== undefined && isCarry(e));
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
      if (event.type === expiredType) await forget(event, unit);
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
    handles: (type) => type === worldEntryType || (perWorld.length > 0 && type === expiredType),
    apply: (event, unit) => foldAll([event], unit),
    applyBatch: foldAll,
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
    const missing = [...new Set(ids)].filter((id) => !this.docs.has(id));
    for (let i = 0; i < missing.length; i += 500) {
      const chunk = missing.slice(i, i + 500);
      const found = await this.collection.find({ _id: { $in: chunk } });
      for (const id of chunk) {
        this.docs.set(id, null);
        this.absent.add(id);
      }
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
    // One bulk write: the store neither reads a document back nor compares it.
    if (put.length) await this.collection.putMany(put);
    if (gone.length) await this.collection.deleteMany({ _id: { $in: gone } });
    this.dirty.clear();
    this.absent.clear();
  }
}

/** The `_id` of a thing of a world: worlds and ids never hold a space. */
export const worldKey = (world: string, id: string) => `${world} ${id}`;

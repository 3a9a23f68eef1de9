/**
 * A collection of the embedded read store outside any unit: reads see committed data; each
 * write is a unit of its own.
 */
import type { Collection, Doc, Filter, FindOptions, IndexSpec, PutManyOptions, Update, UpdateResult } from '../read-store.js';
import type { OverlayCollection } from '../read-store-unit.js';

/** What a collection outside units asks of its store (EmbeddedReadStore). */
export interface CollectionHost {
  /** A committed document by id (a fresh copy). */
  committedDoc(collection: string, id: string): Doc | undefined;
  /** A collection view with no pending writes: reads the committed state. */
  committedView(collection: string): OverlayCollection;
  /** A single write outside units: a unit of its own. */
  write<T>(collection: string, op: (c: Collection) => Promise<T>): Promise<T>;
  createIndexesOutsideUnit(collection: string, specs: readonly IndexSpec[]): Promise<void>;
}

/** `{_id: <text>}` and nothing else. */
function isPlainIdFilter(filter: Filter): filter is { _id: string } {
  if (typeof filter !== 'object' || filter === null || Object.getPrototypeOf(filter) !== Object.prototype) return false;
  let keys = 0;
  for (const key in filter) if (++keys > 1 || key !== '_id') return false;
  return keys === 1 && typeof filter._id === 'string';
}

export class EmbeddedCollection implements Collection {
  constructor(
    readonly name: string,
    private readonly store: CollectionHost,
  ) {}

  async findOne(filter: Filter, options?: FindOptions): Promise<Doc | null> {
    // The common read, one document by its id: straight from the committed documents, which is
    // where the general path ends up, without its view, plan and matcher.
    if (options === undefined && isPlainIdFilter(filter)) return this.store.committedDoc(this.name, filter._id) ?? null;
    return this.store.committedView(this.name).findOne(filter, options);
  }

  async find(filter: Filter, options?: FindOptions): Promise<Doc[]> {
    return this.store.committedView(this.name).find(filter, options);
  }

  async count(filter: Filter): Promise<number> {
    return this.store.committedView(this.name).count(filter);
  }

  insertOne(doc: Doc): Promise<void> {
    return this.store.write(this.name, (c) => c.insertOne(doc));
  }

  replaceOne(filter: Filter, doc: Doc, options?: { upsert?: boolean }): Promise<UpdateResult> {
    return this.store.write(this.name, (c) => c.replaceOne(filter, doc, options));
  }

  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    return this.store.write(this.name, (c) => c.updateOne(filter, update, options));
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.store.write(this.name, (c) => c.deleteMany(filter));
  }

  putMany(docs: Doc[], options?: PutManyOptions): Promise<void> {
    return this.store.write(this.name, (c) => c.putMany(docs, options));
  }

  createIndex(spec: IndexSpec): Promise<void> {
    return this.store.createIndexesOutsideUnit(this.name, [spec]);
  }

  createIndexes(specs: IndexSpec[]): Promise<void> {
    return this.store.createIndexesOutsideUnit(this.name, specs);
  }
}

/**
 * Read models named in code: each projection exports a handle for its read model (the
 * projection's name, which is also its checkpoint's) and one for each of its collections (the
 * collection's name and its documents' type together). The projection writes through those
 * handles and the queries and pages that read it import them, so renaming a collection or a
 * projection is a compile error in its readers instead of an empty read, and a reader gets
 * documents of the type the projection writes.
 */
import type { Collection, Doc, Filter, FindOptions, IndexSpec, PutManyOptions, Update, UpdateResult } from '../stores/read-store.js';

/** What a collection is opened from: a read store, or a unit of one. */
export interface CollectionSource {
  collection(name: string): Collection;
}

/** A collection opened through its handle: what it finds is typed as the projection writes it. */
export interface Docs<D extends Doc> extends Collection {
  findOne(filter: Filter, options?: FindOptions): Promise<D | null>;
  find(filter: Filter, options?: FindOptions): Promise<D[]>;
}

/** One collection of a read model. */
export interface DocCollection<D extends Doc> {
  /** Its name in the read store: `<read model>.<collection>`. */
  readonly name: string;
  /** The collection in a read store or a unit. */
  in(source: CollectionSource): Docs<D>;
}

/** A read model: the projection's name, and its collections. */
export interface ReadModel<N extends string> {
  readonly name: N;
  /**
   * A collection of this read model, named `<read model>.<name>`: every collection of a
   * projection starts with its name, which is what rebuilds drop and digests walk.
   */
  collection<D extends Doc>(name: string, options?: CollectionOptions): DocCollection<D>;
}

export interface CollectionOptions {
  /**
   * Top-level fields kept as JSON text in the store and handed back decoded: values whose
   * nesting grows with the data (a card's state, typed data) would otherwise reach MongoDB's
   * 100 levels, which both read stores refuse (docs/decisions/store-limits-parity.md).
   * Such a field cannot be filtered, sorted or updated inside.
   */
  encoded?: readonly string[];
}

export function readModel<N extends string>(name: N): ReadModel<N> {
  return {
    name,
    collection<D extends Doc>(part: string, options?: CollectionOptions): DocCollection<D> {
      const full = `${name}.${part}`;
      const encoded = options?.encoded;
      if (encoded?.length) return { name: full, in: (source) => new EncodedDocs(source.collection(full), encoded) as unknown as Docs<D> };
      // The store's collection as it is: the handle only says what its documents are.
      return { name: full, in: (source) => source.collection(full) as Docs<D> };
    },
  };
}

/** A collection whose `encoded` fields are stored as JSON text (CollectionOptions.encoded). */
class EncodedDocs implements Collection {
  readonly name: string;
  constructor(
    private readonly inner: Collection,
    private readonly fields: readonly string[],
  ) {
    this.name = inner.name;
  }

  private encode<T extends Record<string, unknown>>(doc: T): T {
    let out: T | undefined;
    for (const f of this.fields) {
      const v = doc[f];
      if (v === undefined || typeof v === 'string') continue;
      out ??= { ...doc };
      (out as Record<string, unknown>)[f] = JSON.stringify(v);
    }
    return out ?? doc;
  }

  private decode(doc: Doc): Doc {
    for (const f of this.fields) {
      const v = doc[f];
      if (typeof v === 'string') doc[f] = JSON.parse(v);
    }
    return doc;
  }

  /** A filter, sort or update path inside an encoded field cannot mean what it says: refused. */
  private plain(paths: Iterable<string>, what: string): void {
    for (const path of paths) {
      for (const f of this.fields) {
        if (path === f || path.startsWith(`${f}.`)) throw new TypeError(`${what} ${path}: ${f} is kept encoded in ${this.name}`);
      }
    }
  }

  private checkFilter(filter: Filter): void {
    const walk = (f: Filter): void => {
      for (const [key, value] of Object.entries(f)) {
        if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) for (const member of value) walk(member as Filter);
        else if (!key.startsWith('$')) this.plain([key], 'filter on');
      }
    };
    walk(filter);
  }

  async findOne(filter: Filter, options?: FindOptions): Promise<Doc | null> {
    this.checkFilter(filter);
    if (options?.sort) this.plain(Object.keys(options.sort), 'sort on');
    const doc = await this.inner.findOne(filter, options);
    return doc && this.decode(doc);
  }

  async find(filter: Filter, options?: FindOptions): Promise<Doc[]> {
    this.checkFilter(filter);
    if (options?.sort) this.plain(Object.keys(options.sort), 'sort on');
    const docs = await this.inner.find(filter, options);
    for (const doc of docs) this.decode(doc);
    return docs;
  }

  count(filter: Filter): Promise<number> {
    this.checkFilter(filter);
    return this.inner.count(filter);
  }

  insertOne(doc: Doc): Promise<void> {
    return this.inner.insertOne(this.encode(doc));
  }

  replaceOne(filter: Filter, doc: Doc, options?: { upsert?: boolean }): Promise<UpdateResult> {
    this.checkFilter(filter);
    return this.inner.replaceOne(filter, this.encode(doc), options);
  }

  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    this.checkFilter(filter);
    const out: Update = { ...update };
    for (const op of ['$set', '$setOnInsert'] as const) {
      const fields = update[op];
      if (fields) {
        this.plain(
          Object.keys(fields).filter((k) => !this.fields.includes(k)),
          `${op} of`,
        );
        out[op] = this.encode(fields);
      }
    }
    for (const op of ['$unset', '$inc', '$push'] as const) {
      const fields = update[op];
      if (fields) this.plain(op === '$unset' ? Object.keys(fields).filter((k) => !this.fields.includes(k)) : Object.keys(fields), `${op} of`);
    }
    return this.inner.updateOne(filter, out, options);
  }

  deleteMany(filter: Filter): Promise<number> {
    this.checkFilter(filter);
    return this.inner.deleteMany(filter);
  }

  putMany(docs: Doc[], options?: PutManyOptions): Promise<void> {
    return this.inner.putMany(
      docs.map((d) => this.encode(d)),
      options,
    );
  }

  createIndex(spec: IndexSpec): Promise<void> {
    this.plain(Object.keys(spec.keys), 'index on');
    return this.inner.createIndex(spec);
  }

  createIndexes(specs: IndexSpec[]): Promise<void> {
    for (const spec of specs) this.plain(Object.keys(spec.keys), 'index on');
    return this.inner.createIndexes(specs);
  }
}

/**
 * Read models named in code: each projection exports a handle for its read model (the
 * projection's name, which is also its checkpoint's) and one for each of its collections (the
 * collection's name and its documents' type together). The projection writes through those
 * handles and the queries and pages that read it import them, so renaming a collection or a
 * projection is a compile error in its readers instead of an empty read, and a reader gets
 * documents of the type the projection writes.
 */
import type { Collection, Doc, Filter, FindOptions } from '../stores/read-store.js';

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
  collection<D extends Doc>(name: string): DocCollection<D>;
}

export function readModel<N extends string>(name: N): ReadModel<N> {
  return {
    name,
    collection<D extends Doc>(part: string): DocCollection<D> {
      const full = `${name}.${part}`;
      // The store's collection as it is: the handle only says what its documents are.
      return { name: full, in: (source) => source.collection(full) as Docs<D> };
    },
  };
}

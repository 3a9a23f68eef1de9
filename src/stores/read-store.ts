/**
 * The ReadStore port: Mongo-shaped collections of JSON documents that projections write and
 * queries read. Filters, sorts and update operators mean exactly what they mean on MongoDB
 * (the embedded adapter evaluates them with `mingo`). Both adapters must pass the contract,
 * test/stores/read-store.contract.ts and read-store-units.contract.ts.
 */

export type Doc = Record<string, unknown> & { _id: string };
export type Filter = Record<string, unknown>;
export type Sort = Record<string, 1 | -1>;
/** Supported update operators: $set, $unset, $inc, $push (others are refused by the adapters). */
export type Update = {
  $set?: Record<string, unknown>;
  $unset?: Record<string, unknown>;
  $inc?: Record<string, number>;
  $push?: Record<string, unknown>;
  $setOnInsert?: Record<string, unknown>;
};

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  /** Inclusion projection, as on MongoDB: { field: 1 }. */
  projection?: Record<string, 1>;
}

export interface PutManyOptions {
  /** See Collection.putMany. */
  handOver?: boolean;
}

export interface IndexSpec {
  keys: Record<string, 1 | -1>;
  unique?: boolean;
  name?: string;
}

export interface UpdateResult {
  matched: number;
  modified: number;
  upsertedId?: string;
}

export interface Collection {
  readonly name: string;
  findOne(filter: Filter, options?: FindOptions): Promise<Doc | null>;
  find(filter: Filter, options?: FindOptions): Promise<Doc[]>;
  count(filter: Filter): Promise<number>;
  insertOne(doc: Doc): Promise<void>;
  /** Replace the whole document with this `_id`, inserting it when absent. */
  replaceOne(filter: Filter, doc: Doc, options?: { upsert?: boolean }): Promise<UpdateResult>;
  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult>;
  deleteMany(filter: Filter): Promise<number>;
  /**
   * Writes each document whole under its `_id`, inserted or replacing the one there: MongoDB's
   * `bulkWrite` of `replaceOne({_id}, doc, {upsert: true})`, unordered, with no read-back and no
   * counts. How projections write a batch (a document they built in memory, once per unit).
   * Two documents with one `_id` in a call are refused (TypeError: unordered, MongoDB would not
   * say which wins). A duplicate key on a unique index throws DuplicateKey; inside a unit that
   * dooms the unit, outside one the other documents may or may not have been written.
   *
   * `handOver`: the caller gives the documents to the store and will not change them, nor
   * anything they hold, again (a projection's batch, built for this call and dropped after
   * it). The store may then keep them as they are instead of copying them; they are checked
   * as ever, and one that is not already what JSON would make of it (an `undefined` member, -0,
   * a Date…) is still copied. Without it, a later change to the caller's objects is never seen.
   */
  putMany(docs: Doc[], options?: PutManyOptions): Promise<void>;
  createIndex(spec: IndexSpec): Promise<void>;
  /**
   * Creates several indexes at once, each as createIndex would (one that exists with the same
   * keys and options is left as it is), over the documents already there in one build: how a
   * rebuild indexes a collection it has just loaded, instead of keeping every index entry up to
   * date document by document. MongoDB's `createIndexes` (one command, which builds each index
   * from a sorted pass over the collection); the embedded store sorts the entries and writes a
   * fresh index in LMDB's append mode. Every spec is checked before anything is built: a clash
   * with an index there or another spec of the call, or a duplicate key on a unique one,
   * refuses the call, and none of its indexes is made.
   */
  createIndexes(specs: IndexSpec[]): Promise<void>;
}

/** A duplicate key on a unique index (including `_id`). */
export class DuplicateKey extends Error {
  constructor(
    readonly collection: string,
    readonly key: string,
  ) {
    super(`duplicate key in ${collection}: ${key}`);
    this.name = 'DuplicateKey';
  }
}

/**
 * One unit of work: document writes plus the projection's checkpoint, committed together so a
 * crash never leaves a checkpoint ahead of the data it covers. On MongoDB a unit is a
 * transaction where the deployment supports one, else ordered writes with the checkpoint last
 * (projections are idempotent, so replaying the tail is harmless).
 */
export interface Unit {
  collection(name: string): Collection;
  setCheckpoint(projection: string, position: bigint): void;
  /**
   * Records the version of the fold that builds the projection's read model (a non-negative
   * integer), committed with the unit like a checkpoint and kept beside it.
   */
  setVersion(projection: string, version: number): void;
  /**
   * Commits this unit only while `lease` is still the projection's lease (its fencing token not
   * passed on to another worker): otherwise the unit fails with LeaseLost, nothing written.
   */
  fence(lease: Lease): void;
  /**
   * Runs `fn` once this unit has committed, and never if it does not: what a fold keeps outside
   * the store (a cache of documents it wrote or read) is changed here, never in the work itself.
   * A store may run a unit's work more than once (MongoDB's `withTransaction` runs it again
   * after a TransientTransactionError, such as a WriteConflict) and keeps only the last run's
   * writes: callbacks registered by a run it threw away are dropped with it. Callbacks run in
   * the order registered, after the commit and before `unit()` resolves (also when the unit
   * wrote nothing); one that throws does not stop the others, and the first error is what
   * `unit()` rejects with, although the unit committed.
   */
  onCommit(fn: () => void): void;
}

/**
 * A projection's lease: the one worker that may fold it until `expiresAt` (renewing keeps it).
 * The token grows with every taking of the lease, so a unit fenced with an older token is
 * refused once another worker took over, even if its worker does not know it yet.
 */
export interface Lease {
  projection: string;
  holder: string;
  token: number;
  /** Milliseconds since the epoch, on the store's clock (the server's for MongoDB). */
  expiresAt: number;
}

export interface ReadStore {
  collection(name: string): Collection;
  /** Run `work` as one unit; writes made through the unit's collections commit with it. */
  unit<T>(work: (unit: Unit) => Promise<T>): Promise<T>;
  checkpoint(projection: string): Promise<bigint | undefined>;
  /**
   * The fold version the projection's read model was built with (Unit.setVersion), undefined
   * when none was recorded (a read model built before versions were, or never built).
   */
  version(projection: string): Promise<number | undefined>;
  /**
   * Takes the projection's lease for `holder` for `ttlMs` when it is free, expired, or already
   * this holder's; undefined while another holder keeps it.
   */
  acquireLease(projection: string, holder: string, ttlMs: number): Promise<Lease | undefined>;
  /** Extends a lease still held (same holder and token), or undefined when it was taken over. */
  renewLease(lease: Lease, ttlMs: number): Promise<Lease | undefined>;
  /** Lets the lease go (it expires at once; its token stays, so tokens never repeat). */
  releaseLease(lease: Lease): Promise<void>;
  /**
   * Read-your-writes across workers: resolves true once the projection's checkpoint is at or
   * past `position`, false after `timeoutMs`; told of commits where the store can tell (an
   * in-process notice, a change stream), else polling with a backoff.
   */
  waitForCheckpoint(projection: string, position: bigint, timeoutMs: number): Promise<boolean>;
  /**
   * Drop every collection, checkpoint and version of this store's generation whose name starts
   * with `prefix` (rebuilds); other generations keep theirs.
   */
  drop(prefix?: string): Promise<void>;
  /**
   * The generation this store reads and writes (read-store-generations.ts): 0 until a live
   * rebuild switched the store to another; a view's is the one it was opened at.
   */
  readonly generation: number;
  /**
   * The same store seen in generation `n`: its collections, checkpoints, versions and drops are
   * those of `n` alone, beside the current generation's (a live rebuild folds the next one
   * there). It shares the store's connection: closing it closes nothing.
   */
  at(generation: number): ReadStore;
  /**
   * Makes `n` the current generation, in one step and durably: every later collection,
   * checkpoint, version, unit and drop of this store is of `n`, and a store opened on the same
   * data later starts at `n`. Other processes and threads holding the store open keep the
   * generation they opened until they open it again. Refused on a view.
   */
  switchGeneration(generation: number): Promise<void>;
  /** What one unit may write (UnitLimits), or undefined when the store sets no limit. */
  readonly unitLimits: UnitLimits | undefined;
  /**
   * How many times the store opened its change stream again after a failure (MongoDB on a
   * replica set; always 0 where there is none). Shown in /metrics.
   */
  readonly changeStreamRestarts: number;
  close(): Promise<void>;
}

/** A unit would move a projection's checkpoint backwards (another worker went further): nothing was written. */
export class CheckpointBehind extends Error {
  constructor(
    readonly projection: string,
    readonly position: bigint,
  ) {
    super(`checkpoint of ${projection} is already past ${position}: a checkpoint never moves backwards`);
    this.name = 'CheckpointBehind';
  }
}

/**
 * How much one unit may write: `ops` write calls (insertOne, replaceOne, updateOne, deleteMany,
 * and putMany, each one call however many documents it carries) and `bytes` of what they carry
 * (documents, updates and filters, counted as UTF-8 JSON text, which is within a few percent of
 * their BSON). MongoDB's adapter caps its units by default (DEFAULT_MONGO_UNIT_LIMITS: a
 * transaction lives at most 60 s and its writes must fit the server's cache); the embedded one
 * only when asked.
 */
export interface UnitLimits {
  ops: number;
  bytes: number;
}

export const DEFAULT_MONGO_UNIT_LIMITS: UnitLimits = { ops: 1000, bytes: 16 * 1024 * 1024 };

/**
 * A unit wrote more than its store's UnitLimits allow: the write that crossed them is refused,
 * and the unit with it (nothing written). Split the work into smaller units (the rebuild and the
 * projector halve their batch and try again).
 */
export class UnitTooLarge extends Error {
  constructor(
    readonly limits: UnitLimits,
    readonly ops: number,
    readonly bytes: number,
  ) {
    super(`a unit of ${ops} writes and ${bytes} bytes is over the store's limit of ${limits.ops} writes and ${limits.bytes} bytes: split it`);
    this.name = 'UnitTooLarge';
  }
}

/** A unit fenced with a lease another worker has since taken: nothing was written. */
export class LeaseLost extends Error {
  constructor(
    readonly projection: string,
    readonly token: number,
  ) {
    super(`the lease of ${projection} (token ${token}) was taken over by another worker`);
    this.name = 'LeaseLost';
  }
}

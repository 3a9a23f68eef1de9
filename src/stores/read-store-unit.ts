/**
 * Units of work held in memory until commit: a unit's writes go to an overlay (pending
 * document states per collection plus checkpoints), its reads see the committed store with the
 * overlay on top, and the adapter commits the overlay at the end in one go. The embedded store
 * always works this way (an LMDB transaction cannot stay open across `await`); the MongoDB
 * adapter does on deployments without transactions.
 *
 * A unit whose operation failed is doomed, as a MongoDB transaction is after a write error:
 * later operations rethrow that error and the unit commits nothing, even if `work` caught it.
 */
import {
  DuplicateKey,
  type Collection,
  type Doc,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Sort,
  type Unit,
  type Update,
  type UpdateResult,
  type Lease,
  type PutManyOptions,
  UnitTooLarge,
  type UnitLimits,
} from './read-store.js';
import {
  checkCollectionName,
  checkDoc,
  checkDocs,
  checkFilter,
  checkPosition,
  checkProjectionName,
  checkReplacement,
  checkVersion,
  checkToken,
  checkUpdate,
  isPlainObject,
  jsonCopy,
} from './read-store-checks.js';
import { applyUpdate, matcher, pinnedIds, projector, replacementDocument, sortDocs, upsertDocument } from './read-store-documents.js';

/** Ids a base read must leave out (the ones the overlay owns). */
export interface IdSet {
  has(id: string): boolean;
  readonly size: number;
  keys(): Iterable<string>;
}

export const NO_IDS: IdSet = new Set<string>();

/** The committed state a unit reads through. */
export interface BaseReader {
  get(collection: string, id: string): Promise<Doc | undefined>;
  /**
   * Documents matching `filter`, not in `exclude`, in `effectiveSort(sort)` order, at most
   * `limit` of them (all when undefined).
   */
  find(collection: string, filter: Filter, sort: Sort | undefined, limit: number | undefined, exclude: IdSet): Promise<Doc[]>;
  count(collection: string, filter: Filter, exclude: IdSet): Promise<number>;
}

export interface OverlayHooks {
  /** Refuses a pending write (DuplicateKey on a unique index) before the overlay records it. */
  beforeWrite?(collection: string, id: string, next: Doc | null, overlay: Overlay): void | Promise<void>;
  createIndexes(collection: string, specs: readonly IndexSpec[]): Promise<void>;
}

export class Overlay {
  readonly docs = new Map<string, Map<string, Doc | null>>();
  readonly checkpoints = new Map<string, bigint>();
  readonly versions = new Map<string, number>();
  /** Leases the unit is fenced with: projection → token. */
  readonly fences = new Map<string, number>();
  /**
   * Per collection, ids this unit found absent from the committed state (an insert or upsert
   * checked): the commit then knows the document had no index entries without reading it.
   * Sound because units are serialised, so the committed state cannot change under a unit.
   */
  readonly absent = new Map<string, Set<string>>();
  /** Unit.onCommit's callbacks, run by the adapter once this overlay has committed (runCommitted). */
  readonly committed: (() => void)[] = [];
  failed: Error | undefined;
  finished = false;
  /** Write calls and their bytes so far, against `limits` (UnitLimits; none when undefined). */
  ops = 0;
  bytes = 0;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly limits?: UnitLimits) {}

  /**
   * Counts one write call carrying `payload` (documents, an update, a filter), refusing it with
   * UnitTooLarge when the unit would go over its limits (the caller runs it inside `run`, so
   * the refusal dooms the unit).
   */
  spend(payload: unknown): void {
    if (!this.limits) return;
    const ops = this.ops + 1;
    const bytes = this.bytes + payloadBytes(payload);
    if (ops > this.limits.ops || bytes > this.limits.bytes) throw new UnitTooLarge(this.limits, ops, bytes);
    this.ops = ops;
    this.bytes = bytes;
  }

  pending(collection: string): Map<string, Doc | null> | undefined {
    return this.docs.get(collection);
  }

  set(collection: string, id: string, doc: Doc | null): void {
    let docs = this.docs.get(collection);
    if (!docs) this.docs.set(collection, (docs = new Map()));
    docs.set(id, doc);
  }

  /** Whether `id` is known absent from the committed state of `collection`. */
  knownAbsent(collection: string, id: string): boolean {
    return this.absent.get(collection)?.has(id) ?? false;
  }

  get empty(): boolean {
    return this.checkpoints.size === 0 && this.versions.size === 0 && [...this.docs.values()].every((d) => d.size === 0);
  }

  /** Runs one operation of the unit, after the previous one, so two operations never interleave. */
  run<T>(op: () => Promise<T>): Promise<T> {
    const go = async (): Promise<T> => {
      if (this.finished) throw new Error('this unit has already ended; use the collections of a running unit');
      if (this.failed) throw this.failed;
      try {
        return await op();
      } catch (error) {
        this.failed ??= error as Error;
        throw error;
      }
    };
    const result = this.tail.then(go, go);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** The bytes a write carries, as UTF-8 JSON text (UnitLimits). */
export function payloadBytes(payload: unknown): number {
  if (Array.isArray(payload)) {
    let n = 2;
    for (const item of payload) n += payloadBytes(item) + 1;
    return n;
  }
  const text = JSON.stringify(payload, (_k, v) => (typeof v === 'bigint' ? v.toString() : v instanceof RegExp ? v.source : v));
  return text === undefined ? 0 : Buffer.byteLength(text);
}

export function checkFindOptions(options: FindOptions | undefined): { sort?: Sort; skip: number; limit?: number; project?: (d: Doc) => Doc } {
  const skip = options?.skip ?? 0;
  if (!Number.isSafeInteger(skip) || skip < 0) throw new RangeError(`skip must be a non-negative integer, not ${String(skip)}`);
  let limit = options?.limit;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) throw new RangeError(`limit must be a non-negative integer, not ${String(limit)}`);
  if (limit === 0) limit = undefined; // MongoDB: a limit of 0 means no limit
  if (options?.sort !== undefined && !isPlainObject(options.sort)) throw new TypeError('sort must be an object');
  if (options?.projection !== undefined && !isPlainObject(options.projection)) throw new TypeError('projection must be an object');
  return { sort: options?.sort, skip, limit, project: projector(options?.projection) };
}

/** A collection seen through a unit: reads see the unit's own writes; writes stay pending. */
export class OverlayCollection implements Collection {
  readonly name: string;

  constructor(
    name: string,
    private readonly base: BaseReader,
    private readonly overlay: Overlay,
    private readonly hooks: OverlayHooks,
  ) {
    this.name = checkCollectionName(name);
  }

  findOne(filter: Filter, options?: FindOptions): Promise<Doc | null> {
    return this.overlay.run(async () => (await this.read(filter, { ...options, limit: 1 }))[0] ?? null);
  }

  find(filter: Filter, options?: FindOptions): Promise<Doc[]> {
    return this.overlay.run(() => this.read(filter, options));
  }

  count(filter: Filter): Promise<number> {
    return this.overlay.run(async () => {
      checkFilter(filter);
      const pending = this.overlay.pending(this.name);
      if (!pending?.size) return this.base.count(this.name, filter, NO_IDS);
      return (await this.base.count(this.name, filter, pending)) + this.pendingMatches(filter, pending).length;
    });
  }

  insertOne(doc: Doc): Promise<void> {
    return this.overlay.run(async () => {
      const next = checkDoc(doc);
      this.overlay.spend(next);
      if (await this.exists(next._id)) throw new DuplicateKey(this.name, JSON.stringify({ _id: next._id }));
      await this.write(next._id, next);
    });
  }

  replaceOne(filter: Filter, doc: Doc, options?: { upsert?: boolean }): Promise<UpdateResult> {
    return this.overlay.run(async () => {
      const replacement = checkReplacement(doc);
      this.overlay.spend(replacement);
      const target = (await this.read(filter, { limit: 1 }))[0];
      if (target) {
        const next = replacementDocument(filter, replacement, target._id);
        const modified = JSON.stringify(next) !== JSON.stringify(target);
        if (modified) await this.write(next._id, next);
        return { matched: 1, modified: modified ? 1 : 0 };
      }
      if (!options?.upsert) return { matched: 0, modified: 0 };
      const next = replacementDocument(filter, replacement);
      return this.upsert(next);
    });
  }

  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    return this.overlay.run(async () => {
      const checked = checkUpdate(update);
      this.overlay.spend([filter, checked]);
      const target = (await this.read(filter, { limit: 1 }))[0];
      if (target) {
        // `target` is this unit's own copy (a fresh read, or a copy of a pending document).
        const before = JSON.stringify(target);
        const next = applyUpdate(target, checked, false);
        const modified = JSON.stringify(next) !== before;
        if (modified) await this.write(next._id, next);
        return { matched: 1, modified: modified ? 1 : 0 };
      }
      if (!options?.upsert) return { matched: 0, modified: 0 };
      return this.upsert(upsertDocument(filter, checked));
    });
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.overlay.run(async () => {
      checkFilter(filter);
      this.overlay.spend(filter);
      const doomed = await this.read(filter, {});
      for (const doc of doomed) await this.write(doc._id, null);
      return doomed.length;
    });
  }

  putMany(docs: Doc[], options?: PutManyOptions): Promise<void> {
    return this.overlay.run(async () => {
      // Handed over: kept uncopied. Nothing here hands them out again: reads of the unit copy
      // pending documents, and the commit only encodes them.
      const checked = checkDocs(docs, options?.handOver);
      if (checked.length) this.overlay.spend(checked);
      for (const next of checked) {
        // No read-back: the commit finds what the document replaces (if anything) itself.
        const refused = this.hooks.beforeWrite?.(this.name, next._id, next, this.overlay);
        if (refused) await refused;
        this.overlay.set(this.name, next._id, next);
      }
    });
  }

  createIndex(spec: IndexSpec): Promise<void> {
    return this.overlay.run(() => this.hooks.createIndexes(this.name, [spec]));
  }

  createIndexes(specs: IndexSpec[]): Promise<void> {
    return this.overlay.run(() => this.hooks.createIndexes(this.name, specs));
  }

  private async upsert(next: Doc): Promise<UpdateResult> {
    // The filter matched nothing, but another document may own the id (MongoDB: E11000).
    if (await this.exists(next._id)) throw new DuplicateKey(this.name, JSON.stringify({ _id: next._id }));
    await this.write(next._id, next);
    return { matched: 0, modified: 0, upsertedId: next._id };
  }

  private async exists(id: string): Promise<boolean> {
    const pending = this.overlay.pending(this.name);
    if (pending?.has(id)) return pending.get(id) !== null;
    if (this.overlay.knownAbsent(this.name, id)) return false;
    const found = (await this.base.get(this.name, id)) !== undefined;
    if (!found) {
      let absent = this.overlay.absent.get(this.name);
      if (!absent) this.overlay.absent.set(this.name, (absent = new Set()));
      absent.add(id);
    }
    return found;
  }

  private async write(id: string, next: Doc | null): Promise<void> {
    await this.hooks.beforeWrite?.(this.name, id, next, this.overlay);
    this.overlay.set(this.name, id, next);
  }

  private pendingMatches(filter: Filter, pending: Map<string, Doc | null>): Doc[] {
    const ids = pinnedIds(filter);
    const test = matcher(filter, ids !== undefined);
    const out: Doc[] = [];
    if (ids) {
      for (const id of new Set(ids)) {
        const doc = pending.get(id);
        if (doc && test(doc)) out.push(doc);
      }
    } else {
      for (const doc of pending.values()) if (doc && test(doc)) out.push(doc);
    }
    return out;
  }

  /**
   * After an unlimited read whose filter is only `_id` equality or `$in` (how projections load
   * a batch), the ids it did not find and the unit has not written are absent from the
   * committed state: remembered, so inserting them later needs no second lookup.
   */
  private learnAbsent(filter: Filter, committed: Doc[], pending: Map<string, Doc | null> | undefined): void {
    const ids = idLookup(filter);
    if (!ids) return;
    const found = new Set(committed.map((d) => d._id));
    let absent = this.overlay.absent.get(this.name);
    for (const id of ids) {
      if (found.has(id) || pending?.has(id)) continue;
      if (!absent) this.overlay.absent.set(this.name, (absent = new Set()));
      absent.add(id);
    }
  }

  private async read(filter: Filter, options: FindOptions | undefined): Promise<Doc[]> {
    checkFilter(filter);
    const { sort, skip, limit, project } = checkFindOptions(options);
    const pending = this.overlay.pending(this.name);
    const want = limit === undefined ? undefined : skip + limit;
    let docs: Doc[];
    if (!pending?.size) {
      docs = await this.base.find(this.name, filter, sort, want, NO_IDS);
      if (want === undefined) this.learnAbsent(filter, docs, pending);
    } else {
      const committed = await this.base.find(this.name, filter, sort, want, pending);
      if (want === undefined) this.learnAbsent(filter, committed, pending);
      const mine = this.pendingMatches(filter, pending).map((d) => jsonCopy(d));
      docs = mine.length ? sortDocs(committed.concat(mine), sort) : committed;
    }
    const page = docs.slice(skip, want);
    return project ? page.map(project) : page;
  }
}

/** The ids of a filter that is exactly `{_id: id}`, `{_id: {$eq: id}}` or `{_id: {$in: ids}}` (strings). */
function idLookup(filter: Filter): string[] | undefined {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== '_id') return undefined;
  const cond = filter._id;
  if (typeof cond === 'string') return [cond];
  if (!isPlainObject(cond)) return undefined;
  const ops = Object.keys(cond);
  if (ops.length !== 1) return undefined;
  if (ops[0] === '$eq') return typeof cond.$eq === 'string' ? [cond.$eq] : undefined;
  if (ops[0] !== '$in' || !Array.isArray(cond.$in)) return undefined;
  return cond.$in.every((id): id is string => typeof id === 'string') ? cond.$in : undefined;
}

/** A unit over an overlay: its collections, and checkpoints and versions recorded for the commit. */
export class OverlayUnit implements Unit {
  constructor(
    private readonly base: BaseReader,
    readonly overlay: Overlay,
    private readonly hooks: OverlayHooks,
  ) {}

  collection(name: string): Collection {
    return new OverlayCollection(name, this.base, this.overlay, this.hooks);
  }

  setCheckpoint(projection: string, position: bigint): void {
    if (this.overlay.finished) throw new Error('this unit has already ended');
    this.overlay.checkpoints.set(checkProjectionName(projection), checkPosition(position));
  }

  setVersion(projection: string, version: number): void {
    if (this.overlay.finished) throw new Error('this unit has already ended');
    this.overlay.versions.set(checkProjectionName(projection), checkVersion(version));
  }

  fence(lease: Lease): void {
    if (this.overlay.finished) throw new Error('this unit has already ended');
    this.overlay.fences.set(checkProjectionName(lease.projection), checkToken(lease.token));
  }

  onCommit(fn: () => void): void {
    onCommitOf(this.overlay, fn);
  }
}

/** Unit.onCommit on an overlay: kept for the commit (refused once the unit's work has ended). */
export function onCommitOf(overlay: Overlay, fn: () => void): void {
  if (overlay.finished) throw new Error('this unit has already ended');
  if (typeof fn !== 'function') throw new TypeError('onCommit takes a function');
  overlay.committed.push(fn);
}

/**
 * Runs a committed overlay's onCommit callbacks in order, every one of them even when one
 * throws; the first error is rethrown after the last (the unit stays committed).
 */
export function runCommitted(overlay: Overlay): void {
  let first: { error: unknown } | undefined;
  for (const fn of overlay.committed.splice(0)) {
    try {
      fn();
    } catch (error) {
      first ??= { error };
    }
  }
  if (first) throw first.error;
}

/**
 * Runs a unit's work over a fresh overlay of the committed data; its writes stay in the overlay
 * for the adapter to commit. Operations the work started without awaiting still count, and a
 * write that failed dooms the whole unit (as a MongoDB transaction would), even if the work
 * caught the error.
 */
export async function workInOverlay<T>(
  base: BaseReader,
  hooks: OverlayHooks,
  work: (unit: Unit) => Promise<T>,
  limits?: UnitLimits,
): Promise<{ overlay: Overlay; result: T }> {
  const overlay = new Overlay(limits);
  let result: T;
  try {
    result = await work(new OverlayUnit(base, overlay, hooks));
    await overlay.run(async () => undefined).catch(() => undefined);
  } finally {
    overlay.finished = true;
  }
  if (overlay.failed) throw overlay.failed;
  return { overlay, result };
}

/**
 * Serialises a store's units (and the embedded store's single writes, index builds and drops),
 * first come first served. A caller may bound its wait: a write made through the store from
 * inside a running unit's work would otherwise wait for that unit forever.
 *
 * (AsyncLocalStorage could tell "inside a unit" apart, but enabling it makes every `await` in
 * the process about twice as slow on Node 20: measured, not worth it.)
 */
export class UnitGate {
  private tail: Promise<unknown> = Promise.resolve();

  exclusive<T>(fn: () => Promise<T>, wait?: { limitMs: number; what: string }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let gaveUp = false;
      const timer =
        wait &&
        setTimeout(() => {
          gaveUp = true;
          reject(
            new Error(
              `${wait.what} waited ${wait.limitMs} ms for running units and gave up; ` +
                "a write through the store inside a unit's work waits for that unit forever: write through unit.collection()",
            ),
          );
        }, wait.limitMs);
      const run = this.tail.then(() => {
        if (gaveUp) return;
        if (timer) clearTimeout(timer);
        return fn().then(resolve, reject);
      });
      this.tail = run.catch(() => undefined);
    });
  }

  /** Resolves when everything queued so far has ended. */
  drain(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}

/**
 * The embedded ReadStore adapter: MongoDB-shaped collections kept in an LMDB environment in
 * the process (`<dataDir>/read`), with filters and updates meaning what they mean on MongoDB
 * (evaluated by mingo, see read-store-documents.ts). This module is the adapter's front: units,
 * the gate, checkpoints and versions, drops; the parts it is made of each do one job:
 *   embedded/read-env.ts         the LMDB layout, opening it, its catalogue, compaction
 *   embedded/read-scan.ts        committed reads (planned by embedded/read-plan.ts)
 *   embedded/read-indexes.ts     index builds and unique keys (entries: embedded/read-keys.ts)
 *   embedded/read-commit.ts      a unit's overlay written as one LMDB transaction
 *   embedded/read-collection.ts  a collection outside units
 *
 * Indexes are persisted and maintained in the same LMDB transaction as the documents, so a
 * reopened store has them at once (nothing is rebuilt on open). Queries are planned over them
 * (embedded/read-plan.ts) and every candidate is tested against the whole filter.
 *
 * Units: writes are buffered in an overlay (read-store-unit.ts) while `work` runs, then applied
 * in ONE abortable LMDB transaction that also writes the checkpoints (and versions); it commits durably (fsync)
 * or not at all. Units, single writes, index builds and drops are serialised by one gate, so
 * a unit's reads of the committed state cannot change under it. Reads outside units never wait:
 * each runs synchronously against one LMDB snapshot.
 *
 * The gate and the in-memory index list are per process. Processes that share the directory
 * (projector workers and fronts beside the town, `shared`) are ordered by LMDB's writer lock,
 * and a unit's fences are checked again inside its write transaction (read-commit.ts).
 */
import type { DiskGuard } from './disk-guard.js';
import fs from 'node:fs';
import path from 'node:path';
import type { Collection, Doc, IndexSpec, Lease, Unit, UnitLimits } from '../read-store.js';
import { checkCollectionName, checkLeaseArgs, checkProjectionName, checkToken } from '../read-store-checks.js';
import { CheckpointNotices } from '../checkpoint-notices.js';
import { Overlay, OverlayCollection, runCommitted, workInOverlay, type BaseReader, type OverlayHooks } from '../read-store-unit.js';
import { MAX } from './read-keys.js';
import { openEnv, ReadEnv, type Key } from './read-env.js';
import { CommittedReads, type ReadStats } from './read-scan.js';
import { buildIndexes, UniqueKeys } from './read-indexes.js';
import { commitOverlay } from './read-commit.js';
import { releaseLease, renewLease, takeLease } from './read-leases.js';
import { committed } from './lmdb-commit-failure.js';
import { EmbeddedCollection, type CollectionHost } from './read-collection.js';
import { GenerationalReadStore, generationOfName } from '../read-store-generations.js';

export type { ReadStats } from './read-scan.js';

export interface EmbeddedReadStoreOptions {
  /** The app's data directory; the read models live in `<dataDir>/read`. */
  dataDir: string;
  /**
   * How long a write, index build or drop made outside units waits for running units before
   * giving up (default 30 s). Units themselves wait as long as it takes.
   */
  gateWaitMs?: number;
  /**
   * A drop that leaves the file at least this many pages, at most a quarter of them live,
   * compacts it (default 4,096 pages, 16 MiB; tests set it low).
   */
  compactAtPages?: number;
  /**
   * Runs every unit's work twice, as MongoDB's `withTransaction` does after a transient error:
   * the first run's writes (and its onCommit callbacks) are thrown away, the second's commit.
   * A test of the folds (no fold may depend on its unit running once); off by default, on
   * where TOWN_READ_UNITS_TWICE=1.
   */
  readUnitsTwice?: boolean;
  /** What one unit may write (UnitLimits); default none: LMDB commits a unit of any size. */
  unitLimits?: UnitLimits;
  /** The free-space watermark, checked before each unit commits anything (embedded/disk-guard.ts). */
  diskGuard?: DiskGuard;
  /**
   * Other processes fold into this store too (`TOWN_PROJECTORS=workers`): fences are checked
   * inside each unit's write transaction and the file is never compacted (ReadEnv.shared).
   */
  shared?: boolean;
}

export async function openEmbeddedReadStore(options: EmbeddedReadStoreOptions): Promise<EmbeddedReadStore> {
  const dir = path.join(options.dataDir, 'read');
  fs.mkdirSync(dir, { recursive: true });
  const twice = options.readUnitsTwice ?? process.env.TOWN_READ_UNITS_TWICE === '1';
  const store = new EmbeddedReadStore(
    new ReadEnv(openEnv(dir), fs.realpathSync(dir), options.compactAtPages, options.shared ?? false),
    options.gateWaitMs ?? 30_000,
    twice,
    options.unitLimits,
  );
  store.diskGuard = options.diskGuard;
  return store;
}

/** Where the current generation is kept in `meta`. */
const generationKey: Key = ['generation'];

/** The generation `lmdb` keeps as current (0 for a store made before generations). */
function keptGeneration(lmdb: ReadEnv): number {
  const stored = lmdb.meta.get(generationKey);
  return typeof stored === 'number' ? stored : 0;
}

export class EmbeddedReadStore extends GenerationalReadStore implements CollectionHost {
  private closed = false;
  private readonly committed: CommittedReads;
  private readonly unique: UniqueKeys;
  private readonly base: BaseReader;
  private readonly hooks: OverlayHooks;
  private readonly notices = new CheckpointNotices();
  /** The free-space watermark each unit looks at before it runs (none: units are not refused). */
  diskGuard: DiskGuard | undefined;

  constructor(
    private readonly lmdb: ReadEnv,
    private readonly gateWaitMs = 30_000,
    /** EmbeddedReadStoreOptions.readUnitsTwice. */
    readonly readUnitsTwice = false,
    readonly unitLimits: UnitLimits | undefined = undefined,
  ) {
    super(keptGeneration(lmdb));
    this.committed = new CommittedReads(lmdb);
    this.unique = new UniqueKeys(lmdb);
    this.base = {
      get: async (collection, id) => this.committedDoc(collection, id),
      find: async (collection, filter, sort, limit, exclude) => {
        this.assertOpen();
        return this.committed.find(collection, filter, sort, limit, exclude);
      },
      count: async (collection, filter, exclude) => {
        this.assertOpen();
        return this.committed.count(collection, filter, exclude);
      },
    };
    this.hooks = {
      beforeWrite: (collection, id, next, overlay) => this.unique.check(collection, id, next, overlay),
      createIndexes: (collection, specs) => buildIndexes(this.lmdb, checkCollectionName(collection), specs),
    };
  }

  /** No change stream: commits are heard in the process. */
  readonly changeStreamRestarts = 0;

  protected async keepGeneration(generation: number): Promise<void> {
    await committed(() => this.lmdb.meta.put(generationKey, generation));
  }

  /** What queries touched, so tests can tell an index lookup from a collection scan. */
  get stats(): ReadStats {
    return this.committed.stats;
  }

  // ---- names as stored (generation prefix included): what the generation views call ----

  storedCollection(name: string): Collection {
    this.assertOpen();
    return new EmbeddedCollection(checkCollectionName(name), this);
  }

  async storedUnit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.gate.exclusive(async () => {
      // Before the unit's work, so a refused unit leaves nothing behind (not even its callbacks).
      this.diskGuard?.check();
      return this.runUnit(work, this.readUnitsTwice, this.unitLimits);
    });
  }

  private async runUnit<T>(work: (unit: Unit) => Promise<T>, twice = false, limits?: UnitLimits): Promise<T> {
    // The first run's overlay is dropped uncommitted, its onCommit callbacks with it.
    if (twice) await workInOverlay(this.base, this.hooks, work, limits);
    const { overlay, result } = await workInOverlay(this.base, this.hooks, work, limits);
    await commitOverlay(this.lmdb, overlay);
    for (const projection of overlay.checkpoints.keys()) this.notices.notify(projection);
    runCommitted(overlay);
    return result;
  }

  // Leases: changed inside the gate, so a unit's fence check and its commit see the same lease
  // in this process, and each in one LMDB write transaction, so processes sharing the store
  // (read-leases.ts) never both take one.

  async acquireLease(projection: string, holder: string, ttlMs: number): Promise<Lease | undefined> {
    this.assertOpen();
    checkProjectionName(projection);
    checkLeaseArgs(holder, ttlMs);
    return this.gate.exclusive(async () => takeLease(this.lmdb, projection, holder, ttlMs), this.waitFor('a lease'));
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease | undefined> {
    this.assertOpen();
    checkLeaseArgs(lease.holder, ttlMs);
    checkToken(lease.token);
    checkProjectionName(lease.projection);
    return this.gate.exclusive(async () => renewLease(this.lmdb, lease, ttlMs), this.waitFor('a lease'));
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.assertOpen();
    checkProjectionName(lease.projection);
    await this.gate.exclusive(async () => releaseLease(this.lmdb, lease), this.waitFor('a lease'));
  }

  /** Commits notify checkpoints by their names as stored, so the wait is on those too. */
  storedWaitForCheckpoint(projection: string, position: bigint, timeoutMs: number): Promise<boolean> {
    checkProjectionName(projection);
    return this.notices.wait(() => this.storedCheckpoint(projection), projection, position, timeoutMs);
  }

  async storedCheckpoint(projection: string): Promise<bigint | undefined> {
    this.assertOpen();
    const value = this.lmdb.meta.get(['checkpoint', checkProjectionName(projection)]);
    return typeof value === 'string' ? BigInt(value) : undefined;
  }

  async storedVersion(projection: string): Promise<number | undefined> {
    this.assertOpen();
    const value = this.lmdb.meta.get(['version', checkProjectionName(projection)]);
    return typeof value === 'number' ? value : undefined;
  }

  async storedDrop(prefix: string, generation: number): Promise<void> {
    this.assertOpen();
    return this.gate.exclusive(async () => {
      const { lmdb } = this;
      // The catalogue in meta, not this store's memory of it: another store on the directory
      // (the projector thread's) may have made collections since this one opened.
      const doomed = new Set([...lmdb.collections].filter((c) => c.startsWith(prefix) && generationOfName(c) === generation));
      for (const key of lmdb.meta.getKeys({ start: ['collection', prefix], end: ['collection', MAX] })) {
        if (typeof key[1] !== 'string' || !key[1].startsWith(prefix)) break;
        if (generationOfName(key[1]) === generation) doomed.add(key[1]);
      }
      // Opened before the transaction (opening is a transaction of its own).
      const dbs = [...doomed].map((collection) => [collection, lmdb.open(collection)] as const);
      // The checkpoints and versions of the projections named with the prefix, and the doomed collections' index definitions.
      const keys: Key[] = [];
      for (const kind of ['checkpoint', 'version']) {
        for (const key of lmdb.meta.getKeys({ start: [kind, prefix], end: [kind, MAX] })) {
          if (typeof key[1] !== 'string' || !key[1].startsWith(prefix)) break;
          if (generationOfName(key[1]) === generation) keys.push(key);
        }
      }
      for (const collection of doomed) {
        for (const key of lmdb.meta.getKeys({ start: ['index', collection], end: ['index', collection, MAX] })) keys.push(key);
        keys.push(['collection', collection]);
      }
      // One transaction; LMDB frees a dropped database's pages itself: no key passes through JS.
      lmdb.env.transactionSync(() => {
        for (const [, db] of dbs) {
          db.docs.dropSync();
          db.idx.dropSync();
        }
        for (const key of keys) lmdb.meta.removeSync(key);
      });
      for (const collection of doomed) lmdb.forget(collection);
      if (doomed.size) await lmdb.compactAfterDrop();
    }, this.waitFor('drop'));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lmdb.release();
    await this.gate.drain();
    await this.lmdb.env.close();
  }

  // ---- what EmbeddedCollection asks of its store ----

  committedDoc(collection: string, id: string): Doc | undefined {
    this.assertOpen();
    return this.committed.get(collection, id);
  }

  committedView(name: string): OverlayCollection {
    this.assertOpen();
    return new OverlayCollection(name, this.base, new Overlay(), this.hooks);
  }

  async write<T>(name: string, op: (c: Collection) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.gate.exclusive(() => this.runUnit((u) => op(u.collection(name))), this.waitFor(`a write to ${name}`));
  }

  async createIndexesOutsideUnit(name: string, specs: readonly IndexSpec[]): Promise<void> {
    this.assertOpen();
    return this.gate.exclusive(() => buildIndexes(this.lmdb, name, specs), this.waitFor(`createIndex on ${name}`));
  }

  private waitFor(what: string) {
    return { limitMs: this.gateWaitMs, what };
  }

  protected assertOpen(): void {
    if (this.closed) throw new Error('the read store is closed');
  }
}

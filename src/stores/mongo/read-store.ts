/**
 * The MongoDB ReadStore adapter (`mongodb` driver). Filters, sorts, projections and updates go
 * to the server as they are, after the same checks the embedded store makes
 * (read-store-checks.ts), so a caller's bug fails the same way on both.
 *
 * Units: on a replica set or sharded cluster a unit is one multi-document transaction
 * (snapshot reads, majority writes) holding its writes and the checkpoints. On a standalone
 * server, which has no transactions, a unit's writes are buffered in an overlay (reads inside
 * the unit see them) and applied at the end as ordered writes, the checkpoint LAST: a crash
 * part-way leaves documents ahead of the checkpoint, never behind it, and since projections
 * are idempotent the tail they replay after restart rewrites the same documents.
 *
 * Documents always carry string `_id`s: where MongoDB would make an ObjectId for an upsert,
 * the adapter supplies a UUID. Checkpoints live in the `checkpoints` collection as decimal
 * strings (`{_id: projection, position: "…"}`), exact beyond 2^53, with the version the read
 * model was built with beside them (`version: n`; either may be there without the other), and
 * `order`, the position as 20 zero-padded digits, which the conditional write compares: a
 * checkpoint write that would move it backwards matches nothing, its upsert hits the `_id`
 * and is refused (CheckpointBehind).
 *
 * A transaction unit runs in the driver's `withTransaction`, which runs the work again on a
 * TransientTransactionError (a WriteConflict between two writers, a primary stepping down) and
 * retries a commit whose outcome is unknown, with backoff, for up to two minutes. Each run
 * starts afresh; Unit.onCommit's callbacks of the runs thrown away are dropped, those of the
 * run that committed run after the commit (what a fold keeps in memory changes only there).
 *
 * A unit writes at most `unitLimits` (DEFAULT_MONGO_UNIT_LIMITS: 1,000 write calls, 16 MiB):
 * a transaction lives at most 60 s (transactionLifetimeLimitSeconds) and its writes are held
 * in the server's cache until it commits, so a unit past them is refused (UnitTooLarge) and
 * its caller splits it, rather than have the server abort it after a minute of work.
 *
 * Leases (`leases` collection, `{_id: projection, holder, token, expiresAt}`) are taken and
 * renewed with the server's clock (`$$NOW`), so workers on hosts whose clocks differ agree.
 * The fence a unit checks is another document (`fences`, `{_id: projection, token}`: the
 * newest token that took the lease), raised when a lease is taken and written by every fenced
 * unit, never by a renewal: a unit and its worker's renewal a few seconds later would
 * otherwise write one document, and every unit overlapping a renewal would end in a
 * WriteConflict and run again. A takeover still conflicts with the old holder's unit in flight,
 * as it must (both write the fence).
 *
 * On a standalone server (no transactions) a unit's fence and checkpoint are checked before its
 * writes and the checkpoint written last, conditionally; the document writes themselves are
 * not conditional on the fence. They cannot be: without a transaction MongoDB makes a write
 * atomic with one document only, the one it writes, and the fence is another document; making
 * it part of every document (a token field each replace and delete would filter on) would put
 * a store field into every read model document and every query's answer. So a worker whose
 * lease is taken over between the check and its writes (a pause of a whole lease time to
 * live, 15 s by default, in those few milliseconds) may still write that one unit's documents:
 * the same documents the journal makes, possibly older than the new holder's for a moment,
 * until the new holder's next fold of them. Deployments that need the fence exact run a
 * replica set (a one-node replica set will do), where it is part of the transaction.
 */
import { randomUUID } from 'node:crypto';
import {
  MongoClient,
  type ChangeStream,
  type ClientSession,
  type Db,
  type Filter as MongoFilter,
  type Collection as MongoCollection,
  type Sort as MongoSort,
  type UpdateFilter,
} from 'mongodb';
import {
  CheckpointBehind,
  DEFAULT_MONGO_UNIT_LIMITS,
  DuplicateKey,
  LeaseLost,
  type UnitLimits,
  type Collection,
  type Lease,
  type Doc,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type PutManyOptions,
  type Unit,
  type Update,
  type UpdateResult,
} from '../read-store.js';
import {
  CHECKPOINTS_COLLECTION,
  FENCES_COLLECTION,
  LEASES_COLLECTION,
  checkCollectionName,
  checkLeaseArgs,
  checkToken,
  positionOrder,
  checkDoc,
  checkDocs,
  checkFilter,
  checkIndexSpec,
  checkIndexSpecs,
  checkPosition,
  checkProjectionName,
  checkReplacement,
  checkUpdate,
  checkVersion,
  equalityFields,
  filterId,
} from '../read-store-checks.js';
import { GenerationalReadStore, generationOfName } from '../read-store-generations.js';
import { checkFindOptions, onCommitOf, Overlay, runCommitted, workInOverlay, type BaseReader, type IdSet, type OverlayHooks } from '../read-store-unit.js';
import { CheckpointNotices } from '../checkpoint-notices.js';
import { RestartingStream } from './restarting-stream.js';

export interface MongoReadStoreOptions {
  /** `mongodb://…` or `mongodb+srv://…`. */
  url: string;
  /** Database name; default: the one named in the url, else `town`. */
  database?: string;
  /** `never` uses buffered units even where transactions exist (tests the standalone path). */
  transactions?: 'auto' | 'never';
  /** What one unit may write (default DEFAULT_MONGO_UNIT_LIMITS); null: no limit. */
  unitLimits?: UnitLimits | null;
  /** Told of each change stream failure, before it is opened again (MongoReadStore.changeStreamRestarts counts them). */
  onStreamRestart?(error: unknown): void;
}

export function databaseFromUrl(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]+)/.exec(url);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

export async function openMongoReadStore(options: MongoReadStoreOptions): Promise<MongoReadStore> {
  const client = new MongoClient(options.url, { ignoreUndefined: true, serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const db = client.db(options.database ?? databaseFromUrl(options.url) ?? 'town');
    // `hello` since MongoDB 4.4.2; older servers only answer `isMaster`.
    const hello = await db
      .admin()
      .command({ hello: 1 })
      .catch(() => db.admin().command({ isMaster: 1 }));
    const transactions = options.transactions !== 'never' && (typeof hello.setName === 'string' || hello.msg === 'isdbgrid');
    const stored = await db.collection<CheckpointDoc>(CHECKPOINTS_COLLECTION).findOne({ _id: generationId });
    const limits = options.unitLimits === null ? undefined : (options.unitLimits ?? DEFAULT_MONGO_UNIT_LIMITS);
    const store = new MongoReadStore(client, db, transactions, typeof stored?.generation === 'number' ? stored.generation : 0, limits);
    if (options.onStreamRestart) store.onStreamRestart = options.onStreamRestart;
    return store;
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** MongoDB's duplicate key error (E11000), from a single write or a bulk write. */
function duplicateOf(error: unknown, collection: string): DuplicateKey | undefined {
  const e = error as { code?: number; keyValue?: unknown; writeErrors?: unknown; errmsg?: string };
  const writes = Array.isArray(e?.writeErrors) ? e.writeErrors : e?.writeErrors ? [e.writeErrors] : [];
  const write = writes.find((w: { code?: number }) => w?.code === 11000) as { err?: { keyValue?: unknown; errmsg?: string } } | undefined;
  if (e?.code !== 11000 && !write) return undefined;
  const keyValue = e.keyValue ?? write?.err?.keyValue;
  return new DuplicateKey(collection, keyValue ? JSON.stringify(keyValue) : (e.errmsg ?? write?.err?.errmsg ?? 'E11000'));
}

async function mapped<T>(collection: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    throw duplicateOf(error, collection) ?? error;
  }
}

function toResult(r: { matchedCount: number; modifiedCount: number; upsertedCount: number; upsertedId: unknown }): UpdateResult {
  const out: UpdateResult = { matched: r.matchedCount, modified: r.modifiedCount };
  if (r.upsertedCount > 0 && r.upsertedId !== null && r.upsertedId !== undefined) out.upsertedId = String(r.upsertedId);
  return out;
}

/**
 * The current generation's document in the checkpoints collection: no projection may be named
 * so (a projection name with `#` would be a bug of ours, and drops pass this one over).
 */
const generationId = '#generation';

export class MongoReadStore extends GenerationalReadStore {
  private readonly checkpoints: MongoCollection<CheckpointDoc>;
  private readonly leases: MongoCollection<LeaseDoc>;
  private readonly fences: MongoCollection<FenceDoc>;
  private readonly notices = new CheckpointNotices();
  /** Commits of checkpoints heard on a replica set (undefined until a wait asks), opened again after a failure. */
  private changes: RestartingStream | undefined;
  /** Told of each change stream failure (MongoReadStoreOptions.onStreamRestart). */
  onStreamRestart: ((error: unknown) => void) | undefined;
  private readonly base: BaseReader;
  private readonly hooks: OverlayHooks;
  private closed = false;

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    /** Whether units run as server transactions. */
    readonly transactions: boolean,
    generation = 0,
    readonly unitLimits: UnitLimits | undefined = DEFAULT_MONGO_UNIT_LIMITS,
  ) {
    super(generation);
    this.checkpoints = db.collection(CHECKPOINTS_COLLECTION);
    this.leases = db.collection(LEASES_COLLECTION);
    this.fences = db.collection(FENCES_COLLECTION);
    this.base = {
      get: async (collection, id) => ((await this.raw(collection).findOne({ _id: id })) as Doc | null) ?? undefined,
      find: async (collection, filter, sort, limit, exclude) => {
        const options: { sort?: MongoSort; limit?: number } = {};
        if (sort && Object.keys(sort).length) options.sort = sort as MongoSort;
        if (limit !== undefined) options.limit = limit;
        return (await this.raw(collection).find(excluding(filter, exclude), options).toArray()) as Doc[];
      },
      count: (collection, filter, exclude) => this.raw(collection).countDocuments(excluding(filter, exclude)),
    };
    this.hooks = { createIndexes: (collection, specs) => createIndexes(this.raw(collection), specs) };
  }

  raw(name: string): MongoCollection<Doc> {
    return this.db.collection<Doc>(name);
  }

  protected async keepGeneration(generation: number): Promise<void> {
    await this.checkpoints.updateOne({ _id: generationId }, { $set: { generation } }, { upsert: true, writeConcern: { w: 'majority' } });
  }

  // ---- names as stored (generation prefix included): what the generation views call ----

  storedCollection(name: string): Collection {
    this.assertOpen();
    return new MongoDocs(checkCollectionName(name), this.raw(name), undefined);
  }

  async storedUnit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.gate.exclusive(() => (this.transactions ? this.transactionUnit(work) : this.bufferedUnit(work)));
  }

  private async transactionUnit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    const session = this.client.startSession();
    try {
      let result!: T;
      // An index build waits for transactions on its collection: one started from inside the
      // transaction would wait for itself, so index builds asked for in a unit run after it.
      let indexes: [string, IndexSpec][] = [];
      let moved: Iterable<string> = [];
      // The run whose writes committed (withTransaction may retry the commit alone).
      let last: Overlay | undefined;
      await session.withTransaction(
        async () => {
          // Each attempt starts afresh: the work runs again after a transient error, and what
          // the runs before it registered with onCommit is dropped with them.
          const overlay = new Overlay(this.unitLimits);
          last = overlay;
          indexes = [];
          const unit: Unit = {
            collection: (name) => new MongoDocs(checkCollectionName(name), this.raw(name), session, overlay, indexes),
            setCheckpoint: (projection, position) => {
              if (overlay.finished) throw new Error('this unit has already ended');
              overlay.checkpoints.set(checkProjectionName(projection), checkPosition(position));
            },
            setVersion: (projection, version) => {
              if (overlay.finished) throw new Error('this unit has already ended');
              overlay.versions.set(checkProjectionName(projection), checkVersion(version));
            },
            fence: (lease) => {
              if (overlay.finished) throw new Error('this unit has already ended');
              overlay.fences.set(checkProjectionName(lease.projection), checkToken(lease.token));
            },
            onCommit: (fn) => onCommitOf(overlay, fn),
          };
          // The overlay is used only to serialise the unit's operations and remember a failure.
          try {
            result = await work(unit);
            await overlay.run(async () => undefined).catch(() => undefined);
          } finally {
            overlay.finished = true;
          }
          if (overlay.failed) throw overlay.failed;
          if (overlay.empty) return;
          // The fence is a write (to `fences`, which renewals never touch): a worker taking the
          // lease over meanwhile conflicts with it.
          for (const [projection, token] of overlay.fences) await this.writeFence(projection, token, session);
          await this.writeCheckpoints(overlay, session);
          moved = [...overlay.checkpoints.keys()];
        },
        { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' }, readPreference: 'primary' },
      );
      for (const projection of moved) this.notices.notify(projection);
      for (const [name, spec] of indexes) await createIndex(this.raw(name), spec);
      if (last) runCommitted(last);
      return result;
    } finally {
      await session.endSession();
    }
  }

  /**
   * A unit's fence: the projection's fence document, raised to `token` unless a newer token
   * took the lease (then nothing matches, the upsert hits the `_id`: LeaseLost). Always a
   * change (`fencedAt`), so that in a transaction it conflicts with a takeover.
   */
  private async writeFence(projection: string, token: number, session: ClientSession): Promise<void> {
    try {
      await this.fences.updateOne(
        { _id: projection, token: { $lte: token } },
        { $max: { token }, $currentDate: { fencedAt: true } },
        { upsert: true, session },
      );
    } catch (error) {
      if ((error as { code?: number }).code === 11000) throw new LeaseLost(projection, token);
      throw error;
    }
  }

  /** The unit's checkpoints (never backwards) and versions, one conditional upsert per projection. */
  private async writeCheckpoints(overlay: Overlay, session?: ClientSession): Promise<void> {
    for (const [projection, set] of checkpointSets(overlay)) {
      const position = overlay.checkpoints.get(projection);
      const filter: MongoFilter<CheckpointDoc> =
        position === undefined ? { _id: projection } : { _id: projection, $or: [{ order: { $exists: false } }, { order: { $lte: positionOrder(position) } }] };
      try {
        await this.checkpoints.updateOne(filter, { $set: set }, { upsert: true, ...(session ? { session } : {}) });
      } catch (error) {
        if (position !== undefined && (error as { code?: number }).code === 11000) throw new CheckpointBehind(projection, position);
        throw error;
      }
    }
  }

  private async bufferedUnit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    const { overlay, result } = await workInOverlay(this.base, this.hooks, work, this.unitLimits);
    if (overlay.empty) {
      runCommitted(overlay);
      return result;
    }
    // Without transactions the fence and the checkpoint are checked before the writes (and the
    // checkpoint written conditionally after them): a worker that lost its lease before the
    // unit writes nothing. Why the writes themselves are not conditional: the top of the file.
    for (const [projection, token] of overlay.fences) {
      const fence = await this.fences.findOne({ _id: projection });
      if (fence && fence.token > token) throw new LeaseLost(projection, token);
      if (!(await this.leases.findOne({ _id: projection, token }))) throw new LeaseLost(projection, token);
    }
    for (const [projection, position] of overlay.checkpoints) {
      const have = await this.checkpoint(projection);
      if (have !== undefined && have > position) throw new CheckpointBehind(projection, position);
    }
    for (const [collection, pending] of overlay.docs) {
      if (pending.size === 0) continue;
      const ops = [...pending].map(([id, doc]) =>
        doc ? { replaceOne: { filter: { _id: id }, replacement: doc, upsert: true } } : { deleteOne: { filter: { _id: id } } },
      );
      await mapped(collection, () => this.raw(collection).bulkWrite(ops, { ordered: true }));
    }
    // Last: a crash before this line replays the unit's events, it never skips them.
    await this.writeCheckpoints(overlay);
    for (const projection of overlay.checkpoints.keys()) this.notices.notify(projection);
    runCommitted(overlay);
    return result;
  }

  async storedCheckpoint(projection: string): Promise<bigint | undefined> {
    this.assertOpen();
    const doc = await this.checkpoints.findOne({ _id: checkProjectionName(projection) });
    return typeof doc?.position === 'string' ? BigInt(doc.position) : undefined;
  }

  async storedVersion(projection: string): Promise<number | undefined> {
    this.assertOpen();
    const doc = await this.checkpoints.findOne({ _id: checkProjectionName(projection) });
    return typeof doc?.version === 'number' ? doc.version : undefined;
  }

  async acquireLease(projection: string, holder: string, ttlMs: number): Promise<Lease | undefined> {
    this.assertOpen();
    checkProjectionName(projection);
    checkLeaseArgs(holder, ttlMs);
    let doc: LeaseDoc | null;
    try {
      // Free, expired or ours: taken with the next token. Held by another: the filter matches
      // nothing, the upsert hits the `_id`, and the lease is not ours.
      doc = await this.leases.findOneAndUpdate(
        { _id: projection, $or: [{ holder }, { $expr: { $lt: ['$expiresAt', '$$NOW'] } }] },
        [{ $set: { holder, token: { $add: [{ $ifNull: ['$token', 0] }, 1] }, expiresAt: { $add: ['$$NOW', ttlMs] } } }],
        { upsert: true, returnDocument: 'after' },
      );
    } catch (error) {
      if ((error as { code?: number }).code === 11000) return undefined;
      throw error;
    }
    if (!doc) return undefined;
    // The fence follows: from now on a unit fenced with an older token is refused. (Should this
    // worker stop between the two writes, its first fenced unit raises the fence itself.)
    for (let attempt = 0; ; attempt++) {
      try {
        await this.fences.updateOne({ _id: projection }, { $max: { token: doc.token } }, { upsert: true });
        break;
      } catch (error) {
        // Two first upserts of the document at once: the other made it, so this one updates it.
        if ((error as { code?: number }).code !== 11000 || attempt > 0) throw error;
      }
    }
    return leaseOf(doc);
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease | undefined> {
    this.assertOpen();
    checkLeaseArgs(lease.holder, ttlMs);
    const doc = await this.leases.findOneAndUpdate(
      { _id: checkProjectionName(lease.projection), holder: lease.holder, token: checkToken(lease.token) },
      [{ $set: { expiresAt: { $add: ['$$NOW', ttlMs] } } }],
      { returnDocument: 'after' },
    );
    return doc ? leaseOf(doc) : undefined;
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.assertOpen();
    await this.leases.updateOne({ _id: checkProjectionName(lease.projection), holder: lease.holder, token: lease.token }, { $set: { expiresAt: new Date(0) } });
  }

  /** The change stream tells checkpoints by their names as stored, so the wait is on those too. */
  storedWaitForCheckpoint(projection: string, position: bigint, timeoutMs: number): Promise<boolean> {
    this.assertOpen();
    checkProjectionName(projection);
    this.listen();
    return this.notices.wait(() => this.storedCheckpoint(projection), projection, position, timeoutMs);
  }

  /**
   * On a replica set, one change stream on the checkpoints tells every waiting read of every
   * commit (a worker in another process included); where there is none (a standalone server),
   * the waits poll with their backoff, and so they do while a failed stream waits to be opened
   * again (mongo/restarting-stream.ts: backoff from 100 ms to 30 s, each restart counted).
   */
  private listen(): void {
    if (this.changes !== undefined || !this.transactions || this.closed) return;
    this.changes = new RestartingStream({
      open: () => this.checkpoints.watch([], { fullDocument: 'default' }) as ChangeStream,
      onChange: (change) => {
        const key = (change as { documentKey?: { _id?: unknown } }).documentKey?._id;
        if (typeof key === 'string') this.notices.notify(key);
      },
      onError: (error) => this.onStreamRestart?.(error),
    });
  }

  /** Change streams opened again after a failure since the store opened. */
  get changeStreamRestarts(): number {
    return this.changes?.restarts ?? 0;
  }

  async storedDrop(prefix: string, generation: number): Promise<void> {
    this.assertOpen();
    const names = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    for (const name of names) {
      // Leases stay: their tokens must never repeat, or a fence could pass for an older worker.
      if (!name.startsWith(prefix) || name === CHECKPOINTS_COLLECTION || name === LEASES_COLLECTION || name === FENCES_COLLECTION || name.startsWith('system.'))
        continue;
      if (generationOfName(name) !== generation) continue;
      try {
        await this.db.dropCollection(name);
      } catch (error) {
        if ((error as { code?: number }).code !== 26) throw error; // NamespaceNotFound: dropped meanwhile
      }
    }
    const matching = await this.checkpoints
      .find({ _id: { $regex: `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` } }, { projection: { _id: 1 } })
      .toArray();
    const doomed = matching.map((d) => d._id).filter((id) => id !== generationId && generationOfName(id) === generation);
    if (doomed.length) await this.checkpoints.deleteMany({ _id: { $in: doomed } });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.gate.drain();
    await this.changes?.close();
    await this.client.close();
  }

  /** For tests: remove the whole database. */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  protected assertOpen(): void {
    if (this.closed) throw new Error('the read store is closed');
  }
}

/** A projection's checkpoint and the version its read model was built with (either may be absent). */
interface CheckpointDoc {
  _id: string;
  position?: string;
  /** The position as 20 zero-padded digits: compared as text, it orders as the number. */
  order?: string;
  version?: number;
  /** Only on the `#generation` document: the current generation. */
  generation?: number;
}

interface LeaseDoc {
  _id: string;
  holder: string;
  token: number;
  expiresAt: Date;
}

/** A projection's fence: the newest token that took its lease, and when a unit last wrote under it. */
interface FenceDoc {
  _id: string;
  token: number;
  fencedAt?: Date;
}

const leaseOf = (doc: LeaseDoc): Lease => ({ projection: doc._id, holder: doc.holder, token: doc.token, expiresAt: doc.expiresAt.getTime() });

/** A unit's checkpoints and versions as the fields to set, one entry per projection. */
function checkpointSets(overlay: Overlay): Map<string, { position?: string; order?: string; version?: number }> {
  const sets = new Map<string, { position?: string; order?: string; version?: number }>();
  for (const [projection, position] of overlay.checkpoints) sets.set(projection, { position: position.toString(), order: positionOrder(position) });
  for (const [projection, version] of overlay.versions) sets.set(projection, { ...sets.get(projection), version });
  return sets;
}

function excluding(filter: Filter, exclude: IdSet): MongoFilter<Doc> {
  if (exclude.size === 0) return filter as MongoFilter<Doc>;
  return { $and: [filter, { _id: { $nin: [...exclude.keys()] } }] } as MongoFilter<Doc>;
}

async function createIndex(raw: MongoCollection<Doc>, spec: IndexSpec): Promise<void> {
  return createIndexes(raw, [spec]);
}

/**
 * One createIndexes command: the server checks every index against the others and those there
 * before it builds any (IndexOptionsConflict, IndexKeySpecsConflict), and builds them in one
 * pass over the collection, from a sorted bulk load.
 */
async function createIndexes(raw: MongoCollection<Doc>, specs: readonly IndexSpec[]): Promise<void> {
  const checked = checkIndexSpecs(specs).filter((c) => !(c.keys.length === 1 && c.keys[0]![0] === '_id')); // _id: always there
  if (!checked.length) return;
  // Two specs of one call that clash are refused before the server sees them, as the embedded store refuses them.
  for (const [i, c] of checked.entries()) {
    for (const d of checked.slice(0, i)) {
      const sameKeys = JSON.stringify(c.keys) === JSON.stringify(d.keys);
      if (c.name === d.name && !(sameKeys && c.unique === d.unique))
        throw new Error(`index ${c.name} on ${raw.collectionName} already exists with other keys or options`);
      if (c.name !== d.name && sameKeys) throw new Error(`an index on ${raw.collectionName} with these keys already exists, named ${d.name}`);
    }
  }
  await mapped(raw.collectionName, () =>
    raw.createIndexes(checked.map((c) => ({ key: Object.fromEntries(c.keys), name: c.name, ...(c.unique ? { unique: true } : {}) }))),
  );
}

/**
 * A collection on the server: outside units (no session) or inside a transaction (`session`,
 * with the unit's overlay serialising operations and dooming the unit on a failure).
 */
class MongoDocs implements Collection {
  constructor(
    readonly name: string,
    private readonly raw: MongoCollection<Doc>,
    private readonly session: ClientSession | undefined,
    private readonly overlay?: Overlay,
    private readonly deferredIndexes?: [string, IndexSpec][],
  ) {}

  private read<T>(op: () => Promise<T>): Promise<T> {
    return this.overlay ? this.overlay.run(op) : op();
  }

  /**
   * A write; in a unit, `spend` counts it (what it carries, once checked) against the unit's
   * limits before it goes to the server (UnitLimits).
   */
  private async write<T>(op: (spend: (payload: unknown) => void) => Promise<T>): Promise<T> {
    const overlay = this.overlay;
    if (!overlay) return mapped(this.name, () => op(() => undefined));
    return overlay.run(() => mapped(this.name, () => op((payload) => overlay.spend(payload))));
  }

  findOne(filter: Filter, options?: FindOptions): Promise<Doc | null> {
    return this.read(async () => (await this.findNow(filter, { ...options, limit: 1 }))[0] ?? null);
  }

  find(filter: Filter, options?: FindOptions): Promise<Doc[]> {
    return this.read(() => this.findNow(filter, options));
  }

  private async findNow(filter: Filter, options: FindOptions | undefined): Promise<Doc[]> {
    checkFilter(filter);
    const { sort, skip, limit } = checkFindOptions(options);
    const cursor = this.raw.find(filter as MongoFilter<Doc>, {
      session: this.session,
      ...(sort && Object.keys(sort).length ? { sort: sort as MongoSort } : {}),
      ...(skip ? { skip } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(options?.projection ? { projection: options.projection } : {}),
    });
    return (await cursor.toArray()) as Doc[];
  }

  count(filter: Filter): Promise<number> {
    return this.read(() => this.raw.countDocuments(checkFilter(filter) as MongoFilter<Doc>, { session: this.session }));
  }

  insertOne(doc: Doc): Promise<void> {
    return this.write(async (spend) => {
      const checked = checkDoc(doc);
      spend(checked);
      await this.raw.insertOne(checked, { session: this.session });
    });
  }

  replaceOne(filter: Filter, doc: Doc, options?: { upsert?: boolean }): Promise<UpdateResult> {
    return this.write(async (spend) => {
      checkFilter(filter);
      const replacement = checkReplacement(doc);
      spend(replacement);
      if (options?.upsert && replacement._id === undefined && filterId(filter) === undefined) {
        // Keep the matched document's id, or give an inserted one a string id.
        const existing = await this.raw.findOne(filter as MongoFilter<Doc>, { projection: { _id: 1 }, session: this.session });
        replacement._id = existing?._id ?? randomUUID();
      }
      const r = await this.raw.replaceOne(filter as MongoFilter<Doc>, replacement, { upsert: options?.upsert === true, session: this.session });
      return toResult(r);
    });
  }

  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    return this.write(async (spend) => {
      checkFilter(filter);
      const checked = checkUpdate(update);
      spend([filter, checked]);
      const idFixed = equalityFields(filter).some(([k]) => k === '_id') || checked.$set?._id !== undefined || checked.$setOnInsert?._id !== undefined;
      if (options?.upsert && !idFixed) checked.$setOnInsert = { ...(checked.$setOnInsert ?? {}), _id: randomUUID() };
      const r = await this.raw.updateOne(filter as MongoFilter<Doc>, checked as UpdateFilter<Doc>, { upsert: options?.upsert === true, session: this.session });
      return toResult(r);
    });
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.write(async (spend) => {
      spend(checkFilter(filter));
      return (await this.raw.deleteMany(filter as MongoFilter<Doc>, { session: this.session })).deletedCount;
    });
  }

  putMany(docs: Doc[], options?: PutManyOptions): Promise<void> {
    return this.write(async (spend) => {
      // Handed over: the driver serialises them here, and nothing else holds them.
      const checked = checkDocs(docs, options?.handOver);
      if (!checked.length) return;
      spend(checked);
      const ops = checked.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } }));
      await this.raw.bulkWrite(ops, { ordered: false, session: this.session });
    });
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    if (this.deferredIndexes) {
      checkIndexSpec(spec);
      this.deferredIndexes.push([this.name, spec]);
      return;
    }
    return this.write(() => createIndex(this.raw, spec));
  }

  async createIndexes(specs: IndexSpec[]): Promise<void> {
    if (this.deferredIndexes) {
      checkIndexSpecs(specs);
      for (const spec of specs) this.deferredIndexes.push([this.name, spec]);
      return;
    }
    return this.write(() => createIndexes(this.raw, specs));
  }
}

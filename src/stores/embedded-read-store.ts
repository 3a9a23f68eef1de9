/**
 * The embedded ReadStore adapter: MongoDB-shaped collections kept in an LMDB environment in
 * the process (`<dataDir>/read`), with filters and updates meaning what they mean on MongoDB
 * (evaluated by mingo, see read-store-documents.ts).
 *
 * Layout (named databases, ordered-binary keys), two per collection so that dropping a read
 * model drops whole LMDB databases instead of removing its entries one by one:
 *   d:<collection>  [_id]                                  -> document (msgpack)
 *   i:<collection>  [index, rank, value, …, _id]           -> true   (see embedded-read-keys.ts)
 *   meta            ['layout']                             -> LAYOUT
 *                   ['collection', name]                   -> 1
 *                   ['index', collection, name]            -> IndexDef
 *                   ['checkpoint', projection]             -> position (decimal string)
 * Plans (embedded-read-plan.ts) speak of keys that start with the collection's name; the
 * collection's own databases are keyed without it.
 *
 * A store in an older layout holds nothing that cannot be folded again: it is emptied on open
 * (checkpoints too), and the projectors rebuild it from the journal.
 *
 * Indexes are persisted and maintained in the same LMDB transaction as the documents, so a
 * reopened store has them at once (nothing is rebuilt on open). Queries are planned over them
 * (embedded-read-plan.ts) and every candidate is tested against the whole filter.
 *
 * Units: writes are buffered in an overlay (read-store-unit.ts) while `work` runs, then applied
 * in ONE abortable LMDB transaction that also writes the checkpoints; it commits durably (fsync)
 * or not at all. Units, single writes, index builds and drops are serialised by one gate, so
 * a unit's reads of the committed state cannot change under it. Reads outside units never wait:
 * each runs synchronously against one LMDB snapshot.
 *
 * One process owns the directory (the in-memory index list and the gate are per process).
 */
import fs from 'node:fs';
import path from 'node:path';
import { asBinary, open, type Database, type DatabaseOptions, type Key as LmdbKey, type RootDatabase } from 'lmdb';
import {
  DuplicateKey,
  type Collection,
  type Doc,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type ReadStore,
  type Sort,
  type Unit,
  type Update,
  type UpdateResult,
} from './read-store.js';
import { checkCollectionName, checkIndexSpec, checkProjectionName } from './read-store-checks.js';
import { matcher, sortDocs } from './read-store-documents.js';
import { Overlay, OverlayCollection, UnitGate, workInOverlay, type BaseReader, type IdSet, type OverlayHooks } from './read-store-unit.js';
import { entriesFor, keyValue, MAX, maybeCut, type Entry, type IndexDef } from './embedded-read-keys.js';
import { plan, type Plan, type ScanRange } from './embedded-read-plan.js';

type Key = LmdbKey[];

/** An index entry's value, `true`, encoded once (msgpack 0xc3) instead of at every put. */
const TRUE = asBinary(Uint8Array.of(0xc3));

/** The layout written in `meta` (see the header); an older store is emptied on open. */
const LAYOUT = 2;
/** Each collection takes two LMDB databases (and meta one): this bounds a store's collections. */
const MAX_DBS = 1000;

/** A collection's two databases. */
interface CollectionDbs {
  docs: Database<Doc, Key>;
  idx: Database<boolean, Key>;
}

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
}

export async function openEmbeddedReadStore(options: EmbeddedReadStoreOptions): Promise<EmbeddedReadStore> {
  const dir = path.join(options.dataDir, 'read');
  fs.mkdirSync(dir, { recursive: true });
  return new EmbeddedReadStore(openEnv(dir), options.gateWaitMs ?? 30_000, fs.realpathSync(dir), options.compactAtPages);
}

function openEnv(dir: string): RootDatabase {
  return open({
    path: dir,
    // As the event store: a commit is visible only once it is on disk (docs/decisions.md (event-store)).
    overlappingSync: false,
    noSync: false,
    maxDbs: MAX_DBS,
  });
}

/** Pages a database's B-tree holds (lmdb's getStats). */
function pagesOf(stats: unknown): number {
  const s = stats as { treeBranchPageCount?: number; treeLeafPageCount?: number; overflowPages?: number };
  return (s.treeBranchPageCount ?? 0) + (s.treeLeafPageCount ?? 0) + (s.overflowPages ?? 0);
}

/** A drop that leaves the file this big (pages) and at most a quarter of it live compacts it. */
const COMPACT_PAGES = 4096;

/**
 * Stores open on each directory in this process. lmdb shares one environment between them, so
 * a store swapping the file under another would leave that one writing to the old file: a store
 * compacts only while it is the directory's only one.
 */
const openHere = new Map<string, number>();

/** What queries touched, so tests can tell an index lookup from a collection scan. */
export interface ReadStats {
  /** Documents fetched and decoded by finds and counts. */
  docsRead: number;
  /** Index entries visited. */
  keysRead: number;
}

export class EmbeddedReadStore implements ReadStore {
  private readonly dbs = new Map<string, CollectionDbs>();
  private meta: Database<unknown, Key>;
  private readonly indexes = new Map<string, IndexDef[]>();
  private readonly collections = new Set<string>();
  private readonly gate = new UnitGate();
  /** Per-unit map of pending unique keys, so a unit's own writes are checked against each other. */
  private readonly pendingKeys = new WeakMap<Overlay, Map<string, Map<string, string>>>();
  private closed = false;
  readonly stats: ReadStats = { docsRead: 0, keysRead: 0 };
  private readonly base: BaseReader;
  private readonly hooks: OverlayHooks;

  constructor(
    private env: RootDatabase,
    private readonly gateWaitMs = 30_000,
    /** The environment's directory, when the store may compact it (see compactAfterDrop). */
    private readonly dir?: string,
    private readonly compactAtPages = COMPACT_PAGES,
  ) {
    this.meta = env.openDB<unknown, Key>({ name: 'meta' });
    if (dir) openHere.set(dir, (openHere.get(dir) ?? 0) + 1);
    if (this.meta.get(['layout']) !== LAYOUT) this.resetLayout();
    for (const { key, value } of this.meta.getRange({ start: ['index'], end: ['index', MAX] })) {
      const def = value as IndexDef;
      const collection = key[1] as string;
      this.indexes.set(collection, [...(this.indexes.get(collection) ?? []), def]);
    }
    for (const key of this.meta.getKeys({ start: ['collection'], end: ['collection', MAX] })) {
      this.collections.add(key[1] as string);
      this.open(key[1] as string);
    }
    this.base = {
      get: async (collection, id) => this.getDoc(collection, id),
      find: async (collection, filter, sort, limit, exclude) => this.findCommitted(collection, filter, sort, limit, exclude),
      count: async (collection, filter, exclude) => this.countCommitted(collection, filter, exclude),
    };
    this.hooks = {
      beforeWrite: (collection, id, next, overlay) => this.checkUnique(collection, id, next, overlay),
      createIndex: (collection, spec) => this.buildIndex(checkCollectionName(collection), spec),
    };
  }

  collection(name: string): Collection {
    this.assertOpen();
    return new EmbeddedCollection(checkCollectionName(name), this);
  }

  async unit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.gate.exclusive(() => this.runUnit(work));
  }

  private async runUnit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    const { overlay, result } = await workInOverlay(this.base, this.hooks, work);
    await this.commit(overlay);
    return result;
  }

  async checkpoint(projection: string): Promise<bigint | undefined> {
    this.assertOpen();
    const value = this.meta.get(['checkpoint', checkProjectionName(projection)]);
    return typeof value === 'string' ? BigInt(value) : undefined;
  }

  async drop(prefix = ''): Promise<void> {
    this.assertOpen();
    return this.gate.exclusive(async () => {
      const doomed = [...this.collections].filter((c) => c.startsWith(prefix));
      const checkpoints: Key[] = [];
      for (const key of this.meta.getKeys({ start: ['checkpoint', prefix], end: ['checkpoint', MAX] })) {
        if (typeof key[1] === 'string' && key[1].startsWith(prefix)) checkpoints.push(key);
        else break;
      }
      // One transaction; LMDB frees a dropped database's pages itself: no key passes through JS.
      this.env.transactionSync(() => {
        for (const collection of doomed) {
          const dbs = this.dbs.get(collection);
          dbs?.docs.dropSync();
          dbs?.idx.dropSync();
          for (const def of this.indexes.get(collection) ?? []) this.meta.removeSync(['index', collection, def.name]);
          this.meta.removeSync(['collection', collection]);
        }
        for (const key of checkpoints) this.meta.removeSync(key);
      });
      for (const collection of doomed) {
        this.collections.delete(collection);
        this.indexes.delete(collection);
        this.dbs.delete(collection);
      }
      if (doomed.length) await this.compactAfterDrop();
    }, this.waitFor('drop'));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.dir) {
      const left = (openHere.get(this.dir) ?? 1) - 1;
      if (left > 0) openHere.set(this.dir, left);
      else openHere.delete(this.dir);
    }
    await this.gate.drain();
    await this.env.close();
  }

  // ---- used by EmbeddedCollection ----

  /** A collection view with no pending writes: reads the committed state. */
  committedView(name: string): OverlayCollection {
    this.assertOpen();
    return new OverlayCollection(name, this.base, new Overlay(), this.hooks);
  }

  /** A single write outside units: a unit of its own. */
  async write<T>(name: string, op: (c: Collection) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.gate.exclusive(() => this.runUnit((u) => op(u.collection(name))), this.waitFor(`a write to ${name}`));
  }

  async createIndexOutsideUnit(name: string, spec: IndexSpec): Promise<void> {
    this.assertOpen();
    return this.gate.exclusive(() => this.buildIndex(name, spec), this.waitFor(`createIndex on ${name}`));
  }

  private waitFor(what: string) {
    return { limitMs: this.gateWaitMs, what };
  }

  /**
   * A collection's databases, opened (created) on first use. Only in the gate or at open:
   * opening runs a synchronous LMDB transaction, which must not land in a commit's batch.
   */
  private open(collection: string): CollectionDbs {
    let dbs = this.dbs.get(collection);
    if (!dbs) {
      dbs = {
        // Plain msgpack maps: records (shared structures) encode these documents ~30 % slower,
        // and read back no faster (measured on the read models' own documents).
        docs: this.env.openDB<Doc, Key>({ name: `d:${collection}`, useRecords: false } as DatabaseOptions & { name: string }),
        idx: this.env.openDB<boolean, Key>({ name: `i:${collection}` }),
      };
      this.dbs.set(collection, dbs);
    }
    return dbs;
  }

  /**
   * A collection's databases for reading, or undefined when it holds nothing. Another process
   * (a projector worker) may have created it since this store opened: meta says so, in the
   * same transaction as its first documents.
   */
  private existing(collection: string): CollectionDbs | undefined {
    const dbs = this.dbs.get(collection);
    if (dbs || this.meta.get(['collection', collection]) === undefined) return dbs;
    return this.open(collection);
  }

  /**
   * After a drop that freed most of the file (a rebuild's), copies what is left into a fresh
   * file and swaps it in. LMDB reuses freed pages through its free list, and writing a whole
   * read model again into a file full of them was measured ~30 % slower than into a fresh one
   * (200,000 events: 29 s against 21.5 s). The copy is a consistent snapshot and the swap a
   * rename, so a crash leaves the old file or the new one. Only in the gate; reads made while
   * the environment is swapped (none in a rebuild, which runs on a stopped town) would fail.
   */
  private async compactAfterDrop(): Promise<void> {
    if (!this.dir || (openHere.get(this.dir) ?? 0) > 1) return;
    const stats = this.env.getStats() as { lastPageNumber?: number; root?: unknown; free?: unknown };
    const used = stats.lastPageNumber ?? 0;
    if (used < this.compactAtPages) return;
    let live = pagesOf(stats) + pagesOf(stats.free) + pagesOf(this.meta.getStats());
    for (const dbs of this.dbs.values()) live += pagesOf(dbs.docs.getStats()) + pagesOf(dbs.idx.getStats());
    if (live * 4 > used) return;
    const fresh = `${this.dir}.compact-${process.pid}`;
    fs.rmSync(fresh, { recursive: true, force: true });
    fs.mkdirSync(fresh);
    await this.env.backup(fresh, true);
    await this.env.close();
    fs.renameSync(path.join(fresh, 'data.mdb'), path.join(this.dir, 'data.mdb'));
    fs.rmSync(fresh, { recursive: true, force: true });
    // The lock file describes the old file's readers and transactions: LMDB makes a new one.
    fs.rmSync(path.join(this.dir, 'lock.mdb'), { force: true });
    this.env = openEnv(this.dir);
    this.meta = this.env.openDB<unknown, Key>({ name: 'meta' });
    const names = [...this.dbs.keys()];
    this.dbs.clear();
    for (const name of names) this.open(name);
  }

  /** Empties a store of another layout (or a new one) and marks it with this layout. */
  private resetLayout(): void {
    this.env.transactionSync(() => {
      // Another process (a projector worker) may have opened the store first: then it is done.
      if (this.meta.get(['layout']) === LAYOUT) return;
      for (const name of ['docs', 'idx']) {
        // The first layout's shared databases; opening creates them when absent, then both go.
        this.env.openDB({ name }).dropSync();
      }
      for (const key of this.meta.getKeys({ start: ['collection'], end: ['collection', MAX] })) {
        const name = key[1] as string;
        for (const prefix of ['d:', 'i:']) this.env.openDB({ name: `${prefix}${name}` }).dropSync();
      }
      this.meta.clearSync();
      this.meta.putSync(['layout'], LAYOUT);
    });
  }

  // ---- committed reads ----

  private assertOpen(): void {
    if (this.closed) throw new Error('the read store is closed');
  }

  /** A committed document by id (each call decodes a fresh copy: the caller may change it). */
  committedDoc(collection: string, id: string): Doc | undefined {
    return this.getDoc(collection, id);
  }

  private getDoc(collection: string, id: string): Doc | undefined {
    this.assertOpen();
    return this.existing(collection)?.docs.get([id]);
  }

  private defs(collection: string): IndexDef[] {
    return this.indexes.get(collection) ?? [];
  }

  /** Documents a plan may match, in the plan's order (each at most once). */
  private *candidates(collection: string, p: Plan): Generator<Doc> {
    const dbs = this.existing(collection);
    if (!dbs) return; // never written
    switch (p.kind) {
      case 'ids':
        for (const id of new Set(p.ids)) {
          const doc = dbs.docs.get([id]);
          if (doc) {
            this.stats.docsRead++;
            yield doc;
          }
        }
        return;
      case 'union': {
        const seen = new Set<string>();
        for (const part of p.parts) {
          for (const doc of this.candidates(collection, part)) {
            if (seen.has(doc._id)) continue;
            seen.add(doc._id);
            yield doc;
          }
        }
        return;
      }
      case 'primary':
        for (const range of p.ranges) {
          for (const { key, value } of dbs.docs.getRange(rangeOptions(range, p.reverse))) {
            if (range.stop && !startsWith(key[range.stop.at - 1], range.stop.prefix)) break;
            this.stats.docsRead++;
            yield value;
          }
        }
        return;
      case 'index': {
        // A multikey index or several ranges can name one document more than once.
        const seen = p.def.plain && p.ranges.length === 1 ? undefined : new Set<string>();
        for (const range of p.ranges) {
          for (const key of dbs.idx.getKeys(rangeOptions(range, p.reverse))) {
            this.stats.keysRead++;
            if (range.stop && !startsWith(key[range.stop.at - 1], range.stop.prefix)) break;
            const id = key[key.length - 1] as string;
            if (seen) {
              if (seen.has(id)) continue;
              seen.add(id);
            }
            const doc = dbs.docs.get([id]);
            if (doc) {
              this.stats.docsRead++;
              yield doc;
            }
          }
        }
        return;
      }
    }
  }

  private findCommitted(collection: string, filter: Filter, sort: Sort | undefined, limit: number | undefined, exclude: IdSet): Doc[] {
    this.assertOpen();
    const p = plan(collection, this.defs(collection), filter, sort);
    const test = matcher(filter, p.kind === 'ids');
    const out: Doc[] = [];
    for (const doc of this.candidates(collection, p)) {
      if (exclude.size && exclude.has(doc._id)) continue;
      if (!test(doc)) continue;
      out.push(doc);
      if (p.ordered && limit !== undefined && out.length >= limit) break;
    }
    if (p.ordered) return out;
    sortDocs(out, sort);
    return limit === undefined ? out : out.slice(0, limit);
  }

  private countCommitted(collection: string, filter: Filter, exclude: IdSet): number {
    this.assertOpen();
    const dbs = this.existing(collection);
    if (!dbs) return 0;
    if (Object.keys(filter).length === 0) {
      let n = dbs.docs.getCount();
      for (const id of exclude.keys()) if (dbs.docs.doesExist([id])) n--;
      return n;
    }
    const p = plan(collection, this.defs(collection), filter, undefined);
    if (p.kind === 'index' && p.exact && exclude.size === 0) {
      let n = 0;
      for (const range of p.ranges) n += dbs.idx.getKeysCount(rangeOptions(range, p.reverse));
      return n;
    }
    const test = matcher(filter, p.kind === 'ids');
    let n = 0;
    for (const doc of this.candidates(collection, p)) {
      if (exclude.size && exclude.has(doc._id)) continue;
      if (test(doc)) n++;
    }
    return n;
  }

  // ---- unique keys ----

  /** Refuses a unit's write that would duplicate a unique key (committed or pending). */
  private checkUnique(collection: string, id: string, next: Doc | null, overlay: Overlay): void {
    const unique = this.defs(collection).filter((d) => d.unique);
    if (unique.length === 0) return;
    let tracked = this.pendingKeys.get(overlay);
    if (!tracked) this.pendingKeys.set(overlay, (tracked = new Map()));
    const pending = overlay.pending(collection);
    const previous = pending?.get(id);
    const changes: [Map<string, string>, string[], string[]][] = [];
    for (const def of unique) {
      const trackKey = `${collection}\u0000${def.name}`;
      let owners = tracked.get(trackKey);
      if (!owners) tracked.set(trackKey, (owners = new Map()));
      const entries = next ? entriesFor(def, next) : [];
      for (const entry of entries) {
        const owner = owners.get(entry.exact);
        if (owner !== undefined && owner !== id) throw new DuplicateKey(collection, keyValue(def, next!));
        for (const other of this.committedOwners(collection, def, entry)) {
          // A document the unit already rewrote is judged by its pending state (tracked above).
          if (other !== id && !pending?.has(other)) throw new DuplicateKey(collection, keyValue(def, next!));
        }
      }
      const before = previous ? entriesFor(def, previous).map((e) => e.exact) : [];
      changes.push([owners, before, entries.map((e) => e.exact)]);
    }
    for (const [owners, before, after] of changes) {
      for (const key of before) if (owners.get(key) === id) owners.delete(key);
      for (const key of after) owners.set(key, id);
    }
  }

  /** Ids of committed documents holding exactly this entry in a unique index. */
  private *committedOwners(collection: string, def: IndexDef, entry: Entry): Generator<string> {
    const dbs = this.existing(collection);
    if (!dbs) return;
    const head = [def.name, ...entry.tuple];
    for (const key of dbs.idx.getKeys({ start: head, end: [...head, MAX] })) {
      const other = key[key.length - 1] as string;
      if (entry.cut || entry.tuple.some(maybeCut)) {
        // Equal cut parts do not prove equal values: compare the other document's own entries.
        const doc = dbs.docs.get([other]);
        if (!doc || !entriesFor(def, doc).some((e) => e.exact === entry.exact)) continue;
      }
      yield other;
    }
  }

  // ---- writes ----

  /**
   * Writes a unit's overlay and checkpoints as ONE LMDB transaction. Everything is decided
   * first, synchronously, against the committed state (units are serialised, and one process
   * owns the directory, so it cannot change meanwhile): what each document replaces, its stale
   * and new index entries, unique keys. Then every put and remove is queued in one event turn,
   * which lmdb commits as one transaction (event-turn batching) and executes on its write
   * thread, so LMDB's own work overlaps the encoding here; the promise resolves once the
   * transaction is durable. Nothing can fail half-way: a refusal is thrown before anything is
   * queued.
   */
  private async commit(overlay: Overlay): Promise<void> {
    if (overlay.empty) return;
    const flagged = new Map<IndexDef, string>();
    const added: string[] = [];
    const writes: { dbs: CollectionDbs; docPuts: [string, Doc][]; docRemoves: string[]; idxPuts: Key[]; idxRemoves: Key[] }[] = [];
    const uniqueOwners = new Map<IndexDef, Map<string, string>>();
    for (const [collection, pending] of overlay.docs) {
      if (pending.size === 0) continue;
      const defs = this.defs(collection);
      const absent = overlay.absent.get(collection);
      const committed = this.dbs.get(collection);
      const docPuts: [string, Doc][] = [];
      const docRemoves: string[] = [];
      const idxPuts: Key[] = [];
      const idxRemoves: Key[] = [];
      for (const [id, next] of pending) {
        if (next) docPuts.push([id, next]);
        else docRemoves.push(id);
        if (defs.length === 0) continue;
        // An id the unit found absent has no committed entries: no need to read it back.
        const prev = absent?.has(id) ? undefined : committed?.docs.get([id]);
        for (const def of defs) {
          const after = next ? entriesFor(def, next) : [];
          const before = prev ? entriesFor(def, prev) : undefined;
          if (before) {
            for (const e of before) {
              if (!after.some((a) => a.exact === e.exact)) idxRemoves.push([def.name, ...e.tuple, id]);
            }
          }
          let owners: Map<string, string> | undefined;
          if (def.unique) {
            owners = uniqueOwners.get(def);
            if (!owners) uniqueOwners.set(def, (owners = new Map()));
          }
          for (const e of after) {
            if (!e.plain && def.plain) flagged.set(def, collection);
            if (owners) {
              // Against the unit's other documents (an index made mid-unit never saw its earlier writes).
              const owner = owners.get(e.exact);
              if (owner !== undefined && owner !== id) throw new DuplicateKey(collection, keyValue(def, next!));
              owners.set(e.exact, id);
            }
            if (before?.some((b) => b.exact === e.exact)) continue;
            if (owners) {
              for (const other of this.committedOwners(collection, def, e)) {
                // A document this unit rewrites is judged by its pending state, in `owners`.
                if (other !== id && !pending.has(other)) throw new DuplicateKey(collection, keyValue(def, next!));
              }
            }
            idxPuts.push([def.name, ...e.tuple, id]);
          }
        }
      }
      if (!this.collections.has(collection)) added.push(collection);
      // Sorted, so the write thread walks the B-trees in order.
      docPuts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      idxPuts.sort(compareKeys);
      // Opened here, before anything is queued (opening is a synchronous transaction).
      writes.push({ dbs: this.open(collection), docPuts, docRemoves, idxPuts, idxRemoves });
    }
    // Every write below goes into the same transaction; unconditional writes share its promise.
    const done = new Set<Promise<unknown>>();
    for (const { dbs, docPuts, docRemoves, idxPuts, idxRemoves } of writes) {
      for (const key of idxRemoves) done.add(dbs.idx.remove(key));
      for (const id of docRemoves) done.add(dbs.docs.remove([id]));
      for (const [id, doc] of docPuts) done.add(dbs.docs.put([id], doc));
      for (const key of idxPuts) done.add(dbs.idx.put(key, TRUE as unknown as boolean));
    }
    for (const collection of added) done.add(this.meta.put(['collection', collection], 1));
    for (const [def, collection] of flagged) done.add(this.meta.put(['index', collection, def.name], { ...def, plain: false }));
    for (const [projection, position] of overlay.checkpoints) done.add(this.meta.put(['checkpoint', projection], position.toString()));
    await Promise.all(done);
    for (const def of flagged.keys()) def.plain = false;
    for (const collection of added) this.collections.add(collection);
  }

  /** Creates an index (or checks that the same one exists), indexing every document in one transaction. */
  private async buildIndex(collection: string, spec: IndexSpec): Promise<void> {
    const checked = checkIndexSpec(spec);
    if (checked.keys.length === 1 && checked.keys[0]![0] === '_id') return; // always there: the primary key
    const same = (d: IndexDef) => JSON.stringify(d.keys) === JSON.stringify(checked.keys);
    for (const existing of this.defs(collection)) {
      if (existing.name === checked.name) {
        if (same(existing) && existing.unique === checked.unique) return;
        throw new Error(`index ${checked.name} on ${collection} already exists with other keys or options`);
      }
      if (same(existing)) throw new Error(`an index on ${collection} with these keys already exists, named ${existing.name}`);
    }
    const def: IndexDef = { ...checked, plain: true };
    const dbs = this.open(collection);
    await this.env.childTransaction(() => {
      for (const { value: doc } of dbs.docs.getRange({})) {
        for (const entry of entriesFor(def, doc)) {
          if (!entry.plain) def.plain = false;
          if (def.unique) {
            for (const other of this.committedOwners(collection, def, entry)) {
              if (other !== doc._id) throw new DuplicateKey(collection, keyValue(def, doc));
            }
          }
          dbs.idx.put([def.name, ...entry.tuple, doc._id], TRUE as unknown as boolean);
        }
      }
      this.meta.put(['index', collection, def.name], def);
      this.meta.put(['collection', collection], 1);
    });
    this.indexes.set(collection, [...this.defs(collection), def]);
    this.collections.add(collection);
  }
}

/** A plan's range (keys led by the collection's name) within the collection's own database. */
function rangeOptions(range: ScanRange, reverse: boolean) {
  const start = range.start.slice(1) as LmdbKey[];
  const end = range.end.slice(1) as LmdbKey[];
  // A bare collection name bounds nothing in its own database: the range starts (or ends) at its edge.
  return { start: start.length ? start : undefined, end: end.length ? end : undefined, reverse, inclusiveEnd: range.inclusiveEnd ?? false };
}

/** Orders keys as ordered-binary does for the parts used here (strings, numbers); a locality hint only. */
function compareKeys(a: LmdbKey[], b: LmdbKey[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === typeof y) return (x as string | number) < (y as string | number) ? -1 : 1;
    return typeof x === 'number' ? -1 : 1;
  }
  return a.length - b.length;
}

function startsWith(part: unknown, prefix: string): boolean {
  return typeof part === 'string' && part.startsWith(prefix);
}

/** A collection outside any unit: reads see committed data; each write is a unit of its own. */
/** `{_id: <text>}` and nothing else. */
function isPlainIdFilter(filter: Filter): filter is { _id: string } {
  if (typeof filter !== 'object' || filter === null || Object.getPrototypeOf(filter) !== Object.prototype) return false;
  let keys = 0;
  for (const key in filter) if (++keys > 1 || key !== '_id') return false;
  return keys === 1 && typeof filter._id === 'string';
}

class EmbeddedCollection implements Collection {
  constructor(
    readonly name: string,
    private readonly store: EmbeddedReadStore,
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

  putMany(docs: Doc[]): Promise<void> {
    return this.store.write(this.name, (c) => c.putMany(docs));
  }

  createIndex(spec: IndexSpec): Promise<void> {
    return this.store.createIndexOutsideUnit(this.name, spec);
  }
}

/**
 * The embedded ReadStore adapter: MongoDB-shaped collections kept in an LMDB environment in
 * the process (`<dataDir>/read`), with filters and updates meaning what they mean on MongoDB
 * (evaluated by mingo, see read-store-documents.ts).
 *
 * Layout (three named databases, ordered-binary keys):
 *   docs  [collection, _id]                               -> document (msgpack)
 *   idx   [collection, index, rank, value, …, _id]         -> true   (see embedded-read-keys.ts)
 *   meta  ['collection', name]                            -> 1
 *         ['index', collection, name]                     -> IndexDef
 *         ['checkpoint', projection]                      -> position (decimal string)
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
import { asBinary, open, type Database, type Key as LmdbKey, type RootDatabase } from 'lmdb';
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

export interface EmbeddedReadStoreOptions {
  /** The app's data directory; the read models live in `<dataDir>/read`. */
  dataDir: string;
  /**
   * How long a write, index build or drop made outside units waits for running units before
   * giving up (default 30 s). Units themselves wait as long as it takes.
   */
  gateWaitMs?: number;
}

export async function openEmbeddedReadStore(options: EmbeddedReadStoreOptions): Promise<EmbeddedReadStore> {
  const dir = path.join(options.dataDir, 'read');
  fs.mkdirSync(dir, { recursive: true });
  const env = open({
    path: dir,
    // As the event store: a commit is visible only once it is on disk (docs/decisions.md (event-store)).
    overlappingSync: false,
    noSync: false,
    maxDbs: 4,
  });
  return new EmbeddedReadStore(env, options.gateWaitMs ?? 30_000);
}

/** What queries touched, so tests can tell an index lookup from a collection scan. */
export interface ReadStats {
  /** Documents fetched and decoded by finds and counts. */
  docsRead: number;
  /** Index entries visited. */
  keysRead: number;
}

export class EmbeddedReadStore implements ReadStore {
  private readonly docs: Database<Doc, Key>;
  private readonly idx: Database<boolean, Key>;
  private readonly meta: Database<unknown, Key>;
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
    private readonly env: RootDatabase,
    private readonly gateWaitMs = 30_000,
  ) {
    this.docs = env.openDB<Doc, Key>({ name: 'docs' });
    this.idx = env.openDB<boolean, Key>({ name: 'idx' });
    this.meta = env.openDB<unknown, Key>({ name: 'meta' });
    for (const { key, value } of this.meta.getRange({ start: ['index'], end: ['index', MAX] })) {
      const def = value as IndexDef;
      const collection = key[1] as string;
      this.indexes.set(collection, [...(this.indexes.get(collection) ?? []), def]);
    }
    for (const key of this.meta.getKeys({ start: ['collection'], end: ['collection', MAX] })) this.collections.add(key[1] as string);
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
      await this.env.childTransaction(() => {
        for (const collection of doomed) {
          for (const db of [this.docs, this.idx] as Database<unknown, Key>[]) {
            const keys = [...db.getKeys({ start: [collection], end: [collection, MAX] })];
            for (const key of keys) db.remove(key);
          }
          for (const def of this.indexes.get(collection) ?? []) this.meta.remove(['index', collection, def.name]);
          this.meta.remove(['collection', collection]);
        }
        for (const key of checkpoints) this.meta.remove(key);
      });
      for (const collection of doomed) {
        this.collections.delete(collection);
        this.indexes.delete(collection);
      }
    }, this.waitFor('drop'));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
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

  // ---- committed reads ----

  private assertOpen(): void {
    if (this.closed) throw new Error('the read store is closed');
  }

  private getDoc(collection: string, id: string): Doc | undefined {
    this.assertOpen();
    return this.docs.get([collection, id]);
  }

  private defs(collection: string): IndexDef[] {
    return this.indexes.get(collection) ?? [];
  }

  /** Documents a plan may match, in the plan's order (each at most once). */
  private *candidates(collection: string, p: Plan): Generator<Doc> {
    switch (p.kind) {
      case 'ids':
        for (const id of new Set(p.ids)) {
          const doc = this.docs.get([collection, id]);
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
          for (const { key, value } of this.docs.getRange(rangeOptions(range, p.reverse))) {
            if (range.stop && !startsWith(key[range.stop.at], range.stop.prefix)) break;
            this.stats.docsRead++;
            yield value;
          }
        }
        return;
      case 'index': {
        // A multikey index or several ranges can name one document more than once.
        const seen = p.def.plain && p.ranges.length === 1 ? undefined : new Set<string>();
        for (const range of p.ranges) {
          for (const key of this.idx.getKeys(rangeOptions(range, p.reverse))) {
            this.stats.keysRead++;
            if (range.stop && !startsWith(key[range.stop.at], range.stop.prefix)) break;
            const id = key[key.length - 1] as string;
            if (seen) {
              if (seen.has(id)) continue;
              seen.add(id);
            }
            const doc = this.docs.get([collection, id]);
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
    if (Object.keys(filter).length === 0) {
      let n = this.docs.getKeysCount({ start: [collection], end: [collection, MAX] });
      for (const id of exclude.keys()) if (this.docs.doesExist([collection, id])) n--;
      return n;
    }
    const p = plan(collection, this.defs(collection), filter, undefined);
    if (p.kind === 'index' && p.exact && exclude.size === 0) {
      let n = 0;
      for (const range of p.ranges) n += this.idx.getKeysCount(rangeOptions(range, p.reverse));
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
    const head = [collection, def.name, ...entry.tuple];
    for (const key of this.idx.getKeys({ start: head, end: [...head, MAX] })) {
      const other = key[key.length - 1] as string;
      if (entry.cut || entry.tuple.some(maybeCut)) {
        // Equal cut parts do not prove equal values: compare the other document's own entries.
        const doc = this.docs.get([collection, other]);
        if (!doc || !entriesFor(def, doc).some((e) => e.exact === entry.exact)) continue;
      }
      yield other;
    }
  }

  // ---- writes ----

  private async commit(overlay: Overlay): Promise<void> {
    if (overlay.empty) return;
    const flagged = new Map<IndexDef, string>();
    const added: string[] = [];
    await this.env.childTransaction(() => {
      for (const [collection, pending] of overlay.docs) {
        if (pending.size === 0) continue;
        const defs = this.defs(collection);
        const absent = overlay.absent.get(collection);
        const changes: { id: string; next: Doc | null; prev: Entry[][] | undefined; after: Entry[][] }[] = [];
        for (const [id, next] of pending) {
          // An id the unit found absent has no committed entries: no need to read it back.
          const prev = defs.length === 0 || absent?.has(id) ? undefined : this.docs.get([collection, id]);
          changes.push({
            id,
            next,
            prev: prev ? defs.map((d) => entriesFor(d, prev)) : undefined,
            after: next ? defs.map((d) => entriesFor(d, next)) : defs.map(() => []),
          });
        }
        // Remove every stale entry before adding new ones, so a unit that moves a unique value
        // from one document to another is not refused against its own old state.
        for (const c of changes) {
          if (c.prev) {
            defs.forEach((def, i) => {
              const keep = new Set(c.after[i]!.map((e) => e.exact));
              for (const e of c.prev![i]!) if (!keep.has(e.exact)) this.idx.remove([collection, def.name, ...e.tuple, c.id]);
            });
          }
          if (c.next) this.docs.put([collection, c.id], c.next);
          else this.docs.remove([collection, c.id]);
        }
        for (const c of changes) {
          defs.forEach((def, i) => {
            const had = c.prev ? new Set(c.prev[i]!.map((e) => e.exact)) : undefined;
            for (const e of c.after[i]!) {
              if (!e.plain && def.plain) flagged.set(def, collection);
              if (had?.has(e.exact)) continue;
              if (def.unique) {
                for (const other of this.committedOwners(collection, def, e)) {
                  if (other !== c.id) throw new DuplicateKey(collection, keyValue(def, c.next!));
                }
              }
              this.idx.put([collection, def.name, ...e.tuple, c.id], TRUE as unknown as boolean);
            }
          });
        }
        if (!this.collections.has(collection)) {
          this.meta.put(['collection', collection], 1);
          added.push(collection);
        }
      }
      for (const [def, collection] of flagged) this.meta.put(['index', collection, def.name], { ...def, plain: false });
      for (const [projection, position] of overlay.checkpoints) this.meta.put(['checkpoint', projection], position.toString());
    });
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
    await this.env.childTransaction(() => {
      for (const { value: doc } of this.docs.getRange({ start: [collection], end: [collection, MAX] })) {
        for (const entry of entriesFor(def, doc)) {
          if (!entry.plain) def.plain = false;
          if (def.unique) {
            for (const other of this.committedOwners(collection, def, entry)) {
              if (other !== doc._id) throw new DuplicateKey(collection, keyValue(def, doc));
            }
          }
          this.idx.put([collection, def.name, ...entry.tuple, doc._id], TRUE as unknown as boolean);
        }
      }
      this.meta.put(['index', collection, def.name], def);
      this.meta.put(['collection', collection], 1);
    });
    this.indexes.set(collection, [...this.defs(collection), def]);
    this.collections.add(collection);
  }
}

function rangeOptions(range: ScanRange, reverse: boolean) {
  return { start: range.start as LmdbKey[], end: range.end as LmdbKey[], reverse, inclusiveEnd: range.inclusiveEnd ?? false };
}

function startsWith(part: unknown, prefix: string): boolean {
  return typeof part === 'string' && part.startsWith(prefix);
}

/** A collection outside any unit: reads see committed data; each write is a unit of its own. */
class EmbeddedCollection implements Collection {
  constructor(
    readonly name: string,
    private readonly store: EmbeddedReadStore,
  ) {}

  async findOne(filter: Filter, options?: FindOptions): Promise<Doc | null> {
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

  createIndex(spec: IndexSpec): Promise<void> {
    return this.store.createIndexOutsideUnit(this.name, spec);
  }
}


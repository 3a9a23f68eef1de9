/**
 * The embedded read store's LMDB environment (`<dataDir>/read`): its layout, opening it, the
 * catalogue of collections and indexes it keeps in `meta`, and compacting the file after a drop.
 *
 * Layout (named databases, ordered-binary keys), two per collection so that dropping a read
 * model drops whole LMDB databases instead of removing its entries one by one:
 *   d:<collection>  [_id]                                  -> document (msgpack)
 *   i:<collection>  [index, rank, value, …, _id]           -> true   (see embedded/read-keys.ts)
 *   meta            ['layout']                             -> LAYOUT
 *                   ['collection', name]                   -> 1
 *                   ['index', collection, name]            -> IndexDef
 *                   ['checkpoint', projection]             -> position (decimal string)
 *                   ['version', projection]                -> the fold version it was built with
 * Plans (embedded/read-plan.ts) speak of keys that start with the collection's name; the
 * collection's own databases are keyed without it.
 *
 * A store in an older layout holds nothing that cannot be folded again: it is emptied on open
 * (checkpoints too), and the projectors rebuild it from the journal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { asBinary, open, type Database, type DatabaseOptions, type Key as LmdbKey, type RootDatabase } from 'lmdb';
import type { Doc } from '../read-store.js';
import { survivingCommitFailures } from './lmdb-commit-failure.js';
import { MAX, type IndexDef } from './read-keys.js';

export type Key = LmdbKey[];

/** An index entry's value, `true`, encoded once (msgpack 0xc3) instead of at every put. */
export const TRUE = asBinary(Uint8Array.of(0xc3)) as unknown as boolean;

/** The layout written in `meta` (see the header); an older store is emptied on open. */
const LAYOUT = 2;
/** Each collection takes two LMDB databases (and meta one): this bounds a store's collections. */
const MAX_DBS = 1000;
/** A drop that leaves the file this big (pages) and at most a quarter of it live compacts it. */
const COMPACT_PAGES = 4096;

/** A collection's two databases. */
export interface CollectionDbs {
  docs: Database<Doc, Key>;
  idx: Database<boolean, Key>;
}

export function openEnv(dir: string): RootDatabase {
  survivingCommitFailures();
  return open({
    path: dir,
    // As the event store: a commit is visible only once it is on disk (docs/decisions/event-journal-file.md).
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

/**
 * Stores open on each directory in this process. lmdb shares one environment between them, so
 * a store swapping the file under another would leave that one writing to the old file: a store
 * compacts only while it is the directory's only one.
 */
const openHere = new Map<string, number>();

/**
 * The environment and what this process knows of it: the collections and index definitions
 * (read from `meta` at open, kept current by the store's writes), and each collection's
 * databases once opened. `env` and `meta` change when a compaction swaps the file: read them
 * from here each time, never keep them.
 */
export class ReadEnv {
  env: RootDatabase;
  meta: Database<unknown, Key>;
  readonly dbs = new Map<string, CollectionDbs>();
  readonly indexes = new Map<string, IndexDef[]>();
  readonly collections = new Set<string>();

  constructor(
    env: RootDatabase,
    /** The environment's directory, when the store may compact it (see compactAfterDrop). */
    private readonly dir?: string,
    private readonly compactAtPages = COMPACT_PAGES,
    /**
     * Other processes write this environment too (projector workers beside the town,
     * docs/decisions/embedded-workers.md): a unit checks its fences inside its write
     * transaction, and the file is never compacted (a swap would leave them on the old one).
     */
    readonly shared = false,
  ) {
    this.env = env;
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
  }

  /** The index definitions of a collection (none when it has none). */
  defs(collection: string): IndexDef[] {
    return this.indexes.get(collection) ?? [];
  }

  /**
   * A collection's databases, opened (created) on first use. Only in the gate or at open:
   * opening runs a synchronous LMDB transaction, which must not land in a commit's batch.
   */
  open(collection: string): CollectionDbs {
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
  existing(collection: string): CollectionDbs | undefined {
    const dbs = this.dbs.get(collection);
    if (dbs || this.meta.get(['collection', collection]) === undefined) return dbs;
    // Its indexes too: a projection makes them before its first documents.
    if (!this.indexes.has(collection)) {
      const defs = [...this.meta.getRange({ start: ['index', collection], end: ['index', collection, MAX] })].map(({ value }) => value as IndexDef);
      if (defs.length) this.indexes.set(collection, defs);
    }
    return this.open(collection);
  }

  /** Forgets a dropped collection (its databases are gone). */
  forget(collection: string): void {
    this.collections.delete(collection);
    this.indexes.delete(collection);
    this.dbs.delete(collection);
  }

  /**
   * After a drop that freed most of the file (a rebuild's), copies what is left into a fresh
   * file and swaps it in. LMDB reuses freed pages through its free list, and writing a whole
   * read model again into a file full of them was measured ~30 % slower than into a fresh one
   * (200,000 events: 29 s against 21.5 s). The copy is a consistent snapshot and the swap a
   * rename, so a crash leaves the old file or the new one. Only in the gate; reads made while
   * the environment is swapped (none in a rebuild, which runs before the town serves or on a
   * stopped town) would fail.
   */
  async compactAfterDrop(): Promise<void> {
    if (!this.dir || this.shared || (openHere.get(this.dir) ?? 0) > 1 || this.openElsewhere()) return;
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

  /**
   * Whether another process has the environment open (a worker or a front beside a stopped
   * town): LMDB's reader table names every process with a reader slot.
   */
  private openElsewhere(): boolean {
    const list = (this.env as unknown as { readerList(): string }).readerList();
    return [...list.matchAll(/^\s*(\d+)\s/gm)].some((m) => Number(m[1]) !== process.pid);
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

  /** This store no longer counts as open on the directory (it is closing). */
  release(): void {
    if (!this.dir) return;
    const left = (openHere.get(this.dir) ?? 1) - 1;
    if (left > 0) openHere.set(this.dir, left);
    else openHere.delete(this.dir);
  }
}

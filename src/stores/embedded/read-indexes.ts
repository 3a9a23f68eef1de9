/**
 * The embedded read store's secondary indexes: building one over a collection's documents, and
 * keeping unique ones unique. Entries are encoded as embedded/read-keys.ts says; they are
 * persisted and maintained in the same LMDB transaction as the documents (the commit,
 * embedded/read-commit.ts), so a reopened store has them at once and nothing is rebuilt on open.
 */
import { DuplicateKey, type Doc, type IndexSpec } from '../read-store.js';
import { checkIndexSpecs } from '../read-store-checks.js';
import type { Overlay } from '../read-store-unit.js';
import { entriesFor, indexKeyOf, keyValue, MAX, maybeCut, type Entry, type IndexDef, type KeyPart } from './read-keys.js';
import { TRUE, type ReadEnv } from './read-env.js';
import { committed } from './lmdb-commit-failure.js';

/** Ids of committed documents holding exactly this entry in a unique index. */
export function* committedOwners(lmdb: ReadEnv, collection: string, def: IndexDef, entry: Entry): Generator<string> {
  const dbs = lmdb.existing(collection);
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

/**
 * Refuses a unit's write that would duplicate a unique key (committed or pending), as the
 * write is made, so the unit's work sees the refusal where MongoDB would raise it.
 */
export class UniqueKeys {
  /** Per-unit map of pending unique keys, so a unit's own writes are checked against each other. */
  private readonly pendingKeys = new WeakMap<Overlay, Map<string, Map<string, string>>>();

  constructor(private readonly lmdb: ReadEnv) {}

  check(collection: string, id: string, next: Doc | null, overlay: Overlay): void {
    const unique = this.lmdb.defs(collection).filter((d) => d.unique);
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
        for (const other of committedOwners(this.lmdb, collection, def, entry)) {
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
}

/** A database's key writer (ordered-binary's): the key's bytes into `target` at `at`, and where they end. */
type WriteKey = (key: unknown, target: Buffer, at: number) => number;

/** put of a key given as its bytes: whether LMDB took it. */
type PutBytes = (key: Buffer, value: boolean, options?: { append: boolean }) => Promise<boolean>;

/** indexKeyOf's answer to whether a key keeps its index's order (one object, reused). */
const keyPlain = { plain: true };

/** lmdb's put option for a key past every key of its database: no B-tree search (MDB_APPEND). */
const APPEND = { append: true };

/**
 * Creates indexes (or checks that the same ones exist), indexing every document of the
 * collection in one pass. Every spec is checked first, against the indexes there and against
 * each other, so a refused one leaves none built. The entries of each new index are sorted by
 * their bytes before the write (they are grouped by index, since a key starts with its index's
 * name), and an index whose keys all come after what the database holds (a collection's first
 * indexes: a rebuild's, built after its documents) is written in LMDB's append mode, each page
 * filled in order with no B-tree search. Only in the store's gate.
 */
export async function buildIndexes(lmdb: ReadEnv, collection: string, specs: readonly IndexSpec[]): Promise<void> {
  const defs: IndexDef[] = [];
  const same = (a: { keys: unknown }, b: { keys: unknown }) => JSON.stringify(a.keys) === JSON.stringify(b.keys);
  for (const checked of checkIndexSpecs(specs)) {
    if (checked.keys.length === 1 && checked.keys[0]![0] === '_id') continue; // always there: the primary key
    let exists = false;
    for (const existing of [...lmdb.defs(collection), ...defs]) {
      if (existing.name === checked.name) {
        if (same(existing, checked) && existing.unique === checked.unique) {
          exists = true;
          break;
        }
        throw new Error(`index ${checked.name} on ${collection} already exists with other keys or options`);
      }
      if (same(existing, checked)) throw new Error(`an index on ${collection} with these keys already exists, named ${existing.name}`);
    }
    if (!exists) defs.push({ ...checked, plain: true });
  }
  if (!defs.length) return;
  const dbs = lmdb.open(collection);
  // Every entry, decided and encoded before the transaction: LMDB's write lock is held only for the puts.
  const groups = defs.map((def) => ({ def, keys: [] as string[], owners: def.unique ? new Map<string, string>() : undefined }));
  // Each key as its bytes in a latin1 string (strings sort natively, in their bytes' order),
  // encoded by the database's own key writer into one buffer.
  const writeKey = (dbs.idx as unknown as { writeKey: WriteKey }).writeKey;
  const buffer = Buffer.allocUnsafe(8192);
  const add = (keys: string[], key: KeyPart[]) => keys.push(buffer.toString('latin1', 0, writeKey(key, buffer, 0)));
  for (const { value: doc } of dbs.docs.getRange({})) {
    for (const group of groups) {
      const { def, owners } = group;
      if (!owners) {
        // No comparison to make: the key alone (an array on a path takes entriesFor's walk).
        const key = indexKeyOf(def, doc, doc._id, keyPlain);
        if (key) {
          if (!keyPlain.plain) def.plain = false;
          add(group.keys, key);
          continue;
        }
      }
      for (const entry of entriesFor(def, doc)) {
        if (!entry.plain) def.plain = false;
        if (owners) {
          const owner = owners.get(entry.exact);
          if (owner !== undefined && owner !== doc._id) throw new DuplicateKey(collection, keyValue(def, doc));
          owners.set(entry.exact, doc._id);
        }
        add(group.keys, [def.name, ...entry.tuple, doc._id]);
      }
    }
  }
  const sorted = groups.filter((g) => g.keys.length).map(({ def, keys }) => ({ def, keys: keys.sort() }));
  // Indexes in their names' key order, so that each may follow the one before in append mode.
  sorted.sort((a, b) => (a.keys[0]! < b.keys[0]! ? -1 : 1));
  let last: string | undefined;
  for (const key of dbs.idx.getKeys({ reverse: true, limit: 1 })) last = buffer.toString('latin1', 0, writeKey(key, buffer, 0));
  // Queued in one event turn, one transaction (as a unit's commit): LMDB's write thread appends
  // while this thread encodes the next keys.
  const results = await committed(() => {
    const done: Promise<boolean>[] = [];
    const queue = (p: Promise<boolean>) => {
      if (done[done.length - 1] !== p) done.push(p);
    };
    const scratch = Buffer.allocUnsafe(4096);
    for (const { keys } of sorted) {
      // Append mode only past every key already there; otherwise in order, searched.
      const append = last === undefined || keys[0]! > last ? APPEND : undefined;
      for (const key of keys) queue((dbs.idx.put as unknown as PutBytes)(scratch.subarray(0, scratch.write(key, 0, 'latin1')), TRUE, append));
      const end = keys[keys.length - 1]!;
      if (last === undefined || end > last) last = end;
    }
    for (const def of defs) queue(lmdb.meta.put(['index', collection, def.name], def));
    queue(lmdb.meta.put(['collection', collection], 1));
    return Promise.all(done);
  });
  // An append out of order is refused (false), not thrown: the keys were sorted by their bytes,
  // so this would be a defect here, said rather than left as a silently short index.
  if (results.includes(false)) throw new Error(`index entries of ${collection} were refused out of order: drop the collection's read model and rebuild it`);
  lmdb.indexes.set(collection, [...lmdb.defs(collection), ...defs]);
  lmdb.collections.add(collection);
}

/** Orders keys by their parts (strings, numbers; numbers first where the types differ). */
export function compareParts(a: readonly KeyPart[], b: readonly KeyPart[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === typeof y) return x < y ? -1 : 1;
    return typeof x === 'number' ? -1 : 1;
  }
  return a.length - b.length;
}

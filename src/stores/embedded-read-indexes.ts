/**
 * The embedded read store's secondary indexes: building one over a collection's documents, and
 * keeping unique ones unique. Entries are encoded as embedded-read-keys.ts says; they are
 * persisted and maintained in the same LMDB transaction as the documents (the commit,
 * embedded-read-commit.ts), so a reopened store has them at once and nothing is rebuilt on open.
 */
import { DuplicateKey, type Doc, type IndexSpec } from './read-store.js';
import { checkIndexSpec } from './read-store-checks.js';
import type { Overlay } from './read-store-unit.js';
import { entriesFor, keyValue, MAX, maybeCut, type Entry, type IndexDef } from './embedded-read-keys.js';
import { TRUE, type ReadEnv } from './embedded-read-env.js';
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

/**
 * Creates an index (or checks that the same one exists), indexing every document in one
 * transaction. Only in the store's gate.
 */
export async function buildIndex(lmdb: ReadEnv, collection: string, spec: IndexSpec): Promise<void> {
  const checked = checkIndexSpec(spec);
  if (checked.keys.length === 1 && checked.keys[0]![0] === '_id') return; // always there: the primary key
  const same = (d: IndexDef) => JSON.stringify(d.keys) === JSON.stringify(checked.keys);
  for (const existing of lmdb.defs(collection)) {
    if (existing.name === checked.name) {
      if (same(existing) && existing.unique === checked.unique) return;
      throw new Error(`index ${checked.name} on ${collection} already exists with other keys or options`);
    }
    if (same(existing)) throw new Error(`an index on ${collection} with these keys already exists, named ${existing.name}`);
  }
  const def: IndexDef = { ...checked, plain: true };
  const dbs = lmdb.open(collection);
  await committed(() =>
    lmdb.env.childTransaction(() => {
      for (const { value: doc } of dbs.docs.getRange({})) {
        for (const entry of entriesFor(def, doc)) {
          if (!entry.plain) def.plain = false;
          if (def.unique) {
            for (const other of committedOwners(lmdb, collection, def, entry)) {
              if (other !== doc._id) throw new DuplicateKey(collection, keyValue(def, doc));
            }
          }
          dbs.idx.put([def.name, ...entry.tuple, doc._id], TRUE);
        }
      }
      lmdb.meta.put(['index', collection, def.name], def);
      lmdb.meta.put(['collection', collection], 1);
    }),
  );
  lmdb.indexes.set(collection, [...lmdb.defs(collection), def]);
  lmdb.collections.add(collection);
}

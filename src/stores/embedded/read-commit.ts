/**
 * Committing a unit of the embedded read store: the unit's overlay (read-store-unit.ts), its
 * checkpoints and versions written as ONE abortable LMDB transaction, durably (fsync) or not at
 * all.
 */
import { CheckpointBehind, DuplicateKey, LeaseLost, type Doc } from '../read-store.js';
import type { Overlay } from '../read-store-unit.js';
import { entriesFor, indexKeyOf, keyValue, type IndexDef } from './read-keys.js';
import { TRUE, type CollectionDbs, type Key, type ReadEnv } from './read-env.js';
import { committedOwners, compareParts } from './read-indexes.js';
import { committed } from './lmdb-commit-failure.js';

/**
 * Writes a unit's overlay, checkpoints and versions as ONE LMDB transaction. Everything is decided
 * first, synchronously, against the committed state (units are serialised, and one process
 * owns the directory, so it cannot change meanwhile): what each document replaces, its stale
 * and new index entries, unique keys. Then every put and remove is queued in one event turn,
 * which lmdb commits as one transaction (event-turn batching) and executes on its write
 * thread, so LMDB's own work overlaps the encoding here; the promise resolves once the
 * transaction is durable. Nothing can fail half-way: a refusal is thrown before anything is
 * queued. Only in the store's gate.
 */
export async function commitOverlay(lmdb: ReadEnv, overlay: Overlay): Promise<void> {
  if (overlay.empty) return;
  // Fences and checkpoints first: a refused unit writes nothing.
  checkFences(lmdb, overlay);
  const flagged = new Map<IndexDef, string>();
  const added: string[] = [];
  const writes: { dbs: CollectionDbs; docPuts: [string, Doc][]; docRemoves: string[]; idxPuts: Key[]; idxRemoves: Key[] }[] = [];
  const uniqueOwners = new Map<IndexDef, Map<string, string>>();
  for (const [collection, pending] of overlay.docs) {
    if (pending.size === 0) continue;
    const defs = lmdb.defs(collection);
    const absent = overlay.absent.get(collection);
    const committed = lmdb.dbs.get(collection);
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
        if (!prev && !def.unique && next) {
          // Nothing to compare with (no committed state, no unique key): the key alone.
          const key = indexKeyOf(def, next, id, keyPlain);
          if (key) {
            if (!keyPlain.plain && def.plain) flagged.set(def, collection);
            idxPuts.push(key);
            continue;
          }
        }
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
            for (const other of committedOwners(lmdb, collection, def, e)) {
              // A document this unit rewrites is judged by its pending state, in `owners`.
              if (other !== id && !pending.has(other)) throw new DuplicateKey(collection, keyValue(def, next!));
            }
          }
          idxPuts.push([def.name, ...e.tuple, id]);
        }
      }
    }
    if (!lmdb.collections.has(collection)) added.push(collection);
    // Sorted, so the write thread walks the B-trees in order.
    docPuts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    idxPuts.sort(compareParts as (a: Key, b: Key) => number);
    // Opened here, before anything is queued (opening is a synchronous transaction).
    writes.push({ dbs: lmdb.open(collection), docPuts, docRemoves, idxPuts, idxRemoves });
  }
  if (lmdb.shared) {
    // Other processes write this store: the fences are checked again under LMDB's writer lock,
    // in the transaction that writes, so a lease taken over meanwhile refuses the whole unit.
    lmdb.env.transactionSync(() => {
      checkFences(lmdb, overlay);
      for (const { dbs, docPuts, docRemoves, idxPuts, idxRemoves } of writes) {
        for (const key of idxRemoves) dbs.idx.removeSync(key);
        for (const id of docRemoves) dbs.docs.removeSync([id]);
        for (const [id, doc] of docPuts) dbs.docs.putSync([id], doc);
        for (const key of idxPuts) dbs.idx.putSync(key, TRUE);
      }
      const { meta } = lmdb;
      for (const collection of added) meta.putSync(['collection', collection], 1);
      for (const [def, collection] of flagged) meta.putSync(['index', collection, def.name], { ...def, plain: false });
      for (const [projection, position] of overlay.checkpoints) meta.putSync(['checkpoint', projection], position.toString());
      for (const [projection, version] of overlay.versions) meta.putSync(['version', projection], version);
    });
  } else {
    await committed(() => {
      // Every write below goes into the same transaction; unconditional writes share its promise.
      const done = new Set<Promise<unknown>>();
      for (const { dbs, docPuts, docRemoves, idxPuts, idxRemoves } of writes) {
        for (const key of idxRemoves) done.add(dbs.idx.remove(key));
        for (const id of docRemoves) done.add(dbs.docs.remove([id]));
        for (const [id, doc] of docPuts) done.add(dbs.docs.put([id], doc));
        for (const key of idxPuts) done.add(dbs.idx.put(key, TRUE));
      }
      const { meta } = lmdb;
      for (const collection of added) done.add(meta.put(['collection', collection], 1));
      for (const [def, collection] of flagged) done.add(meta.put(['index', collection, def.name], { ...def, plain: false }));
      for (const [projection, position] of overlay.checkpoints) done.add(meta.put(['checkpoint', projection], position.toString()));
      for (const [projection, version] of overlay.versions) done.add(meta.put(['version', projection], version));
      return Promise.all(done);
    });
  }
  for (const def of flagged.keys()) def.plain = false;
  for (const collection of added) lmdb.collections.add(collection);
}

/** A unit whose lease was taken over, or whose checkpoint would go back, is refused. */
function checkFences(lmdb: ReadEnv, overlay: Overlay): void {
  for (const [projection, token] of overlay.fences) {
    const lease = lmdb.meta.get(['lease', projection]) as StoredLease | undefined;
    if (lease?.token !== token) throw new LeaseLost(projection, token);
  }
  for (const [projection, position] of overlay.checkpoints) {
    const have = lmdb.meta.get(['checkpoint', projection]);
    if (typeof have === 'string' && BigInt(have) > position) throw new CheckpointBehind(projection, position);
  }
}

/** indexKeyOf's answer to whether a key keeps its index's order (one object, reused). */
const keyPlain = { plain: true };

/** A projection's lease as the embedded store keeps it, under `['lease', projection]`. */
export interface StoredLease {
  holder: string;
  token: number;
  expiresAt: number;
  /** The process that took it, and the machine's boot then: a lease dies with its process (read-leases.ts). */
  pid: number;
  boot?: string;
}

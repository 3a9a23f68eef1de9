/**
 * The repository's blocks (tree nodes and the head commit) as documents of the read store:
 * `repository.blocks`, `_id` the CID's text, `bytes` base64 (docs/decisions/repository-commits.md).
 * Blocks are content-addressed, so what was read once can be
 * kept: a CID names the same bytes for ever. A record's block is not here: it is the record's
 * own document (`repository.records`, its value re-encoded: reads.ts `recordBlock`), which
 * keeps the rev of the commit that set it (docs/decisions/repository-commits.md).
 *
 * While the projection folds a unit, the store reads through the unit (it sees the unit's own
 * writes) and gathers what the unit's commits add and drop, written once at the unit's end.
 */
import { BlockMap, type CidSet, ReadableBlockstore } from '@atproto/repo';
import type { Cid } from '@atproto/lex-data';
import type { Collection, Doc } from '../stores/read-store.js';
import { blockTexts, cidTexts } from './block-texts.js';

import { blocksCollection } from './collections.js';

export { blocksCollection };

export interface BlockDoc extends Doc {
  bytes: string;
  /** The rev of the commit that added the block (what `getRepo` with `since` selects by). */
  rev: string;
}

/** Bytes kept per store, at most. */
const cacheBytes = 64 * 1024 * 1024;

export class DocBlockstore extends ReadableBlockstore {
  /** Net changes of the unit being folded: bytes added, or null for dropped. */
  private changes = new Map<string, Uint8Array | null>();
  /** The rev of each block added in this unit. */
  private revs = new Map<string, string>();
  private readonly cache = new Map<string, Uint8Array>();
  private cached = 0;
  /**
   * Blocks read during the unit being folded: kept in `cache` once it commits (settle). A read
   * through a unit may see a block the unit itself wrote, and a cache that said the store holds
   * a block it never committed would have a later commit leave it out (MST.getUnstoredBlocks
   * asks `has`).
   */
  private fresh = new Map<string, Uint8Array>();
  /** Whether it reads through units (begin): then what it reads waits in `fresh` for the commit. */
  private staging = false;

  constructor(private collection: Collection) {
    super();
  }

  /** Reads (and later writes) through this collection: the unit being folded, or the store. */
  use(collection: Collection): void {
    this.collection = collection;
  }

  /** A unit begins: reads and writes go through its collection; what an earlier unit left uncommitted is forgotten. */
  begin(collection: Collection): void {
    this.collection = collection;
    this.discard();
    this.fresh = new Map();
    this.staging = true;
  }

  /** The unit committed: the blocks it read are kept. */
  settle(): void {
    const fresh = this.fresh;
    this.fresh = new Map();
    for (const [id, bytes] of fresh) this.keep(id, bytes);
  }

  async getBytes(cid: Cid): Promise<Uint8Array | null> {
    const id = cid.toString();
    const changed = this.changes.get(id);
    if (changed !== undefined) return changed;
    const hit = this.cache.get(id) ?? this.fresh.get(id);
    if (hit) return hit;
    const doc = (await this.collection.findOne({ _id: id })) as BlockDoc | null;
    if (!doc) return null;
    const bytes = new Uint8Array(Buffer.from(doc.bytes, 'base64'));
    if (this.staging) this.fresh.set(id, bytes);
    else this.keep(id, bytes);
    return bytes;
  }

  async has(cid: Cid): Promise<boolean> {
    return (await this.getBytes(cid)) !== null;
  }

  async getBlocks(cids: Cid[]): Promise<{ blocks: BlockMap; missing: Cid[] }> {
    const blocks = new BlockMap();
    const missing: Cid[] = [];
    for (const cid of cids) {
      const bytes = await this.getBytes(cid);
      if (bytes) blocks.set(cid, bytes);
      else missing.push(cid);
    }
    return { blocks, missing };
  }

  /**
   * A commit's new blocks and the blocks it no longer needs, but for `records` (the CIDs of its
   * records' values, new and replaced, as text): those are the records' own documents.
   */
  apply(added: BlockMap, removed: CidSet, rev: string, records: ReadonlySet<string>): void {
    for (const id of cidTexts(removed)) if (!records.has(id)) this.changes.set(id, null);
    // Not kept in the cache: the projection holds the tree it wrote in memory (its head's MST);
    // caching them only filled the cache with blocks the next commits drop.
    for (const [id, bytes] of blockTexts(added)) {
      if (records.has(id)) continue;
      this.changes.set(id, bytes);
      this.revs.set(id, rev);
    }
  }

  /** Writes the unit's changes through the collection in use; forgets them. */
  async flush(): Promise<void> {
    const put: BlockDoc[] = [];
    const gone: string[] = [];
    for (const [id, bytes] of this.changes) {
      if (bytes) put.push({ _id: id, bytes: Buffer.from(bytes).toString('base64'), rev: this.revs.get(id)! });
      else gone.push(id);
    }
    this.changes = new Map();
    this.revs = new Map();
    // Handed over (not copied by the store): made here for the write and never touched again.
    if (put.length) await this.collection.putMany(put, { handOver: true });
    for (let i = 0; i < gone.length; i += 500) await this.collection.deleteMany({ _id: { $in: gone.slice(i, i + 500) } });
  }

  /** Forgets the unit's changes (the unit failed). */
  discard(): void {
    this.changes = new Map();
    this.revs = new Map();
  }

  private keep(id: string, bytes: Uint8Array): void {
    if (this.cache.has(id)) return;
    if (this.cached + bytes.length > cacheBytes) {
      this.cache.clear();
      this.cached = 0;
    }
    this.cache.set(id, bytes);
    this.cached += bytes.length;
  }
}

/**
 * What the /xrpc routes read of the repository: the head, records (by key, spoken name or content
 * id), pages of a collection, the whole repository (or what changed since a rev) as a CAR and a
 * record with its proof as a CAR. Everything comes from the repository's read model (projection.ts); CARs are written by
 * @atproto/repo from the blocks of the signed head.
 *
 * A CAR is walked from the head as it stood when the read began; the projector may drop blocks
 * of an older tree meanwhile, so a walk that meets a missing block starts again from the new head.
 * A record's block is its document's value, encoded again (`recordBlock`): the blocks collection
 * holds the tree's nodes and commits only.
 */
import { ipldToJson } from '@atproto/common-web';
import { encode as cborEncode } from '@atproto/lex-cbor';
import { type Cid, parseCid } from '@atproto/lex-data';
import { concatBytesAsync, def, getRecords, MST, ReadableBlockstore, type RepoStorage, writeCarStream } from '@atproto/repo';
import type { ReadStore } from '../stores/read-store.js';
import { type BlockDoc, blocksCollection, DocBlockstore } from './block-store.js';
import { carOf } from './block-texts.js';
import { headCollection, type HeadDoc, recordsCollection } from './projection.js';
import { type RecordDoc, recordValue } from './records.js';

export interface RecordView {
  uri: string;
  cid: string;
  value: unknown;
}

/** How a record is asked for: its key, or (another name for one entry) a spoken name or content id. */
export type RecordMatch = { found: RecordDoc } | { none: true } | { ambiguous: RecordDoc[] };

const looksLikeCid = (s: string) => /^b[a-z2-7]{20,}$/.test(s);

export class RepositoryReads {
  private readonly blocks: DocBlockstore;

  constructor(private readonly reads: ReadStore) {
    this.blocks = new DocBlockstore(reads.collection(blocksCollection));
  }

  async head(): Promise<HeadDoc | undefined> {
    return ((await this.reads.collection(headCollection).findOne({ _id: 'head' })) as HeadDoc | null) ?? undefined;
  }

  /** The record under `collection/rkey`, else the one entry a spoken name or content id names. */
  async record(collection: string, rkey: string): Promise<RecordMatch> {
    const records = this.reads.collection(recordsCollection);
    const byKey = (await records.findOne({ _id: `${collection}/${rkey}` })) as RecordDoc | null;
    if (byKey) return { found: byKey };
    if (looksLikeCid(rkey)) {
      const byCid = (await records.findOne({ entry: rkey })) as RecordDoc | null;
      if (byCid) return byCid.collection === collection ? { found: byCid } : { none: true };
    }
    // A spoken name may be shared: a second receipt of that name, in any collection, makes it ambiguous.
    const named = (await records.find({ slug: rkey }, { sort: { height: 1 }, limit: 16 })) as RecordDoc[];
    if (named.length > 1) return { ambiguous: named };
    if (named.length === 1 && named[0]!.collection === collection) return { found: named[0]! };
    return { none: true };
  }

  /** A page of a collection in key order (reverse: newest first), after `cursor` (a record key). */
  async list(collection: string, limit: number, cursor: string | undefined, newestFirst: boolean): Promise<{ records: RecordDoc[]; cursor?: string }> {
    const low = `${collection}/`;
    const high = `${collection}/\u007f`;
    const id: Record<string, string> = newestFirst
      ? { $gt: low, $lt: cursor !== undefined ? `${low}${cursor}` : high }
      : { $gt: cursor !== undefined ? `${low}${cursor}` : low, $lt: high };
    const docs = (await this.reads.collection(recordsCollection).find({ _id: id }, { sort: { _id: newestFirst ? -1 : 1 }, limit: limit + 1 })) as RecordDoc[];
    const page = docs.slice(0, limit);
    return docs.length > limit ? { records: page, cursor: page[page.length - 1]!.rkey } : { records: page };
  }

  /** Collections holding at least one record. */
  async collections(names: readonly string[]): Promise<string[]> {
    const records = this.reads.collection(recordsCollection);
    const out: string[] = [];
    for (const name of names) if (await records.findOne({ _id: { $gt: `${name}/`, $lt: `${name}/\u007f` } }, { projection: { _id: 1 } })) out.push(name);
    return out;
  }

  /**
   * The whole repository at its head, as a CAR: what @atproto/repo's `getFullRepo` writes (the
   * commit, every node of the tree, every record), walked with the library's `MST.walk` so each
   * record is read by its key (a record's block is its document, found by key, not by CID).
   */
  fullCar(): Promise<Uint8Array | undefined> {
    return this.fromHead((commit) => concatBytesAsync(writeCarStream(commit, this.fullRepoBlocks(commit))));
  }

  private async *fullRepoBlocks(commitCid: Cid): AsyncGenerator<{ cid: Cid; bytes: Uint8Array }> {
    const storage = this.storage();
    const commit = await storage.readObjAndBytes(commitCid, def.commit);
    yield { cid: commitCid, bytes: commit.bytes };
    const leaves: { key: string; cid: Cid }[] = [];
    for await (const entry of MST.load(storage, commit.obj.data).walk()) {
      if (entry.isLeaf()) {
        leaves.push({ key: entry.key, cid: entry.value });
        continue;
      }
      const cid = await entry.getPointer();
      const bytes = await storage.getBytes(cid);
      if (!bytes) throw new Error(`missing mst node: ${cid}`);
      yield { cid, bytes };
    }
    const records = this.reads.collection(recordsCollection);
    for (let i = 0; i < leaves.length; i += 500) {
      const chunk = leaves.slice(i, i + 500);
      const docs = new Map(((await records.find({ _id: { $in: chunk.map((l) => l.key) } })) as RecordDoc[]).map((d) => [d._id, d]));
      for (const leaf of chunk) yield { cid: leaf.cid, bytes: recordBlockAt(docs.get(leaf.key), leaf.cid) };
    }
  }

  /**
   * What changed since rev `since`, as AT Protocol's `getRepo` with `since` answers: the signed
   * head and every block of its tree that a commit after `since` added (each block keeps the rev
   * of the commit that added it), a CAR that `verifyDiffCar` applies to the repository as it
   * stood at `since`. Read between two looks at the head: if a commit landed meanwhile (it may
   * have dropped blocks of the head read first), the read starts again.
   */
  async carSince(since: string): Promise<Uint8Array | undefined> {
    const blocks = this.reads.collection(blocksCollection);
    const records = this.reads.collection(recordsCollection);
    for (let attempt = 0; ; attempt++) {
      const head = await this.head();
      if (!head?.commit || !head.rev) return undefined;
      const root = parseCid(head.commit);
      const docs = (await blocks.find({ rev: { $gt: since, $lte: head.rev } })) as BlockDoc[];
      const texts = new Map<string, Uint8Array>();
      if (!docs.some((d) => d._id === head.commit)) {
        // `since` at or after the head: the commit alone.
        const commit = (await blocks.findOne({ _id: head.commit })) as BlockDoc | null;
        if (commit) texts.set(commit._id, new Uint8Array(Buffer.from(commit.bytes, 'base64')));
      }
      for (const doc of docs) texts.set(doc._id, new Uint8Array(Buffer.from(doc.bytes, 'base64')));
      // The records whose values commits after `since` set: each its own block.
      for (const doc of (await records.find({ rev: { $gt: since, $lte: head.rev } })) as RecordDoc[]) texts.set(doc.cid, recordBlock(doc));
      if ((await this.head())?.commit === head.commit && texts.has(head.commit)) return carOf(root, texts, new Map([[head.commit, root]]));
      if (attempt >= 3) throw new Error('the repository moved under every read of its changes');
    }
  }

  /**
   * One record with the tree nodes that prove it, and the signed commit, as a CAR (@atproto/repo's
   * `getRecords`), the record's block from its document.
   */
  recordCar(collection: string, rkey: string): Promise<Uint8Array | undefined> {
    return this.fromHead(async (commit) => {
      const doc = (await this.reads.collection(recordsCollection).findOne({ _id: `${collection}/${rkey}` })) as RecordDoc | null;
      const storage = doc?.rev !== undefined ? new WithRecord(this.storage(), doc) : this.storage();
      return concatBytesAsync(getRecords(storage as RepoStorage, commit, [{ collection: collection as never, rkey }]));
    });
  }

  private storage(): RepoStorage {
    // getFullRepo reads blocks only; the writing half of RepoStorage is the projection's.
    // The store's collection as it is now: a live rebuild may have switched generations (the
    // blocks' cache is by content id, good in any generation).
    this.blocks.use(this.reads.collection(blocksCollection));
    return this.blocks as unknown as RepoStorage;
  }

  private async fromHead(walk: (commit: ReturnType<typeof parseCid>) => Promise<Uint8Array>): Promise<Uint8Array | undefined> {
    for (let attempt = 0; ; attempt++) {
      const head = await this.head();
      if (!head?.commit) return undefined;
      try {
        return await walk(parseCid(head.commit));
      } catch (error) {
        const moved = (await this.head())?.commit !== head.commit;
        if (!moved || attempt >= 3) throw error;
      }
    }
  }
}

/** A record's block: its value as DAG-CBOR, the very bytes its CID was made of (deterministic). */
export const recordBlock = (doc: RecordDoc): Uint8Array => cborEncode(recordValue(doc));

/** The block of the record the tree holds as `cid`, or an error (a commit changed it since). */
function recordBlockAt(doc: RecordDoc | undefined, cid: Cid): Uint8Array {
  if (!doc || doc.cid !== cid.toString()) throw new Error(`missing record block: ${cid}`);
  return recordBlock(doc);
}

/** The blocks of `base`, and one record's block (its document's value) by its CID. */
class WithRecord extends ReadableBlockstore {
  private readonly id: string;

  constructor(
    private readonly base: ReadableBlockstore,
    private readonly doc: RecordDoc,
  ) {
    super();
    this.id = doc.cid;
  }

  async getBytes(cid: Cid): Promise<Uint8Array | null> {
    return cid.toString() === this.id ? recordBlock(this.doc) : this.base.getBytes(cid);
  }

  async has(cid: Cid): Promise<boolean> {
    return (await this.getBytes(cid)) !== null;
  }

  async getBlocks(cids: Cid[]) {
    const found = await this.base.getBlocks(cids.filter((c) => c.toString() !== this.id));
    for (const cid of cids) if (cid.toString() === this.id) found.blocks.set(cid, recordBlock(this.doc));
    return found;
  }
}

/** A record as getRecord and listRecords show it. */
export function recordView(did: string, doc: RecordDoc): RecordView {
  return { uri: `at://${did}/${doc.collection}/${doc.rkey}`, cid: doc.cid, value: ipldToJson(recordValue(doc)) };
}

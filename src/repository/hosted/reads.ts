/**
 * The hosted accounts' repositories over /xrpc: what the `com.atproto.repo.*` and
 * `com.atproto.sync.*` methods (../xrpc/) answer when their repo or did names a guest's account
 * rather than the town's repository. The methods check the parameters; these reads take them checked. Records
 * and heads come from the `hosted` read model; CARs are written by @atproto/repo from the head's
 * commit, the account's tree (hosted/tree.ts) and its records' blocks.
 *
 * The head and the records are read one after the other; a write folded in between makes a tree
 * that is not the head's, and the CAR is made again from the new head.
 */
import { encode as cborEncode } from '@atproto/lex-cbor';
import { jsonToLex } from '@atproto/lex-json';
import { BlockMap, blocksToCarFile, DataDiff, type MST } from '@atproto/repo';
import { decodeHostedEvent, hostedStream } from '../../events/hosted.js';
import type { EventStore } from '../../stores/event-store.js';
import type { ReadStore } from '../../stores/read-store.js';
import type { HostedAccount } from './accounts.js';
import { hostedHeadDocs, type HostedHeadDoc, hostedRecordDocs, type HostedRecordDoc, hostedRecordId } from './projection.js';
import { hostedCollections } from './records.js';
import { buildTree, commitBlock, commitOf, type HostedTrees, TreeMoved } from './tree.js';
import { guestDidDocument, type PublicKeys, invalidHandle } from '../identity.js';
import type { CarReply } from '../xrpc/method.js';
import { fail } from '../xrpc/params.js';

export interface HostedReadsDeps {
  reads: ReadStore;
  /** The journal: the accounts' streams, read for the tree as it stood at a `since`. */
  events: EventStore;
  trees: HostedTrees;
  origin: string;
  keys: PublicKeys | undefined;
}

/** A listRepos row. */
export interface RepoRow {
  did: string;
  head: string;
  rev: string;
  active: true;
}

const recordView = (doc: HostedRecordDoc) => ({ uri: `at://${doc.did}/${doc.collection}/${doc.rkey}`, cid: doc.cid, value: JSON.parse(doc.json) });

export class HostedReads {
  constructor(private readonly deps: HostedReadsDeps) {}

  head(did: string): Promise<HostedHeadDoc | null> {
    return hostedHeadDocs.in(this.deps.reads).findOne({ _id: did });
  }

  /** Accounts with a signed head, by did, after `cursor` (a did). */
  async repos(limit: number, cursor: string | undefined): Promise<RepoRow[]> {
    const heads = await hostedHeadDocs.in(this.deps.reads).find(cursor !== undefined ? { _id: { $gt: cursor } } : {}, { sort: { _id: 1 }, limit });
    return heads.map((h) => ({ did: h.did, head: h.commit, rev: h.rev, active: true }));
  }

  /** The account's signed head, or RepoNotServed on a box that does not sign. */
  async signedHead(account: HostedAccount): Promise<HostedHeadDoc> {
    if (!this.deps.keys) fail('RepoNotServed', 'this box has no signing key: it keeps no hosted repositories');
    const head = await this.head(account.did);
    return head ?? fail('RepoNotFound', `${account.did} has written no record yet: its repository has no commit`);
  }

  describeRepo(account: HostedAccount): object {
    return {
      handle: account.handle,
      did: account.did,
      didDoc: guestDidDocument(account.did, account.handle, this.deps.origin, this.deps.keys),
      // The collection the account takes writes into is named even before its first record.
      collections: [...hostedCollections],
      handleIsCorrect: account.handle !== invalidHandle,
    };
  }

  /** A record of the account; a `cid` that is not the record's now names none. */
  async record(account: HostedAccount, collection: string, rkey: string, cid: string | undefined): Promise<object> {
    const doc = await hostedRecordDocs.in(this.deps.reads).findOne({ _id: hostedRecordId(account.did, collection, rkey) });
    if (!doc || (cid !== undefined && cid !== doc.cid)) fail('RecordNotFound', `no record ${collection}/${rkey} in ${account.did}`);
    return recordView(doc!);
  }

  /** A page of a collection, newest first or oldest first, after `cursor` (a record key). */
  async records(account: HostedAccount, collection: string, limit: number, newestFirst: boolean, cursor: string | undefined): Promise<object> {
    const low = hostedRecordId(account.did, collection, '');
    const high = `${low}\u007f`;
    const at = cursor !== undefined ? `${low}${cursor}` : undefined;
    const docs = await hostedRecordDocs
      .in(this.deps.reads)
      .find(newestFirst ? { _id: { $gt: low, $lt: at ?? high } } : { _id: { $gt: at ?? low, $lt: high } }, {
        sort: { _id: newestFirst ? -1 : 1 },
        limit: limit + 1,
      });
    const page = docs.slice(0, limit);
    return { records: page.map(recordView), ...(docs.length > limit ? { cursor: page[page.length - 1]!.rkey } : {}) };
  }

  /** The repository as a CAR: the whole of it, or what changed since rev `since`. */
  repoCar(account: HostedAccount, since: string | undefined): Promise<CarReply> {
    return since === undefined ? this.car(account.did) : this.carSince(account, since);
  }

  /**
   * The record under `collection/rkey` with the tree nodes that prove it, or prove its absence
   * when the account does not hold it (as the town's own repository answers).
   */
  recordCar(account: HostedAccount, collection: string, rkey: string): Promise<CarReply> {
    return this.car(account.did, `${collection}/${rkey}`);
  }

  async status(account: HostedAccount): Promise<object> {
    const head = this.deps.keys ? await this.head(account.did) : null;
    return { did: account.did, active: true, ...(head ? { rev: head.rev } : {}) };
  }

  /**
   * What changed since rev `since`, as the town's own repository answers it (reads.ts `carSince`):
   * the signed head, the tree nodes it has that the tree at `since` had not, and the records new
   * since, a CAR that `verifyDiffCar` applies to the repository as it stood at `since`. The blocks
   * of a hosted account keep no rev (its tree is never stored: hosted/tree.ts), so the tree at
   * `since` is built again from the account's stream, at most 256 records, and the two trees
   * diffed by @atproto/repo (`DataDiff`). A `since` at or after the head gets the commit alone.
   */
  private async carSince(account: HostedAccount, since: string): Promise<CarReply> {
    const did = account.did;
    for (let attempt = 0; ; attempt++) {
      const head = await this.head(did);
      if (!head) return fail('RepoNotFound', `${did} has no commit`);
      try {
        const commit = commitBlock(commitOf(did, head));
        const commitCid = await commit.cid;
        if (commitCid.toString() !== head.commit) throw new Error(`the head of ${did} does not make its commit ${head.commit}`);
        const blocks = new BlockMap();
        blocks.set(commitCid, commit.bytes);
        if (since < head.rev) {
          const docs = await hostedRecordDocs.in(this.deps.reads).find({ _id: { $gt: `${did} `, $lt: `${did} \u007f` } });
          const tree = await this.deps.trees.tree(did, head.data, async () => docs.map((d) => [`${d.collection}/${d.rkey}`, d.cid] as const));
          const before = await buildTree(await recordsAt(this.deps.events, account, since));
          const diff = await DataDiff.of(tree, before);
          blocks.addMap(diff.newMstBlocks);
          const byCid = new Map(docs.map((d) => [d.cid, d]));
          for (const cid of diff.newLeafCids.toList()) {
            const doc = byCid.get(cid.toString());
            if (!doc) throw new TreeMoved(did, head.data, `a tree without the record ${cid}`);
            blocks.set(cid, recordBytes(doc));
          }
        }
        return { car: await blocksToCarFile(commitCid, blocks) };
      } catch (error) {
        if (!(error instanceof TreeMoved) || attempt >= 3) throw error;
      }
    }
  }

  /**
   * The account's repository at its head as a CAR: the whole of it, or (`only`, a key) the tree
   * nodes that prove the key's record, or its absence, with the record when there is one. Made
   * again from the new head when a write lands meanwhile.
   */
  private async car(did: string, only?: string): Promise<CarReply> {
    for (let attempt = 0; ; attempt++) {
      const head = await this.head(did);
      if (!head) return fail('RepoNotFound', `${did} has no commit`);
      try {
        const docs = await hostedRecordDocs.in(this.deps.reads).find({ _id: { $gt: `${did} `, $lt: `${did} \u007f` } });
        const tree = await this.deps.trees.tree(did, head.data, async () => docs.map((d) => [`${d.collection}/${d.rkey}`, d.cid] as const));
        const blocks = new BlockMap();
        const commit = commitBlock(commitOf(did, head));
        const commitCid = await commit.cid;
        if (commitCid.toString() !== head.commit) throw new Error(`the head of ${did} does not make its commit ${head.commit}`);
        blocks.set(commitCid, commit.bytes);
        const byPath = new Map(docs.map((d) => [`${d.collection}/${d.rkey}`, d]));
        if (only !== undefined) {
          blocks.addMap(await tree.getCoveringProof(only));
          const leaf = await tree.get(only);
          if (leaf) {
            const doc = byPath.get(only);
            if (!doc || doc.cid !== leaf.toString()) throw new TreeMoved(did, head.data, `a tree whose ${only} is not the one read`);
            blocks.set(leaf, recordBytes(doc));
          }
        } else {
          blocks.addMap((await tree.getUnstoredBlocks()).blocks);
          await addLeaves(tree, byPath, blocks, did, head.data);
        }
        return { car: await blocksToCarFile(commitCid, blocks) };
      } catch (error) {
        if (!(error instanceof TreeMoved) || attempt >= 3) throw error;
      }
    }
  }
}

/** The records of an account as its stream stood at rev `since`: every commit at or before it, folded. */
async function recordsAt(events: EventStore, account: HostedAccount, since: string): Promise<Map<string, string>> {
  const at = new Map<string, string>();
  for (const event of await events.readStream(hostedStream(account.name))) {
    const { ops, commit } = decodeHostedEvent(event).data;
    if (commit.rev > since) break;
    for (const op of ops) {
      const path = `${op.collection}/${op.rkey}`;
      if (op.action === 'delete') at.delete(path);
      else at.set(path, op.cid!);
    }
  }
  return at;
}

/** Every leaf's record block; a leaf whose record is not the one read means the head moved. */
async function addLeaves(tree: MST, byPath: Map<string, HostedRecordDoc>, blocks: BlockMap, did: string, data: string): Promise<void> {
  for (const leaf of await tree.list()) {
    const doc = byPath.get(leaf.key);
    if (!doc || doc.cid !== leaf.value.toString()) throw new TreeMoved(did, data, `a tree without ${leaf.key}`);
    blocks.set(leaf.value, recordBytes(doc));
  }
}

const recordBytes = (doc: HostedRecordDoc): Uint8Array => cborEncode(jsonToLex(JSON.parse(doc.json)));

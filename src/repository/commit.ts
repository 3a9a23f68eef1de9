/**
 * One signed commit of the repository, made by @atproto/repo: the Merkle Search Tree (`MST`),
 * the diff of its blocks (`DataDiff`), the covering proofs, the signature (`signCommit`) and the
 * commit block are all the library's. What this adds is the commit's `rev`, given by the caller
 * instead of read off the wall clock (`Repo.formatCommit` takes `TID.nextStr()`): the projection
 * derives it from the journal, so a repository rebuilt from the journal reaches the same signed
 * head as the live one (docs/decisions/repository-commits.md).
 * Otherwise this is `Repo.formatCommit` step for step, but for which keys it proves (provedKeys),
 * and that each record comes already encoded with its CID (the projection encoded it to learn
 * its CID, and `formatCommit` would encode it again) and blocks move between the library's maps
 * as text (block-texts.ts).
 */
import type * as crypto from '@atproto/crypto';
import { encode as cborEncode } from '@atproto/lex-cbor';
import { type Cid, cidForCbor } from '@atproto/lex-data';
import { BlockMap, CidSet, type Commit, type CommitData, DataDiff, MST, type ReadableBlockstore, signCommit } from '@atproto/repo';
import { blockTexts, cidTexts, mergeBlocks } from './block-texts.js';
import { applyPuts, type TreePut } from './tree-batch.js';

/** A repository as the projection holds it between commits. */
export interface RepoHead {
  did: string;
  data: MST;
  commit: Commit;
  cid: Cid;
}

/** A record as a block: its DAG-CBOR bytes and their CID. */
export interface Leaf {
  cid: Cid;
  bytes: Uint8Array;
}

/** One write of a commit: a record created or updated with its block, or deleted. */
export type TreeWrite = { action: 'create' | 'update'; collection: string; rkey: string; leaf: Leaf } | { action: 'delete'; collection: string; rkey: string };

export interface MadeCommit {
  head: RepoHead;
  data: CommitData;
  /** The root of the tree before this commit (a firehose frame's `prevData`). */
  prevData: Cid | undefined;
  /** The CIDs this commit made, by their text: its records, nodes and the commit (for its CAR). */
  cids: Map<string, Cid>;
}

const dataKey = (op: TreeWrite) => `${op.collection}/${op.rkey}`;

/**
 * The keys whose covering proofs a commit carries (its `relevantBlocks`, for consumers that check
 * a frame without the whole repository). `Repo.formatCommit` proves every written key; proving a
 * run of new keys that are neighbours in the tree (a collection's new records: their keys are
 * heights above every key it held) needs only its first and last key's proofs, because every
 * node on the way to a new key is itself a new block and the commit carries all of those. Each
 * proof is a walk that serialises the nodes it passes, and proving all 200 keys of a commit was
 * two thirds of what folding cost; other writes (updates) are proved one by one.
 */
function provedKeys(writes: TreeWrite[]): string[] {
  const keys: string[] = [];
  const runs = new Map<string, { first: string; last: string }>();
  for (const op of writes) {
    const key = dataKey(op);
    if (op.action !== 'create') {
      keys.push(key);
      continue;
    }
    const run = runs.get(op.collection);
    if (!run) runs.set(op.collection, { first: key, last: key });
    else {
      if (key < run.first) run.first = key;
      if (key > run.last) run.last = key;
    }
  }
  for (const { first, last } of runs.values()) keys.push(...(first === last ? [first] : [first, last]));
  return keys;
}

interface TreeChange {
  data: MST;
  /** The tree's new nodes (records not included). */
  newBlocks: BlockMap;
  /** Nodes and records the tree no longer holds. */
  removedCids: CidSet;
  /** The CIDs of the records the tree now holds that it did not, as text. */
  newLeaves: Iterable<string>;
  /** The new nodes' CIDs by their text, when the walk holds them (for the frame's CAR). */
  nodeCids?: Map<string, Cid>;
}

/** The writes (creates and updates) in one walk of the tree (tree-batch.ts). */
async function writeInOnePass(storage: ReadableBlockstore, before: MST, writes: TreeWrite[]): Promise<TreeChange> {
  const puts: TreePut[] = [];
  for (const w of writes) if (w.action !== 'delete') puts.push({ key: dataKey(w), value: w.leaf.cid, update: w.action === 'update' });
  const applied = await applyPuts(storage, before, puts);
  const newBlocks = new BlockMap();
  const nodes = blockTexts(newBlocks);
  const nodeCids = new Map<string, Cid>();
  for (const [text, { cid, bytes }] of applied.newNodes) {
    nodes.set(text, bytes);
    nodeCids.set(text, cid);
  }
  const removedCids = new CidSet();
  const removed = cidTexts(removedCids);
  for (const text of applied.removed) removed.add(text);
  // As DataDiff counts leaves: a value the tree dropped and holds again is neither.
  const newLeaves = new Set<string>();
  for (const put of puts) {
    const text = put.value.toString();
    if (!removed.delete(text)) newLeaves.add(text);
  }
  return { data: applied.root, newBlocks, removedCids, newLeaves, nodeCids };
}

/** The writes one by one, as `Repo.formatCommit` applies them (a commit with a delete). */
async function writeOneByOne(before: MST, hadPrev: boolean, writes: TreeWrite[]): Promise<TreeChange> {
  let data = before;
  for (const write of writes) {
    if (write.action === 'delete') data = await data.delete(dataKey(write));
    else data = write.action === 'create' ? await data.add(dataKey(write), write.leaf.cid) : await data.update(dataKey(write), write.leaf.cid);
  }
  await data.getPointer();
  const diff = await DataDiff.of(data, hadPrev ? before : null);
  return { data, newBlocks: diff.newMstBlocks, removedCids: diff.removedCids, newLeaves: cidTexts(diff.newLeafCids) };
}

/**
 * Applies `writes` to the tree of `prev` (an empty tree for the first commit) and signs the
 * commit at `rev`. Nothing is stored: the caller stores `newBlocks` and drops `removedCids`.
 */
export async function commitAt(
  storage: ReadableBlockstore,
  did: string,
  prev: RepoHead | undefined,
  writes: TreeWrite[],
  keypair: crypto.Keypair,
  rev: string,
): Promise<MadeCommit> {
  const leaves = new Map<string, Leaf>();
  for (const write of writes) if (write.action !== 'delete') leaves.set(write.leaf.cid.toString(), write.leaf);
  const before = prev ? prev.data : await MST.create(storage);
  const { data, newBlocks, removedCids, newLeaves, nodeCids } = writes.some((w) => w.action === 'delete')
    ? await writeOneByOne(before, prev !== undefined, writes)
    : await writeInOnePass(storage, before, writes);
  const dataCid = await data.getPointer();
  const relevantBlocks = new BlockMap();
  // `getCoveringProof` in its three parts, merged as text (its `addMap` parses every CID back).
  for (const key of provedKeys(writes)) {
    for (const part of await Promise.all([data.proofForKey(key), data.proofForLeftSib(key), data.proofForRightSib(key)])) mergeBlocks(relevantBlocks, part);
  }
  const newTexts = blockTexts(newBlocks);
  const relevantTexts = blockTexts(relevantBlocks);
  for (const text of newLeaves) {
    const leaf = leaves.get(text);
    if (!leaf) throw new Error(`missing leaf block: ${text}`);
    newTexts.set(text, leaf.bytes);
    relevantTexts.set(text, leaf.bytes);
  }

  const commit = await signCommit({ did, version: 3, rev, prev: null, data: dataCid }, keypair);
  const commitBytes = cborEncode(commit);
  const commitCid = await cidForCbor(commitBytes);
  const cids = new Map<string, Cid>();
  for (const [text, leaf] of leaves) cids.set(text, leaf.cid);
  if (nodeCids) for (const [text, cid] of nodeCids) cids.set(text, cid);
  cids.set(commitCid.toString(), commitCid);
  if (!prev || !commitCid.equals(prev.cid)) {
    newBlocks.set(commitCid, commitBytes);
    relevantBlocks.set(commitCid, commitBytes);
    if (prev) removedCids.add(prev.cid);
  }
  return {
    head: { did, data, commit, cid: commitCid },
    data: { cid: commitCid, rev, since: prev ? prev.commit.rev : null, prev: prev ? prev.cid : null, newBlocks, relevantBlocks, removedCids },
    prevData: prev ? prev.commit.data : undefined,
    cids,
  };
}

/**
 * One signed commit of the repository, made by @atproto/repo: the Merkle Search Tree (`MST`),
 * the diff of its blocks (`DataDiff`), the covering proofs, the signature (`signCommit`) and the
 * commit block are all the library's. What this adds is the commit's `rev`, given by the caller
 * instead of read off the wall clock (`Repo.formatCommit` takes `TID.nextStr()`): the projection
 * derives it from the journal, so a repository rebuilt from the journal reaches the same signed
 * head as the live one (docs/decisions.md, "Repository: the head is a function of the journal").
 * Otherwise this is `Repo.formatCommit` step for step.
 */
import type * as crypto from '@atproto/crypto';
import { encode as cborEncode } from '@atproto/lex-cbor';
import { type Cid, cidForCbor } from '@atproto/lex-data';
import { BlockMap, CidSet, type Commit, type CommitData, DataDiff, MST, type ReadableBlockstore, type RecordWriteOp, signCommit, WriteOpAction } from '@atproto/repo';

/** A repository as the projection holds it between commits. */
export interface RepoHead {
  did: string;
  data: MST;
  commit: Commit;
  cid: Cid;
}

export interface MadeCommit {
  head: RepoHead;
  data: CommitData;
  /** The root of the tree before this commit (a firehose frame's `prevData`). */
  prevData: Cid | undefined;
}

const dataKey = (op: RecordWriteOp) => `${op.collection}/${op.rkey}`;

/**
 * Applies `writes` to the tree of `prev` (an empty tree for the first commit) and signs the
 * commit at `rev`. Nothing is stored: the caller stores `newBlocks` and drops `removedCids`.
 */
export async function commitAt(
  storage: ReadableBlockstore,
  did: string,
  prev: RepoHead | undefined,
  writes: RecordWriteOp[],
  keypair: crypto.Keypair,
  rev: string,
): Promise<MadeCommit> {
  const leaves = new BlockMap();
  const before = prev ? prev.data : await MST.create(storage);
  let data = before;
  for (const write of writes) {
    if (write.action === WriteOpAction.Create) data = await data.add(dataKey(write), await leaves.add(write.record));
    else if (write.action === WriteOpAction.Update) data = await data.update(dataKey(write), await leaves.add(write.record));
    else data = await data.delete(dataKey(write));
  }
  const dataCid = await data.getPointer();
  const diff = await DataDiff.of(data, prev ? before : null);
  const newBlocks = diff.newMstBlocks;
  const removedCids: CidSet = diff.removedCids;
  const relevantBlocks = new BlockMap();
  for (const proof of await Promise.all(writes.map((op) => data.getCoveringProof(dataKey(op))))) relevantBlocks.addMap(proof);
  const added = leaves.getMany(diff.newLeafCids.toList());
  if (added.missing.length > 0) throw new Error(`missing leaf blocks: ${added.missing.join(', ')}`);
  newBlocks.addMap(added.blocks);
  relevantBlocks.addMap(added.blocks);

  const commit = await signCommit({ did, version: 3, rev, prev: null, data: dataCid }, keypair);
  const commitBytes = cborEncode(commit);
  const commitCid = await cidForCbor(commitBytes);
  if (!prev || !commitCid.equals(prev.cid)) {
    newBlocks.set(commitCid, commitBytes);
    relevantBlocks.set(commitCid, commitBytes);
    if (prev) removedCids.add(prev.cid);
  }
  return {
    head: { did, data, commit, cid: commitCid },
    data: { cid: commitCid, rev, since: prev ? prev.commit.rev : null, prev: prev ? prev.cid : null, newBlocks, relevantBlocks, removedCids },
    prevData: prev ? prev.commit.data : undefined,
  };
}

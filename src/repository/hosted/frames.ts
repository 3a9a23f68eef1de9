/**
 * Hosted accounts' commits on the firehose: each `HostedRecordsWritten` becomes a `#commit` frame
 * of the account's did, numbered among the world repository's frames by the repository
 * projection (projection.ts), which folds these events with the world's entries in journal
 * order. The frame's CAR holds the commit block, the tree nodes the commit made, the new
 * records' blocks and the covering proof of every operation (sync 1.1), as the world's frames do.
 *
 * To diff the tree it needs the account's records as they stood: the projection keeps its own
 * copy of each account's record CIDs (`repository.accounts`), so it depends on no other read
 * model (the `hosted` one folds on another projector, at its own pace).
 *
 *   repository.accounts  _id `<did>`: the account's record CIDs by path, its root, rev and the
 *                        stream revision folded (idempotent: an event at or below it is skipped)
 */
import { encode as cborEncode } from '@atproto/lex-cbor';
import { parseCid } from '@atproto/lex-data';
import { jsonToLex } from '@atproto/lex-json';
import { BlockMap, blocksToCarFile, DataDiff } from '@atproto/repo';
import { decodeHostedEvent } from '../../events/hosted.js';
import type { RecordedEvent } from '../../stores/event-store.js';
import type { Doc, Unit } from '../../stores/read-store.js';
import { applyOps, commitBlock, commitOf, type HostedTrees } from './tree.js';
import type { FrameDoc, FrameOp } from '../frame-docs.js';

import { accountsCollection } from '../collections.js';

export { accountsCollection };

export interface AccountDoc extends Doc {
  /** `[path, cid]` of every record (paths hold dots and slashes, which are no field names). */
  records: [string, string][];
  data: string;
  rev: string;
  revision: number;
}

/** The frame of one hosted commit, and the account's records after it; undefined when already folded. */
export async function hostedFrame(
  event: RecordedEvent,
  unit: Unit,
  trees: Pick<HostedTrees, 'tree' | 'keep'>,
  seq: number,
  height: number,
  time: string,
): Promise<Omit<FrameDoc, '_id'> | undefined> {
  const { did, ops, commit } = decodeHostedEvent(event).data;
  const accounts = unit.collection(accountsCollection);
  const before = (await accounts.findOne({ _id: did })) as AccountDoc | null;
  const revision = Number(event.revision);
  if (before && before.revision >= revision) return undefined;
  const records = new Map(before?.records ?? []);
  const prevTree = await trees.tree(did, before?.data, async () => records);
  const tree = await applyOps(prevTree, ops);
  const data = (await tree.getPointer()).toString();
  if (data !== commit.data) throw new Error(`the commit ${commit.cid} of ${did} signs the tree ${commit.data}, its operations make ${data}`);
  trees.keep(did, data, tree);

  const diff = await DataDiff.of(tree, before ? prevTree : null);
  const blocks = new BlockMap();
  blocks.addMap(diff.newMstBlocks);
  const frameOps: FrameOp[] = [];
  for (const op of ops) {
    const path = `${op.collection}/${op.rkey}`;
    const prev = records.get(path);
    blocks.addMap(await tree.getCoveringProof(path));
    if (op.action === 'delete') {
      records.delete(path);
      frameOps.push({ action: 'delete', path, cid: null, ...(prev !== undefined ? { prev } : {}) });
      continue;
    }
    records.set(path, op.cid!);
    blocks.set(parseCid(op.cid!), cborEncode(jsonToLex(op.value as never)));
    frameOps.push({ action: op.action, path, cid: op.cid!, ...(op.action === 'update' && prev !== undefined ? { prev } : {}) });
  }
  const block = commitBlock(commitOf(did, commit));
  const commitCid = await block.cid;
  blocks.set(commitCid, block.bytes);
  await accounts.replaceOne({ _id: did }, { _id: did, records: [...records], data, rev: commit.rev, revision } satisfies AccountDoc, { upsert: true });
  return {
    seq,
    repo: did,
    commit: commitCid.toString(),
    rev: commit.rev,
    since: before?.rev ?? null,
    ...(before ? { prevData: before.data } : {}),
    ops: frameOps,
    blocks: Buffer.from(await blocksToCarFile(commitCid, blocks)).toString('base64'),
    time,
    height,
  };
}

/**
 * The tree and signed commit of a hosted account's repository, made by @atproto/repo (MST,
 * signCommit, CBOR, CIDs). An account holds at most 256 records, so its tree is built in memory
 * from the records' CIDs: the write side builds it from the account's folded stream, the read
 * side from the read model, and both keep the newest tree of each account they used
 * (`HostedTrees`), so a write or a CAR of an account that did not move costs a few tree steps,
 * not a rebuild. The tree's nodes are never stored: the journal and the records are the store,
 * and the nodes are a function of them.
 */
import type { Keypair } from '@atproto/crypto';
import { encode as cborEncode } from '@atproto/lex-cbor';
import { type Cid, cidForCbor, parseCid } from '@atproto/lex-data';
import { type Commit, MemoryBlockstore, MST, signCommit } from '@atproto/repo';
import type { HostedCommit, HostedOp } from '../../events/hosted.js';

/** Trees kept, one per account: enough for the accounts in use; past it, the oldest is rebuilt when next used. */
const treesKept = 256;

/** A tree of `<collection>/<rkey>` → record CID. */
export async function buildTree(entries: Iterable<readonly [string, string]>): Promise<MST> {
  let tree = await MST.create(new MemoryBlockstore());
  for (const [path, cid] of [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) tree = await tree.add(path, parseCid(cid));
  return tree;
}

/** The tree after `ops`. */
export async function applyOps(tree: MST, ops: readonly HostedOp[]): Promise<MST> {
  let next = tree;
  for (const op of ops) {
    const path = `${op.collection}/${op.rkey}`;
    if (op.action === 'create') next = await next.add(path, parseCid(op.cid!));
    else if (op.action === 'update') next = await next.update(path, parseCid(op.cid!));
    else next = await next.delete(path);
  }
  return next;
}

/** Signs the commit of `tree` at `rev` (K-256 signatures are deterministic, RFC 6979). */
export async function signTree(did: string, tree: MST, rev: string, keypair: Keypair): Promise<HostedCommit> {
  const data = await tree.getPointer();
  const commit = await signCommit({ did, version: 3, rev, prev: null, data }, keypair);
  const { cid } = commitBlock(commit);
  return { cid: (await cid).toString(), data: data.toString(), rev, sig: Buffer.from(commit.sig).toString('base64') };
}

/** The commit object a stored head stands for. */
export function commitOf(did: string, head: Pick<HostedCommit, 'data' | 'rev' | 'sig'>): Commit {
  return { did, version: 3, data: parseCid(head.data), rev: head.rev, prev: null, sig: new Uint8Array(Buffer.from(head.sig, 'base64')) };
}

/** The commit's block: its DAG-CBOR bytes and CID. */
export function commitBlock(commit: Commit): { bytes: Uint8Array; cid: Promise<Cid> } {
  const bytes = cborEncode(commit as never);
  return { bytes, cid: cidForCbor(bytes) };
}

/** The newest tree of each account used, by did, with the root it has. */
export class HostedTrees {
  private readonly trees = new Map<string, { data: string; tree: MST }>();

  /** The account's tree with root `data`, from the cache or built from `entries`. */
  async tree(did: string, data: string | undefined, entries: () => Promise<Iterable<readonly [string, string]>>): Promise<MST> {
    const kept = this.trees.get(did);
    if (kept && kept.data === (data ?? '')) return kept.tree;
    const tree = await buildTree(await entries());
    if (data !== undefined) {
      const root = (await tree.getPointer()).toString();
      if (root !== data) throw new TreeMoved(did, data, root);
    }
    this.keep(did, data ?? '', tree);
    return tree;
  }

  keep(did: string, data: string, tree: MST): void {
    this.trees.delete(did);
    if (this.trees.size >= treesKept) this.trees.delete(this.trees.keys().next().value!);
    this.trees.set(did, { data, tree });
  }
}

/** The records read did not make the head's tree: the head moved while they were read. */
export class TreeMoved extends Error {
  constructor(did: string, wanted: string, got: string) {
    super(`the records of ${did} make the tree ${got}, not the head's ${wanted}`);
    this.name = 'TreeMoved';
  }
}

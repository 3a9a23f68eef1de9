/**
 * A commit's writes applied to the repository's Merkle Search Tree in one walk.
 *
 * @atproto/repo's `MST.add` is immutable and per key: every add copies the entries of each node
 * on its path (several times: `getEntries` returns a copy, `slice`, `spliceIn`), hashes new
 * children eagerly (`MST.create`), and the commit then walks the old and new trees side by side
 * (`DataDiff.of`) and serialises the nodes on each proved path again. A commit of 200 records
 * paid that 200 times over (docs/decisions/repository-commits.md).
 *
 * Here the commit's writes, sorted by key, descend the tree once: each node on the way to any of
 * them is rebuilt once with all of its new leaves and gaps, every node it does not reach is kept
 * by reference, and each new node is serialised once, by the library (`MST.serialize`:
 * `serializeNodeData`, DAG-CBOR, `cidForCbor`), its bytes kept for the covering proofs the
 * library then walks (`getCoveringProof`). The tree is the library's `MST` and `Leaf` objects
 * throughout, so reads, proofs and the next commit use it as before. The shape follows the
 * library's own rules (`add`, `splitAround`): a key whose hash has `n` leading zero pairs is a
 * leaf of layer `n`; a gap between two leaves of a node holds one subtree of the layer below; a
 * key above the root's layer raises the root one layer at a time. An MST is canonical (one shape
 * for one set of keys), so the root is the one `add` after `add` reaches: the rebuild test and
 * the repository tests compare heads and verify every CAR, proof and frame with @atproto/repo.
 *
 * Only creates and updates: a delete takes the library's path (commit.ts).
 */
import type { Cid } from '@atproto/lex-data';
import { Leaf, MST, mstUtil, type NodeEntry, type ReadableBlockstore } from '@atproto/repo';

/** One write: a new key, or a new value for a key the tree holds. */
export interface TreePut {
  key: string;
  value: Cid;
  update: boolean;
}

/** A node this walk made: its serialisation (the library's) kept once made, for the proofs. */
class BuiltNode extends MST {
  sealed: { cid: Cid; bytes: Uint8Array } | undefined;

  override async serialize(): Promise<{ cid: Cid; bytes: Uint8Array }> {
    return this.sealed ?? super.serialize();
  }
}

export interface AppliedTree {
  root: MST;
  /** Every node the walk made, serialised, by its CID's text. */
  newNodes: Map<string, { cid: Cid; bytes: Uint8Array }>;
  /** The CIDs of the nodes and record values the new tree no longer holds, as text. */
  removed: Set<string>;
}

interface Walk {
  storage: ReadableBlockstore;
  /** The values updates replaced. */
  replaced: Cid[];
}

interface Placed {
  put: TreePut;
  zeros: number;
}

/** Applies `puts` to `root` (keys unique); the new root, its new nodes and what it dropped. */
export async function applyPuts(storage: ReadableBlockstore, root: MST, puts: TreePut[]): Promise<AppliedTree> {
  const sorted = [...puts].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const placed: Placed[] = [];
  let top = 0;
  for (let i = 0; i < sorted.length; i++) {
    const put = sorted[i]!;
    if (i > 0 && sorted[i - 1]!.key === put.key) throw new Error(`two writes of ${put.key} in one commit`);
    mstUtil.ensureValidMstKey(put.key);
    const zeros = await mstUtil.leadingZerosOnHash(put.key);
    if (zeros > top) top = zeros;
    placed.push({ put, zeros });
  }
  const walk: Walk = { storage, replaced: [] };
  const entries = await root.getEntries();
  if (!placed.length) return { root, newNodes: new Map(), removed: new Set() };
  let next: MST;
  if (!entries.length) next = await rebuild(walk, [], placed, top);
  else {
    let layer = await root.getLayer();
    let current: MST = root;
    // A key above the root's layer: the root goes down a layer at a time (as `add` does).
    while (layer < top) current = node(storage, [current], ++layer);
    next = await rebuild(walk, await current.getEntries(), placed, layer);
  }

  const newNodes = new Map<string, { cid: Cid; bytes: Uint8Array }>();
  const kept = new Set<string>();
  await seal(next, newNodes, kept);
  const removed = new Set<string>();
  if (entries.length) await dropped(root, kept, removed);
  for (const cid of walk.replaced) removed.add(cid.toString());
  // A node made again as it was (same CID) stays: neither new nor removed.
  for (const text of newNodes.keys()) {
    if (removed.delete(text)) newNodes.delete(text);
  }
  return { root: next, newNodes, removed };
}

function node(storage: ReadableBlockstore, entries: NodeEntry[], layer: number): BuiltNode {
  // The pointer is settled by `seal` before anything reads it.
  const made = new BuiltNode(storage, undefined as unknown as Cid, entries, layer);
  made.outdatedPointer = true;
  return made;
}

/**
 * The node of `layer` holding `entries` (its entries as they stand) with `placed` written into it:
 * keys of this layer become its leaves (an update replaces the leaf's value), keys below go to
 * the subtree of the gap they fall in, made or rebuilt in turn.
 */
async function rebuild(walk: Walk, entries: NodeEntry[], placed: Placed[], layer: number): Promise<MST> {
  const out: NodeEntry[] = [];
  let gapTree: MST | null = null;
  let gapPuts: Placed[] = [];
  const closeGap = async () => {
    if (gapPuts.length) {
      out.push(await rebuild(walk, gapTree ? await gapTree.getEntries() : [], gapPuts, layer - 1));
    } else if (gapTree) out.push(gapTree);
    gapTree = null;
    gapPuts = [];
  };
  let i = 0;
  let j = 0;
  while (i < entries.length || j < placed.length) {
    const at = entries[i];
    if (at?.isTree()) {
      gapTree = at as MST;
      i++;
      continue;
    }
    const entry = at as Leaf | undefined;
    const p = placed[j];
    if (p && (!entry || p.put.key < entry.key)) {
      if (p.zeros < layer) {
        gapPuts.push(p);
        j++;
        continue;
      }
      if (p.put.update) throw new Error(`Could not find a record with key: ${p.put.key}`);
      // A new leaf of this layer: the gap's subtree is split around it (`splitAround`).
      let right: MST | null = null;
      if (gapTree) [gapTree, right] = await split(walk, gapTree, p.put.key, layer - 1);
      await closeGap();
      out.push(new Leaf(p.put.key, p.put.value));
      gapTree = right;
      j++;
      continue;
    }
    await closeGap();
    if (p && p.put.key === entry!.key) {
      if (!p.put.update) throw new Error(`There is already a value at key: ${p.put.key}`);
      const was = entry!.value;
      if (!was.equals(p.put.value)) walk.replaced.push(was);
      out.push(new Leaf(p.put.key, p.put.value));
      j++;
    } else out.push(entry!);
    i++;
  }
  await closeGap();
  return node(walk.storage, out, layer);
}

/** `tree` (of `layer`) split into its keys below `key` and above it; a side with none is null. */
async function split(walk: Walk, tree: MST, key: string, layer: number): Promise<[MST | null, MST | null]> {
  const entries = await tree.getEntries();
  let at = entries.findIndex((e) => e.isLeaf() && (e as Leaf).key >= key);
  if (at < 0) at = entries.length;
  const last = entries[at - 1] as MST | Leaf | undefined;
  let l: MST | null = null;
  let r: MST | null = null;
  if (last?.isTree()) [l, r] = await split(walk, last as MST, key, layer - 1);
  // All of the tree on one side: the tree itself, unchanged.
  if (at === entries.length && (!last?.isTree() || !r)) return [tree, null];
  if (at === 0 || (at === 1 && last?.isTree() && !l)) return [null, tree];
  const left = entries.slice(0, at);
  const right = entries.slice(at);
  if (last?.isTree()) {
    left.pop();
    if (l) left.push(l);
    if (r) right.unshift(r);
  }
  return [left.length ? node(walk.storage, left, layer) : null, right.length ? node(walk.storage, right, layer) : null];
}

/** Serialises the new nodes under `tree`, children first; notes the old nodes they keep. */
async function seal(tree: MST, made: Map<string, { cid: Cid; bytes: Uint8Array }>, kept: Set<string>): Promise<void> {
  if (!tree.outdatedPointer) {
    kept.add(tree.pointer.toString());
    return;
  }
  for (const entry of tree.entries!) if (entry.isTree()) await seal(entry, made, kept);
  const sealed = await tree.serialize();
  tree.pointer = sealed.cid;
  tree.outdatedPointer = false;
  if (tree instanceof BuiltNode) tree.sealed = sealed;
  made.set(sealed.cid.toString(), sealed);
}

/** The old nodes under `tree` that the new tree does not keep (only those the walk opened). */
async function dropped(tree: MST, kept: Set<string>, removed: Set<string>): Promise<void> {
  const text = tree.pointer.toString();
  if (kept.has(text)) return;
  removed.add(text);
  for (const entry of await tree.getEntries()) if (entry.isTree()) await dropped(entry, kept, removed);
}

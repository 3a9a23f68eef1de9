/**
 * The one-walk commit (src/repository/tree-batch.ts) against @atproto/repo's own tree: batches of
 * creates and updates, appended at the right of several collections and spread between existing
 * keys, reach the root `add` after `add` reaches, with the nodes `DataDiff` calls new and
 * removed, and the same covering proofs; the tree reloaded lazily from its blocks takes the next
 * batch as well as the tree in memory.
 */
import { encode as cborEncode } from '@atproto/lex-cbor';
import { type Cid, cidForCbor } from '@atproto/lex-data';
import { BlockMap, DataDiff, MST, MemoryBlockstore } from '@atproto/repo';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { blockTexts, cidTexts } from '../../src/repository/block-texts.js';
import { applyPuts, type TreePut } from '../../src/repository/tree-batch.js';

/** A small deterministic generator (the test is the same every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let values = 0;
const valueCid = async (): Promise<Cid> => cidForCbor(cborEncode({ n: values++ }));

const texts = (m: Iterable<string>) => [...m].sort();

for (const seed of [1, 2, 3]) {
  test(`batches of creates and updates reach the library's tree (seed ${seed})`, async () => {
    const next = random(seed);
    const storage = new MemoryBlockstore();
    const collections = ['town.world.arrival', 'town.world.delivery', 'town.world.turn'];
    const heights = new Map(collections.map((c) => [c, 0]));
    const keys: string[] = [];
    let lib = await MST.create(storage);
    let ours: MST = lib;
    for (let round = 0; round < 40; round++) {
      const size = round % 7 === 0 ? 1 + Math.floor(next() * 300) : 1 + Math.floor(next() * 40);
      const batch = new Map<string, TreePut>();
      for (let i = 0; i < size; i++) {
        const r = next();
        let key: string;
        let update = false;
        if (r < 0.15 && keys.length) {
          key = keys[Math.floor(next() * keys.length)]!;
          update = true;
        } else if (r < 0.3) {
          key = `town.world.cite/${Math.floor(next() * 1e9).toString(36)}`; // between existing keys
        } else {
          const c = collections[Math.floor(next() * collections.length)]!;
          const h = heights.get(c)! + 1;
          heights.set(c, h);
          key = `${c}/${String(h).padStart(12, '0')}`;
        }
        if (batch.has(key) || (!update && keys.includes(key))) continue;
        batch.set(key, { key, value: await valueCid(), update });
      }
      const puts = [...batch.values()];

      const before = lib;
      for (const p of puts) lib = p.update ? await lib.update(p.key, p.value) : await lib.add(p.key, p.value);
      const libRoot = await lib.getPointer();
      const diff = await DataDiff.of(lib, round === 0 ? null : before);

      const applied = await applyPuts(storage, ours, puts);
      assert.is(applied.root.pointer.toString(), libRoot.toString(), `round ${round}: the same root`);
      const diffLeaves = new Set(cidTexts(diff.newLeafCids));
      const ourNew = [...applied.newNodes.keys()];
      assert.equal(texts(ourNew), texts([...blockTexts(diff.newMstBlocks).keys()].filter((t) => !diffLeaves.has(t))), `round ${round}: new nodes`);
      if (round > 0) assert.equal(texts(applied.removed), texts(cidTexts(diff.removedCids)), `round ${round}: removed`);
      for (const [text, { bytes }] of applied.newNodes) assert.equal(bytes, blockTexts(diff.newMstBlocks).get(text));

      const proofKeys = [puts[0]!.key, puts[puts.length - 1]!.key];
      for (const key of proofKeys) {
        const [a, b] = await Promise.all([applied.root.getCoveringProof(key), lib.getCoveringProof(key)]);
        assert.equal(texts(blockTexts(a).keys()), texts(blockTexts(b).keys()), `round ${round}: proof of ${key}`);
      }

      const stored = new BlockMap();
      for (const [text, bytes] of blockTexts(diff.newMstBlocks)) blockTexts(stored).set(text, bytes);
      await storage.putMany(stored);
      for (const p of puts) if (!p.update) keys.push(p.key);
      // Every few rounds, the next batch goes into the tree read back from its blocks.
      ours = round % 3 === 2 ? MST.load(storage, applied.root.pointer) : applied.root;
    }
  });
}

test('a write of a key the tree lacks, or a create of one it holds, is refused', async () => {
  const storage = new MemoryBlockstore();
  const empty = await MST.create(storage);
  const one = await applyPuts(storage, empty, [{ key: 'town.world.turn/000000000001', value: await valueCid(), update: false }]);
  const v = await valueCid();
  const refused = async (puts: TreePut[], message: RegExp) => {
    try {
      await applyPuts(storage, one.root, puts);
    } catch (error) {
      assert.match(String(error), message);
      return;
    }
    assert.unreachable(`applied ${puts[0]!.key}`);
  };
  await refused([{ key: 'town.world.turn/000000000001', value: v, update: false }], /already a value/);
  await refused([{ key: 'town.world.turn/000000000002', value: v, update: true }], /Could not find/);
  await refused([{ key: 'not a key', value: v, update: false }], /Not a valid MST key/);
  await refused(
    [
      { key: 'town.world.turn/000000000003', value: v, update: false },
      { key: 'town.world.turn/000000000003', value: v, update: false },
    ],
    /two writes/,
  );
});

test.run();

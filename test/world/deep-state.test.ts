/**
 * A card whose state nests with its data (a self-referential type: a linked list) projects on
 * the read store, which refuses documents deeper than MongoDB's 100 levels, and reads back
 * through every route that shows a card's state: the world reply, the card reply, the card's
 * page and the repository's live card value (`town.world.getProjection`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../src/cards/compile.js';
import { genesisTown } from '../../src/cards/kernel/genesis.js';
import { compileInput, libraryKinds } from '../../src/cards/kernel/library.js';
import { programCache } from '../../src/cards/kernel/programs.js';
import { sealedLibrary } from '../../src/cards/library/index.js';
import type { Library, Module } from '../../src/cards/program.js';
import type { TypedData } from '../../src/contract/typed.js';
import { cardDocs } from '../../src/projections/cards.js';
import { worldKey } from '../../src/projections/entries.js';
import { depthOf } from '../../src/stores/read-store-checks.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import type { Doc } from '../../src/stores/read-store.js';
import { readModel } from '../../src/projections/read-model.js';
import { startTestTown, type Guest, type TestTown } from './support.js';

const chain = `type Chain:
  none
  link { value: Natural, rest: Chain }

type Holder:
  chain: Chain
  size: Natural

def initial() -> Holder:
  return Holder { chain: none, size: 0 }

spell grow(self: Holder, n: Natural 0..100) -> Holder:
  let c = self.chain
  for i in 1..n:
    c = Chain.link { value: i, rest: c }
  return self { chain: c, size: self.size + n }

view paint(self: Holder, viewer: Principal) -> Text:
  return "a chain of {self.size} links"

view page(self: Holder, viewer: Principal) -> Text:
  return "a page about {self.size} links"
`;

function programs() {
  const modules = new Map<string, Module>(sealedLibrary().modules);
  modules.set('chain', { name: 'chain', source: chain });
  const library: Library = { modules };
  return programCache({ compile: (pkg) => compile(compileInput(pkg), library), kinds: libraryKinds(library), libraryModules: [...modules.values()] });
}

/** The links of a Chain value in a Holder's typed state. */
function links(state: TypedData): number[] {
  const out: number[] = [];
  let c = state.tag === 'record' ? state.fields.find((f) => f.name === 'chain')?.value : undefined;
  while (c?.tag === 'variant' && c.label === 'link' && c.payload?.tag === 'record') {
    const value = c.payload.fields.find((f) => f.name === 'value')?.value;
    out.push(value?.tag === 'natural' ? Number(value.value) : -1);
    c = c.payload.fields.find((f) => f.name === 'rest')?.value;
  }
  return out;
}

const test = suite<{ t: TestTown; ann: Guest }>('a card whose state nests deeper than MongoDB allows');
test.before(async (ctx) => {
  ctx.t = await startTestTown({
    programs: programs(),
    layout: { entrance: genesisTown.entrance, cards: [...genesisTown.cards, { id: 'chain', kind: 'chain', place: 'square' }] },
  });
  ctx.ann = await ctx.t.guest('ann');
});
test.after(async (ctx) => {
  await ctx.t.close();
});

test('a 30-link chain projects and reads back through every route', async ({ t, ann }) => {
  const grown = await t.post('/AGENTS.md/world/chain/grow', ann.token, { intent: 'grow', fields: { n: 30 } });
  assert.is(grown.status, 200, grown.text);
  assert.is(grown.json.status, 'done', grown.text);
  const want = Array.from({ length: 30 }, (_, i) => 30 - i);
  // The state itself nests far deeper than a stored document may.
  const world = await t.get('/AGENTS.md/world/chain', ann.token);
  assert.is(world.status, 200, world.text);
  assert.ok(depthOf(world.json.state) > 100, `the state nests ${depthOf(world.json.state)} levels`);
  assert.equal(links(world.json.state), want);
  // The card reply shows it as the caller sees it (its paint and lines, not the state).
  const card = await t.get('/AGENTS.md/world/chain/card', ann.token);
  assert.is(card.status, 200, card.text);
  assert.is(card.json.id, 'chain');
  assert.is(card.json.paint, 'a chain of 30 links');
  const page = await t.request('GET', '/o/chain');
  assert.is(page.status, 200);
  assert.match(page.text, /a chain of 30 links/);
  // The repository serves no state in its records; its live values read the card as anyone sees it.
  const live = await t.request('GET', `/xrpc/town.world.getProjection?kind=card&card=chain`);
  assert.is(live.status, 200, live.text);
  assert.is(live.json.value.id, 'chain');
  const livePage = await t.request('GET', `/xrpc/town.world.getProjection?kind=page&card=chain`);
  assert.is(livePage.status, 200, livePage.text);
  assert.is(livePage.json.value.text, 'a page about 30 links');
  // The read model holds it, encoded: the document stays shallow whatever the state's depth.
  const doc = await cardDocs.in(t.town.reads).findOne({ _id: worldKey('town', 'chain') });
  assert.equal(links(doc!.state), want);
  const raw = await t.town.reads.collection(cardDocs.name).findOne({ _id: worldKey('town', 'chain') });
  assert.type(raw!.state, 'string');
  assert.ok(depthOf(raw) < 10);
});

test('the encoded state cannot be filtered on (it would match nothing on either store)', async ({ t }) => {
  let threw: unknown;
  try {
    await cardDocs.in(t.town.reads).find({ 'state.tag': 'record' });
  } catch (error) {
    threw = error;
  }
  assert.instance(threw, TypeError);
});

test.run();

// The handle under it: fields kept encoded whatever the write, and no query inside them.
const handle = suite('a read model collection with encoded fields');
handle('every write encodes, every read decodes, and paths inside are refused', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  const reads = await openEmbeddedReadStore({ dataDir: dir });
  try {
    const docs = readModel('deep').collection<Doc & { state?: unknown; n?: number }>('things', { encoded: ['state'] });
    const c = docs.in(reads);
    const deep = nest(150);
    await c.insertOne({ _id: 'a', state: deep, n: 1 });
    await c.putMany([{ _id: 'b', state: deep, n: 2 }]);
    await c.replaceOne({ _id: 'c' }, { _id: 'c', state: deep, n: 3 }, { upsert: true });
    await c.updateOne({ _id: 'd' }, { $set: { state: deep, n: 4 } }, { upsert: true });
    await reads.unit(async (u) => docs.in(u).updateOne({ _id: 'a' }, { $set: { state: nest(120) }, $inc: { n: 10 } }));
    for (const id of ['a', 'b', 'c', 'd']) {
      const raw = await reads.collection('deep.things').findOne({ _id: id });
      assert.type(raw!.state, 'string', id);
    }
    assert.equal((await c.findOne({ _id: 'a' }))!.state, nest(120));
    assert.equal(
      (await c.find({ n: { $gte: 2 } }, { sort: { n: 1 } })).map((d) => depthOf(d.state, 1000)),
      [150, 150, 150, 120],
    );
    assert.is(await c.count({ n: { $gt: 0 } }), 4);
    const refused = [
      () => c.find({ 'state.s': 1 }),
      () => c.find({ $or: [{ n: 1 }, { state: 'x' }] }),
      () => c.find({}, { sort: { state: 1 } }),
      () => c.updateOne({ _id: 'a' }, { $set: { 'state.s': 1 } }),
      () => c.updateOne({ _id: 'a' }, { $push: { state: 1 } }),
      () => c.count({ state: { $exists: true } }),
      () => c.createIndex({ keys: { 'state.s': 1 } }),
    ];
    for (const call of refused) {
      let threw: unknown;
      try {
        await call();
      } catch (error) {
        threw = error;
      }
      assert.instance(threw, TypeError, String(call));
    }
  } finally {
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
handle.run();

function nest(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { s: v };
  return v;
}

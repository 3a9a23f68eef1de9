/**
 * Scratch worlds over HTTP (spec 4.3, 2.7, 2.8, 3, 8): opening them empty or forked, every world
 * route in them, objects, repl, check, cite, expiry, and every refusal. A fork shows the town as
 * it stood at its height, never a card the forker may not see, and never changes the town.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { cardDocs } from '../../src/projections/cards.js';
import { receiptDocs } from '../../src/projections/receipts.js';
import { worldStream } from '../../src/events/world.js';
import { type Guest, startTestTown, type TestTown } from '../world/support.js';

const lamp = `use core

type Lamp:
  lit: Boolean
  fuel: Natural

def initial() -> Lamp:
  return Lamp { lit: false, fuel: 1 }

spell light(self: Lamp) -> Lamp:
  if self.fuel == 0:
    refuse "dry" "no oil"
  say "{caller} lights it"
  return self { lit: true, fuel: self.fuel - 1 }
`;

let t: TestTown;
let ann: Guest;
let bob: Guest;

test.before(async () => {
  t = await startTestTown();
  ann = await t.guest('ann');
  bob = await t.guest('bob');
});
test.after(async () => {
  await t.close();
});

/** Closes every world of a guest by letting them expire (six hours of clock). */
async function expireAll(): Promise<void> {
  t.clock.advance(limits.scratchLifetimeSeconds * 1000 + 1);
  for (const g of [ann, bob]) assert.equal((await t.get('/AGENTS.md/me', g.token)).json.scratches, []);
}

test('an empty world: the sealed library, no card; create, cast, read, receipts, pending, deliver, offers', async () => {
  const opened = await t.post('/AGENTS.md/scratch', ann.token, { name: 'lab' });
  assert.is(opened.status, 200, opened.text);
  assert.equal(
    { status: opened.json.status, world: opened.json.world, height: opened.json.height, expires: opened.json.expires },
    { status: 'scratch', world: 'scratch/lab', height: 1, expires: new Date(t.clock() + 6 * 3_600_000).toISOString() },
  );
  const empty = await t.get('/AGENTS.md/scratch/lab/world', ann.token);
  assert.equal(empty.json.cards, []);
  assert.is(empty.json.world, 'scratch/lab');

  const made = await t.post('/AGENTS.md/scratch/lab/objects', ann.token, {
    object: 'mine',
    source: lamp,
    entry: 'initial',
    intent: 'make-mine',
    seed: { fuel: 2 },
  });
  assert.is(made.status, 200, made.text);
  assert.is(made.json.status, 'done');
  assert.is(made.json._links.receipt.href, `/AGENTS.md/scratch/lab/receipt/${made.json.receipt.slug}`);
  const lit = await t.post('/AGENTS.md/scratch/lab/world/mine/light', ann.token, { intent: 'light-1' });
  assert.is(lit.json.status, 'done', lit.text);
  assert.is(lit.json.line, 'ann.town.test lights it');
  const card = await t.get('/AGENTS.md/scratch/lab/world/mine', ann.token);
  assert.is(card.json.version, 2);
  assert.equal(card.json.state.fields.find((f: any) => f.name === 'fuel').value, { tag: 'natural', value: 1 });
  assert.is((await t.get('/AGENTS.md/scratch/lab/world/mine/card', ann.token)).status, 200);
  assert.match((await t.get('/AGENTS.md/scratch/lab/world/mine/source', ann.token)).json.source, /spell light/);
  const bySlug = await t.get(`/AGENTS.md/scratch/lab/receipt/${lit.json.receipt.slug}`, ann.token);
  assert.is(bySlug.status, 200, bySlug.text);
  const byIntent = await t.get('/AGENTS.md/scratch/lab/receipt?intent=light-1', ann.token);
  assert.is(byIntent.status, 200, byIntent.text);
  // A repeat answers the first receipt; the same intent in the town is another turn entirely.
  const again = await t.post('/AGENTS.md/scratch/lab/world/mine/light', ann.token, { intent: 'light-1' });
  assert.is(again.json.receipt.slug, lit.json.receipt.slug);
  assert.is((await t.get('/AGENTS.md/receipt?intent=light-1', ann.token)).status, 404, 'the town has no such turn');
  const dry = await t.post('/AGENTS.md/scratch/lab/world/mine/light', ann.token, { intent: 'light-2' });
  assert.is(dry.json.status, 'done');
  const refused = await t.post('/AGENTS.md/scratch/lab/world/mine/light', ann.token, { intent: 'light-3' });
  assert.is(refused.json.status, 'refused');
  assert.is(refused.json.class, 'cardRefused');
  assert.is((await t.get('/AGENTS.md/scratch/lab/pending', ann.token)).status, 200);
  const delivered = await t.post('/AGENTS.md/scratch/lab/deliver', ann.token, {});
  assert.is(delivered.json.status, 'nothing', delivered.text);
  assert.is((await t.get('/AGENTS.md/scratch/lab/offers', ann.token)).status, 200);
  // The town never saw any of it.
  assert.is((await t.get('/AGENTS.md/world/mine', ann.token)).status, 404);
});

test('another guest’s scratch world answers exactly as one that does not exist', async () => {
  const foreign = await t.get('/AGENTS.md/scratch/lab/world', bob.token);
  const none = await t.get('/AGENTS.md/scratch/nope/world', ann.token);
  assert.is(foreign.status, 404);
  assert.is(none.status, 404);
  assert.is(foreign.json.class, none.json.class);
  assert.is(foreign.json.message.replace('"lab"', 'X'), none.json.message.replace('"nope"', 'X'));
  assert.is((await t.post('/AGENTS.md/scratch/lab/world/mine/light', bob.token, { intent: 'steal' })).status, 404);
  assert.is((await t.post('/AGENTS.md/scratch/lab/objects', bob.token, { object: 'x', source: lamp, entry: 'initial', intent: 'x' })).status, 404);
});

test('repl: a plain entry answers its value; an Activity runs as the caller’s turn there; check names stage, line and span', async () => {
  const value = await t.post('/AGENTS.md/scratch/lab/repl', ann.token, {
    source: 'def twice(n: Natural) -> Natural:\n  return n * 2\n',
    entry: 'twice',
    arguments: [{ tag: 'natural', value: 21 }],
  });
  assert.is(value.status, 200, value.text);
  assert.equal({ status: value.json.status, result: value.json.result }, { status: 'value', result: { tag: 'natural', value: 42 } });
  const activity = await t.post('/AGENTS.md/scratch/lab/repl', ann.token, { source: lamp, entry: 'light', object: 'bench-lamp', intent: 'repl-light' });
  assert.is(activity.json.status, 'done', activity.text);
  assert.is((await t.get('/AGENTS.md/scratch/lab/world/bench-lamp', ann.token)).status, 200, 'the object the module defines');
  const onIt = await t.post('/AGENTS.md/scratch/lab/repl', ann.token, { entry: 'light', object: 'bench-lamp' });
  assert.is(onIt.json.status, 'refused', 'with no source the method runs on the object as it is (no oil left)');
  const checked = await t.post('/AGENTS.md/scratch/lab/check', ann.token, { source: 'use core\n\ndef f() -> Natural:\n  return "x"\n' });
  assert.is(checked.status, 200, checked.text);
  assert.is(checked.json.ok, false);
  const d = checked.json.diagnostics[0];
  assert.equal([d.stage, d.line], ['type', 4]);
  assert.ok(d.endColumn > d.column, 'a span');
  assert.ok(d.hint, 'a hint');
  const full = await t.post('/AGENTS.md/scratch/lab/check?full=1', ann.token, { source: 'use core\n\ndef f() -> Natural:\n  return "x"\n' });
  assert.is(full.json.diagnostics[0].message, d.message);
  const good = await t.post('/AGENTS.md/scratch/lab/check', ann.token, { source: lamp });
  assert.equal({ ok: good.json.ok, diagnostics: good.json.diagnostics }, { ok: true, diagnostics: [] });
});

test('refusals: a bad name, a third world naming the oldest, a foreign from, a height past the head, moduleTooLarge, 65 modules', async () => {
  const bad = await t.post('/AGENTS.md/scratch', ann.token, { name: 'Bad Name' });
  assert.is(bad.status, 400);
  assert.is(bad.json.class, 'hostRequest');
  assert.match(bad.json.message, /name/);
  assert.is((await t.post('/AGENTS.md/scratch', ann.token, { name: 'lab' })).status, 400, 'already open');
  const second = await t.post('/AGENTS.md/scratch', ann.token, { name: 'two', from: { world: 'town' } });
  assert.is(second.status, 200, second.text);
  const third = await t.post('/AGENTS.md/scratch', ann.token, { name: 'three' });
  assert.is(third.status, 429, third.text);
  assert.is(third.json.class, 'rateLimited');
  assert.is(third.json.oldest, 'scratch/lab');
  assert.match(third.json.message, /scratch\/lab/);
  assert.ok(Number(third.headers['retry-after']) > 0);
  const foreign = await t.post('/AGENTS.md/scratch', bob.token, { name: 'fork', from: { world: 'scratch/lab' } });
  assert.is(foreign.status, 404, foreign.text);
  assert.is(foreign.json.class, 'unknown');
  const tooHigh = await t.post('/AGENTS.md/scratch', bob.token, { name: 'high', from: { world: 'town', height: 1_000_000 } });
  assert.is(tooHigh.status, 400, tooHigh.text);
  assert.is(tooHigh.json.class, 'hostRequest');
  assert.match(tooHigh.json.message, /height/);
  const wrongWorld = await t.post('/AGENTS.md/scratch', bob.token, { name: 'odd', from: { world: 'elsewhere' } });
  assert.is(wrongWorld.status, 400, wrongWorld.text);
  const big = await t.post('/AGENTS.md/scratch/lab/objects', ann.token, {
    object: 'big',
    source: `# ${'x'.repeat(limits.moduleBytes)}\n${lamp}`,
    entry: 'initial',
    intent: 'big',
  });
  assert.is(big.status, 413, big.text);
  assert.is(big.json.class, 'moduleTooLarge');
  const many = Array.from({ length: 65 }, (_, i) => ({ name: `m${i}`, source: 'def f() -> Natural:\n  return 1\n' }));
  const tooMany = await t.post('/AGENTS.md/scratch/lab/check', ann.token, { modules: many });
  assert.is(tooMany.status, 400, tooMany.text);
  assert.match(tooMany.json.message, /64/);
});

test('a fork shows the town as it stood at its height, none of what the forker may not see, and never changes the town', async () => {
  await expireAll();
  // bob keeps a card of his own in the town, which ann may not see.
  const secret = await t.town.world.submit({
    kind: 'create',
    principal: bob.principal,
    intent: 'bob-secret',
    object: 'bob-secret',
    source: lamp,
    entry: 'initial',
  });
  assert.is(secret.outcome.kind, 'journal');
  const fill = (n: number, intent: string) => t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent, fields: { measures: n } });
  assert.is((await fill(1, 'fill-before')).json.status, 'done');
  const before = await t.get('/AGENTS.md/world/lamp', ann.token);
  const height = t.town.world.height;
  assert.is((await fill(2, 'fill-after')).json.status, 'done');
  const now = await t.get('/AGENTS.md/world/lamp', ann.token);
  assert.ok(now.json.version > before.json.version);

  const old = await t.post('/AGENTS.md/scratch', ann.token, { name: 'then', from: { world: 'town', height } });
  assert.is(old.status, 200, old.text);
  const thenLamp = await t.get('/AGENTS.md/scratch/then/world/lamp', ann.token);
  assert.equal({ state: thenLamp.json.state, version: thenLamp.json.version }, { state: before.json.state, version: before.json.version });
  const head = await t.post('/AGENTS.md/scratch', ann.token, { name: 'now', from: { world: 'town' } });
  assert.is(head.status, 200, head.text);
  assert.equal((await t.get('/AGENTS.md/scratch/now/world/lamp', ann.token)).json.state, now.json.state);

  for (const name of ['then', 'now']) {
    const ids = (await t.get(`/AGENTS.md/scratch/${name}/world`, ann.token)).json.cards.map((c: { id: string }) => c.id);
    assert.ok(ids.includes('lamp') && ids.includes('square'), `${name}: the town's cards`);
    assert.not.ok(ids.includes('bob-secret'), `${name}: never a card the forker may not see`);
    assert.is((await t.get(`/AGENTS.md/scratch/${name}/world/bob-secret`, ann.token)).status, 404);
    const cast = await t.post(`/AGENTS.md/scratch/${name}/world/bob-secret/light`, ann.token, { intent: `${name}-steal` });
    assert.is(cast.json.class, 'unknownObject');
  }
  const inFork = await t.post('/AGENTS.md/scratch/now/world/lamp/fill', ann.token, { intent: 'fork-fill', fields: { measures: 1 } });
  assert.is(inFork.json.status, 'done', inFork.text);
  assert.equal((await t.get('/AGENTS.md/world/lamp', ann.token)).json, now.json, 'the town is as it was');
  // A fork of one's own world.
  await expireAll();
  await t.post('/AGENTS.md/scratch', ann.token, { name: 'base' });
  await t.post('/AGENTS.md/scratch/base/objects', ann.token, { object: 'mine', source: lamp, entry: 'initial', intent: 'm' });
  const child = await t.post('/AGENTS.md/scratch', ann.token, { name: 'child', from: { world: 'scratch/base' } });
  assert.is(child.status, 200, child.text);
  assert.is((await t.get('/AGENTS.md/scratch/child/world/mine', ann.token)).status, 200);
});

test('me lists open worlds; six hours after the last turn a world expires: it stops answering and frees its slot', async () => {
  await expireAll();
  await t.post('/AGENTS.md/scratch', ann.token, { name: 'a' });
  const openedAt = t.clock();
  t.clock.advance(3_600_000);
  await t.post('/AGENTS.md/scratch/a/objects', ann.token, { object: 'mine', source: lamp, entry: 'initial', intent: 'm' });
  const me = await t.get('/AGENTS.md/me', ann.token);
  assert.equal(me.json.scratches, [
    {
      principal: ann.principal,
      world: 'scratch/a',
      lastTurn: new Date(openedAt + 3_600_000).toISOString(),
      expires: new Date(openedAt + 3_600_000 + 6 * 3_600_000).toISOString(),
    },
  ]);
  t.clock.advance(6 * 3_600_000 - 1000);
  assert.is((await t.get('/AGENTS.md/scratch/a/world', ann.token)).status, 200, 'still open a second before');
  assert.ok((await cardDocs.in(t.town.reads).count({ world: 'scratch.ann.a.1' })) > 0, 'the world has read models');
  t.clock.advance(1000);
  const gone = await t.get('/AGENTS.md/scratch/a/world', ann.token);
  assert.is(gone.status, 404, gone.text);
  assert.equal((await t.get('/AGENTS.md/me', ann.token)).json.scratches, []);
  // Its read models are reclaimed as the projections fold its expiry.
  const left = async () => {
    let n = 0;
    for (const c of [cardDocs, receiptDocs]) n += await c.in(t.town.reads).count({ world: 'scratch.ann.a.1' });
    return n;
  };
  for (const until = Date.now() + 3000; (await left()) > 0; ) {
    assert.ok(Date.now() < until, 'the expired world’s read models are deleted');
    await new Promise((r) => setTimeout(r, 20));
  }
  // Its journal stream is deleted, for good.
  assert.equal(await t.town.events.readStream(worldStream('scratch.ann.a.1')), []);
  assert.is(await t.town.events.streamRevision(worldStream('scratch.ann.a.1')), undefined);
  assert.is((await t.post('/AGENTS.md/scratch', ann.token, { name: 'a' })).status, 200, 'the name opens again, a new world');
  assert.equal((await t.get('/AGENTS.md/scratch/a/world', ann.token)).json.cards, [], 'nothing of the expired world');
  assert.is((await t.post('/AGENTS.md/scratch', ann.token, { name: 'b' })).status, 200, 'the slot was freed');
});

test('cite keeps a scratch entry in the town under the caller’s name; it reads back from the town and outlives the world', async () => {
  await expireAll();
  await t.post('/AGENTS.md/scratch', ann.token, { name: 'c' });
  const made = await t.post('/AGENTS.md/scratch/c/objects', ann.token, { object: 'mine', source: lamp, entry: 'initial', intent: 'm' });
  const lit = await t.post('/AGENTS.md/scratch/c/world/mine/light?full=1', ann.token, { intent: 'l' });
  const cid = lit.json.receipt.cid;
  assert.type(cid, 'string', lit.text);
  const cited = await t.post('/AGENTS.md/scratch/c/cite', ann.token, { receipt: cid });
  assert.is(cited.status, 200, cited.text);
  assert.is(cited.json.status, 'done');
  const back = await t.get(`/AGENTS.md/receipt?intent=${encodeURIComponent(`cite:${cid}`)}`, ann.token);
  assert.is(back.status, 200, back.text);
  const unknown = await t.post('/AGENTS.md/scratch/c/cite', ann.token, { receipt: 'bafyreinotareceipt' });
  assert.is(unknown.status, 404);
  assert.ok(made.json.receipt);
  await expireAll();
  assert.is((await t.get(`/AGENTS.md/receipt?intent=${encodeURIComponent(`cite:${cid}`)}`, ann.token)).status, 200, 'the cite outlives the world');
});

test('DELETE closes a world: only its owner, it stops answering, its slot frees at once, what was cited stays', async () => {
  await expireAll();
  await t.post('/AGENTS.md/scratch', ann.token, { name: 'x' });
  await t.post('/AGENTS.md/scratch', ann.token, { name: 'y' });
  await t.post('/AGENTS.md/scratch/x/objects', ann.token, { object: 'mine', source: lamp, entry: 'initial', intent: 'mx' });
  const lit = await t.post('/AGENTS.md/scratch/x/world/mine/light?full=1', ann.token, { intent: 'lx' });
  const cid = lit.json.receipt.cid;
  const cited = await t.post('/AGENTS.md/scratch/x/cite', ann.token, { receipt: cid });
  assert.is(cited.status, 200, cited.text);
  const full = (await t.post('/AGENTS.md/scratch', ann.token, { name: 'z' })).status;
  assert.is(full, 429, 'two open: a third is refused');

  assert.is((await t.request('DELETE', '/AGENTS.md/scratch/x')).status, 401, 'bearer auth');
  const foreign = await t.request('DELETE', '/AGENTS.md/scratch/x', { token: bob.token });
  assert.is(foreign.status, 404, 'another guest’s world is as one that does not exist');
  assert.is(foreign.json.class, 'unknown');
  assert.is((await t.get('/AGENTS.md/scratch/x/world', ann.token)).status, 200, 'still open for its owner');

  const closed = await t.request('DELETE', '/AGENTS.md/scratch/x', { token: ann.token });
  assert.is(closed.status, 200, closed.text);
  assert.equal({ status: closed.json.status, world: closed.json.world }, { status: 'closed', world: 'scratch/x' });
  assert.is(closed.json.height, 3, 'its entries: the empty world, mine, the light');
  assert.is(closed.json._links.me.href, '/AGENTS.md/me');
  assert.is((await t.get('/AGENTS.md/scratch/x/world', ann.token)).status, 404, 'it stops answering');
  assert.equal(
    (await t.get('/AGENTS.md/me', ann.token)).json.scratches.map((s: any) => s.world),
    ['scratch/y'],
  );
  const again = await t.request('DELETE', '/AGENTS.md/scratch/x', { token: ann.token });
  assert.is(again.status, 404, 'a closed world cannot be closed twice');
  assert.is((await t.post('/AGENTS.md/scratch', ann.token, { name: 'z' })).status, 200, 'the slot is free at once');
  // The cite lives in the town's journal, not the world's.
  const back = await t.get(`/AGENTS.md/receipt?intent=${encodeURIComponent(`cite:${cid}`)}`, ann.token);
  assert.is(back.status, 200, back.text);
  // Its journal and read models go as an expired world's do.
  assert.equal(await t.town.events.readStream(worldStream('scratch.ann.x.1')), []);
  for (const until = Date.now() + 3000; (await cardDocs.in(t.town.reads).count({ world: 'scratch.ann.x.1' })) > 0; ) {
    assert.ok(Date.now() < until, 'the closed world’s read models are deleted');
    await new Promise((r) => setTimeout(r, 20));
  }
  // A world past its time has expired: closing it answers as for one never opened.
  t.clock.advance(limits.scratchLifetimeSeconds * 1000 + 1);
  assert.is((await t.request('DELETE', '/AGENTS.md/scratch/y', { token: ann.token })).status, 404);
});

test('a path that takes other methods answers DELETE 405 with Allow; a method no route takes is 501', async () => {
  const world = await t.request('DELETE', '/AGENTS.md/world', { token: ann.token });
  assert.is(world.status, 405, world.text);
  assert.is(world.json.class, 'methodNotAllowed');
  assert.match(String(world.headers.allow), 'GET');
  const open = await t.request('GET', '/AGENTS.md/scratch/x', { token: ann.token });
  assert.is(open.status, 405);
  assert.is(open.headers.allow, 'DELETE');
  const put = await t.request('PUT', '/AGENTS.md/world', { token: ann.token });
  assert.is(put.status, 501);
  assert.is(put.json.class, 'notImplemented');
  assert.match(put.json.message, 'DELETE');
  assert.is((await t.request('DELETE', '/AGENTS.md/nowhere', { token: ann.token })).status, 404);
});

test('cite takes a spoken name or a content id; its reply links the scratch card and receipt, never a town card', async () => {
  await expireAll();
  await t.post('/AGENTS.md/scratch', ann.token, { name: 's' });
  await t.post('/AGENTS.md/scratch/s/objects', ann.token, { object: 'hidden-lamp', source: lamp, entry: 'initial', intent: 'hm', seed: { fuel: 3 } });
  const lit = await t.post('/AGENTS.md/scratch/s/world/hidden-lamp/light?full=1', ann.token, { intent: 'hl' });
  const { slug, cid } = lit.json.receipt;
  const bySlug = await t.post('/AGENTS.md/scratch/s/cite', ann.token, { receipt: slug });
  assert.is(bySlug.status, 200, bySlug.text);
  assert.is(bySlug.json.status, 'done');
  // The same receipt by its content id is the same cite (its default intent is `cite:<cid>`).
  const byCid = await t.post('/AGENTS.md/scratch/s/cite', ann.token, { receipt: cid });
  assert.equal(byCid.json.receipt, bySlug.json.receipt);
  const links = bySlug.json._links;
  assert.is((await t.get(links.receipt.href, ann.token)).status, 200, 'the town receipt');
  assert.is(links.cited.href, `/AGENTS.md/scratch/s/receipt/${slug}`);
  assert.is(links.card.href, '/AGENTS.md/scratch/s/world/hidden-lamp/card');
  for (const rel of Object.keys(links).filter((k) => k !== 'self')) {
    const r = await t.get(links[rel].href, ann.token);
    assert.is(r.status, 200, `${rel}: ${links[rel].href} ${r.text}`);
  }
  // The town has no such card: no link points at one.
  assert.is((await t.get('/AGENTS.md/world/hidden-lamp/card', ann.token)).status, 404);
  const unknown = await t.post('/AGENTS.md/scratch/s/cite', ann.token, { receipt: 'acorn-acorn-acorn' });
  assert.is(unknown.status, 404);
  assert.match(unknown.json.message, 'spoken name (slug) or content id (cid)');
  const api = await t.get('/AGENTS.md/api', ann.token);
  const cite = api.json.routes.find((r: any) => r.name === 'cite');
  assert.match(cite.body.receipt, 'spoken name (slug) or its content id (cid)');
});

test('the catalogue lists each route’s scratch path', async () => {
  const api = await t.get('/AGENTS.md/api', ann.token);
  const by = (name: string) => api.json.routes.find((r: any) => r.name === name);
  assert.is(by('turn').scratch, '/AGENTS.md/scratch/{name}/world/{object}/{method}');
  assert.is(by('scratch').built, undefined);
  assert.is(by('cite').built, undefined);
  assert.equal(
    { method: by('scratchClose').method, href: by('scratchClose').href, auth: by('scratchClose').auth },
    { method: 'DELETE', href: '/AGENTS.md/scratch/{name}', auth: 'bearer' },
  );
  const tool = t.town.mcp.town.toolList.find((x: { name: string }) => x.name === 'scratchClose');
  assert.ok(tool, 'closing is an MCP tool');
  assert.equal(tool.inputSchema.required, ['name']);
  assert.is(tool.annotations?.destructiveHint, true);
});

test.run();

/**
 * A fork of the town that does not copy it: the fork entry names the town and the
 * height, and the fork reads through to the town as it stood there. The town's changes since are
 * never seen in the fork, the fork's never in the town; a card the forker could not see at the
 * height is `unknown` in every route; and the same fork opened again from the journal (a restart:
 * the town replayed to the height) answers exactly as before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { worldStream } from '../../src/events/world.js';
import { type Guest, startTestTown, type TestTown } from '../world/support.js';

const lamp = `use core

type Lamp:
  lit: Boolean
  fuel: Natural

def initial() -> Lamp:
  return Lamp { lit: false, fuel: 1 }

spell light(self: Lamp) -> Lamp:
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

const fill = (path: string, n: number, intent: string) => t.post(`${path}/lamp/fill`, ann.token, { intent, fields: { measures: n } });
const ids = async (name: string) => (await t.get(`/AGENTS.md/scratch/${name}/world`, ann.token)).json.cards.map((c: { id: string }) => c.id) as string[];

/** Every route of the fork that could show `id`: each must answer as for no such card. */
async function unknownEverywhere(name: string, id: string): Promise<void> {
  assert.not.ok((await ids(name)).includes(id), `${id} is not listed`);
  assert.not.ok((await t.get(`/AGENTS.md/scratch/${name}/world?prefix=${id}`, ann.token)).json.cards.length, `${id}: no prefix finds it`);
  for (const tail of ['', '/card', '/source']) {
    const r = await t.get(`/AGENTS.md/scratch/${name}/world/${id}${tail}`, ann.token);
    assert.is(r.status, 404, `${id}${tail}: ${r.text}`);
    assert.is(r.json.class, 'unknown');
  }
  const cast = await t.post(`/AGENTS.md/scratch/${name}/world/${id}/light`, ann.token, { intent: `${name}-${id}-cast` });
  assert.is(cast.json.class, 'unknownObject', cast.text);
  const repl = await t.post(`/AGENTS.md/scratch/${name}/repl`, ann.token, { entry: 'light', object: id });
  assert.is(repl.json.class, 'unknownObject', repl.text);
  const pending = await t.get(`/AGENTS.md/scratch/${name}/pending`, ann.token);
  assert.not.match(pending.text, new RegExp(`"${id}"`));
}

test('a fork of the town reads through to it as it stood: nothing copied, nothing of the town since, nothing it may not see', async () => {
  // bob's card, which ann may not see, and ann's own, made before the fork.
  for (const [who, object] of [
    [bob, 'bob-secret'],
    [ann, 'anns'],
  ] as const) {
    const made = await t.town.world.submit({ kind: 'create', principal: who.principal, intent: object, object, source: lamp, entry: 'initial' });
    assert.is(made.outcome.kind, 'journal');
  }
  assert.is((await fill('/AGENTS.md/world', 1, 'before')).json.status, 'done');
  const lampThen = (await t.get('/AGENTS.md/world/lamp', ann.token)).json;

  const opened = await t.post('/AGENTS.md/scratch', ann.token, { name: 'f', from: { world: 'town' } });
  assert.is(opened.status, 200, opened.text);
  const [first] = await t.town.events.readStream(worldStream('scratch.ann.f.1'), { maxCount: 1 });
  const entry = first!.data as { from: { height: number }; made?: unknown; packages?: unknown };
  const forkHeight = t.town.world.height;
  assert.equal(entry.from, { world: 'town', height: forkHeight, through: true });
  assert.is(entry.made, undefined, 'the fork entry carries no card');
  assert.is(entry.packages, undefined, 'nor any code');
  assert.ok(JSON.stringify(entry).length < 1500, `the fork entry is small: ${JSON.stringify(entry).length} bytes`);

  // The town moves on: the lamp is filled, ann makes a card, bob lends his card to ann.
  assert.is((await fill('/AGENTS.md/world', 2, 'after')).json.status, 'done');
  const made = await t.town.world.submit({ kind: 'create', principal: ann.principal, intent: 'later', object: 'later', source: lamp, entry: 'initial' });
  assert.is(made.outcome.kind, 'journal');
  const lent = await t.post('/AGENTS.md/world/bob-secret/lend', bob.token, { intent: 'lend-ann', fields: { to: 'ann' } });
  assert.is(lent.json.status, 'done', lent.text);
  // bob's turn, not ann's: her reads do not wait for it, so wait for the projection here.
  for (const until = Date.now() + 5000; (await t.get('/AGENTS.md/world/bob-secret', ann.token)).status !== 200; ) {
    assert.ok(Date.now() < until, 'ann sees it in the town now');
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(t.town.world.history.recorded > 0, 'the town keeps what changed since the fork');
  const lampNow = (await t.get('/AGENTS.md/world/lamp', ann.token)).json;
  assert.is.not(lampNow.version, lampThen.version);

  const inFork = await t.get('/AGENTS.md/scratch/f/world/lamp', ann.token);
  assert.is(inFork.status, 200, inFork.text);
  assert.equal({ state: inFork.json.state, version: inFork.json.version }, { state: lampThen.state, version: lampThen.version }, 'the town as it stood');
  const listed = await ids('f');
  assert.ok(listed.includes('lamp') && listed.includes('square') && listed.includes('anns'), listed.join(' '));
  assert.is((await t.get('/AGENTS.md/scratch/f/world/anns/source', ann.token)).status, 200);
  assert.match((await t.get('/AGENTS.md/scratch/f/world/anns/card', ann.token)).text, /anns/);
  await unknownEverywhere('f', 'bob-secret');
  await unknownEverywhere('f', 'later');

  // What the fork does stays in the fork.
  const filled = await fill('/AGENTS.md/scratch/f/world', 1, 'in-fork');
  assert.is(filled.json.status, 'done', filled.text);
  const lit = await t.post('/AGENTS.md/scratch/f/world/anns/light', ann.token, { intent: 'light-anns' });
  assert.is(lit.json.status, 'done', lit.text);
  const forkLamp = (await t.get('/AGENTS.md/scratch/f/world/lamp', ann.token)).json;
  assert.is(forkLamp.version, lampThen.version + 1);
  assert.equal((await t.get('/AGENTS.md/world/lamp', ann.token)).json, lampNow, 'the town never sees the fork');
  assert.is((await t.get('/AGENTS.md/world/anns', ann.token)).json.version, 1, 'nor a card of the town the fork changed');
  const pending = await t.get('/AGENTS.md/scratch/f/pending', ann.token);
  assert.is(pending.status, 200, pending.text);

  // A fork at a height a fork already holds reads through too; so does a fork of the fork (a copy of it).
  const again = await t.post('/AGENTS.md/scratch', bob.token, { name: 'g', from: { world: 'town', height: forkHeight } });
  assert.is(again.status, 200, again.text);
  const bobs = await t.get('/AGENTS.md/scratch/g/world/bob-secret', bob.token);
  assert.is(bobs.status, 200, 'bob sees his own card in his fork');
  assert.is((await t.get('/AGENTS.md/scratch/g/world/anns', bob.token)).status, 404, 'and not ann’s');
});

test('opened again from the journal (a restart replays the town to the height), the fork answers as it did', async () => {
  const paths = ['world', 'world/lamp', 'world/anns', 'world/square/card', 'world/anns/source', 'pending', 'offers'];
  const read = async () => Promise.all(paths.map(async (p) => (await t.get(`/AGENTS.md/scratch/f/${p}`, ann.token)).json));
  const live = await read();
  const heightBefore = t.town.world.height;
  await t.restart();
  assert.is(t.town.world.height, heightBefore);
  assert.is(t.town.world.history.recorded, 0, 'a new town holds no history: the fork replays the town to its height');
  assert.equal(await read(), live, 'the same answers from the journal');
  await unknownEverywhere('f', 'bob-secret');
  await unknownEverywhere('f', 'later');
  // It plays on after the restart, and still never touches the town.
  assert.is((await fill('/AGENTS.md/scratch/f/world', 1, 'in-fork-2')).json.status, 'done');
  assert.is((await t.get('/AGENTS.md/scratch/f/world/lamp', ann.token)).json.version, live[1].version + 1);
});

test('an expired fork lets go of the town: its history is dropped', async () => {
  const opened = await t.post('/AGENTS.md/scratch', bob.token, { name: 'h', from: { world: 'town' } });
  assert.is(opened.status, 200, opened.text);
  assert.is((await fill('/AGENTS.md/world', 1, 'after-h')).json.status, 'done');
  assert.ok(t.town.world.history.recorded > 0);
  t.clock.advance(limits.scratchLifetimeSeconds * 1000 + 1);
  for (const g of [ann, bob]) assert.equal((await t.get('/AGENTS.md/me', g.token)).json.scratches, []);
  assert.is(t.town.world.history.recorded, 0, 'no open fork holds a height: nothing kept');
});

test.run();

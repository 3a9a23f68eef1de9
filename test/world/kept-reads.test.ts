/**
 * Card documents kept between reads (src/queries/kept-cards.ts): a read answered from a kept
 * document says exactly what a fresh read would, shows the caller's own turn at once
 * (read-your-writes), others' turns once the projector has folded them, and never shows a card
 * to someone who may not see it, however often others read it. The front's kept route matches
 * (app.ts) answer a path as its first match did.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestTown, type Guest, type TestTown } from './support.js';
import { testLayout, testPrograms } from './kinds.js';

const kept = suite<{ t: TestTown; ann: Guest; bob: Guest }>('kept card reads');

kept.before(async (ctx) => {
  ctx.t = await startTestTown({ programs: testPrograms(), layout: testLayout });
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
});
kept.after(async (ctx) => {
  await ctx.t.close();
});

let n = 0;
const fill = (t: TestTown, g: Guest) => t.post('/AGENTS.md/world/lamp/fill', g.token, { intent: `kept-${++n}`, fields: { measures: 0 } });
const caughtUp = async (t: TestTown) => {
  const head = (await t.town.events.headPosition())!;
  for (const p of t.town.projectors) assert.ok(await p.waitFor(head, 10_000), 'the projectors fold the head');
};

kept('a kept read answers what a fresh one does, its own self href each time', async ({ t, ann, bob }) => {
  await caughtUp(t);
  const first = await t.get('/AGENTS.md/world/lamp', ann.token);
  const again = await t.get('/AGENTS.md/world/lamp', bob.token);
  assert.is(first.status, 200);
  assert.is(again.text, first.text, 'the same bytes for every viewer');
  const asked = await t.get('/AGENTS.md/world/lamp?x=%22q%22', ann.token);
  assert.is(asked.json._links.self.href, '/AGENTS.md/world/lamp?x=%22q%22');
  assert.equal({ ...asked.json, _links: undefined }, { ...first.json, _links: undefined });
  assert.equal(Object.keys(first.json), ['id', 'kind', 'state', 'version', '_actions', '_links']);
  assert.equal(Object.keys(first.json._links), ['self', 'api', 'card', 'source']);
  assert.is(first.json._links.card.href, '/AGENTS.md/world/lamp/card');
  assert.is(first.headers['content-type'], 'application/json; charset=utf-8');
  assert.is(Number(first.headers['content-length']), Buffer.byteLength(first.text));
});

kept('read-your-writes: the caller sees its own turn at once, others once it is folded', async ({ t, ann, bob }) => {
  await caughtUp(t);
  const before = (await t.get('/AGENTS.md/world/lamp', bob.token)).json.version;
  for (let i = 0; i < 5; i++) {
    const turn = await fill(t, ann);
    assert.is(turn.json.status, 'done', turn.text);
    const mine = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is(mine.json.version, before + i + 1, 'her own turn, at once');
  }
  await caughtUp(t);
  const his = await t.get('/AGENTS.md/world/lamp', bob.token);
  assert.is(his.json.version, before + 5);
  const card = await t.get('/AGENTS.md/world/lamp/card', bob.token);
  assert.is(card.json.version, before + 5, 'the card route reads the same kept document');
});

kept('a card only its owner sees stays unknown to others, however often she reads it', async ({ t, ann, bob }) => {
  const made = await t.town.world.submit({
    kind: 'create',
    principal: ann.principal,
    intent: 'kept-secret',
    object: 'ann-kept',
    source: 'type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 0 }\n\nspell poke(self: S) -> S:\n  return self { n: self.n + 1 }\n',
    entry: 'initial',
  });
  assert.is(made.outcome.kind, 'journal');
  await caughtUp(t);
  for (let i = 0; i < 3; i++) {
    const hers = await t.get('/AGENTS.md/world/ann-kept', ann.token);
    assert.is(hers.status, 200, hers.text);
    const his = await t.get('/AGENTS.md/world/ann-kept', bob.token);
    assert.is(his.status, 404);
    assert.is(his.json.class, 'unknown');
    const absent = await t.get('/AGENTS.md/world/ann-kepx', bob.token);
    assert.is(his.json.message.replace('ann-kept', 'X'), absent.json.message.replace('ann-kepx', 'X'), 'unseen reads exactly as absent');
    for (const p of ['/AGENTS.md/world/ann-kept/card', '/AGENTS.md/world/ann-kept/source']) {
      assert.is((await t.get(p, bob.token)).status, 404, p);
    }
  }
  const poked = await t.post('/AGENTS.md/world/ann-kept/poke', ann.token, { intent: 'kept-poke' });
  assert.is(poked.json.status, 'done', poked.text);
  const after = await t.get('/AGENTS.md/world/ann-kept', ann.token);
  assert.equal(after.json.state, { tag: 'record', fields: [{ name: 'n', value: { tag: 'natural', value: 1 } }] });
  assert.is((await t.get('/AGENTS.md/world/ann-kept', bob.token)).status, 404);
});

kept('denied is drawn per viewer: the owner is shown, another refused, each time', async ({ t, ann, bob }) => {
  await caughtUp(t);
  for (let i = 0; i < 3; i++) {
    const hers = await t.get('/AGENTS.md/world/shy', ann.token);
    assert.is(hers.status, 200, hers.text);
    const his = await t.get('/AGENTS.md/world/shy', bob.token);
    assert.is(his.status, 403);
    assert.is(his.json.class, 'denied');
    const card = await t.get('/AGENTS.md/world/shy/card', ann.token);
    assert.ok(card.json.paint.startsWith('a shy thing'));
  }
});

kept('a path matched before answers as it did: its parameters decoded, a refusal refused again', async ({ t, ann }) => {
  for (let i = 0; i < 3; i++) {
    const r = await t.get('/AGENTS.md/world/no-such%2Fcard', ann.token);
    assert.is(r.status, 404);
    assert.ok(r.json.message.includes('"no-such/card"'), r.json.message);
    const wrong = await t.request('POST', '/AGENTS.md/world', { token: ann.token, json: {} });
    assert.is(wrong.status, 405, 'a path under another method is never kept as a match');
    assert.is(wrong.headers.allow, 'HEAD, GET');
    const lamp = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is(lamp.json.id, 'lamp');
  }
});

kept.run();

/**
 * Spec 9, "Private space", "REPL and check" (check) and "Receipt route": the caller's private heap
 * at /AGENTS.md/heap/<the town's tail>, `POST heap/objects`, `POST check`, and
 * `GET receipt/{intent}` by the caller's own intent or anyone's spoken name.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Guest, TestTown } from '../world/support.js';
import { earlierGuest, startEarlierTown } from './support.js';

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
  t = await startEarlierTown();
  ann = await earlierGuest(t, 'ann');
  bob = await earlierGuest(t, 'bob');
});
test.after(async () => {
  await t.close();
});

test('a card made in the heap: every tail under /AGENTS.md/heap, links that stay there, nobody else sees it', async () => {
  const empty = await t.get('/AGENTS.md/heap/world', ann.token);
  assert.is(empty.status, 200, empty.text);
  assert.equal(empty.json.cards, [], 'a heap opens empty on first use');
  const made = await t.post('/AGENTS.md/heap/objects', ann.token, { object: 'mine', source: lamp, entry: 'initial', intent: 'make-mine', seed: { fuel: 2 } });
  assert.is(made.status, 200, made.text);
  assert.is(made.json.status, 'done', made.text);
  assert.is(made.json._links.receipt.href, `/AGENTS.md/heap/receipt/${made.json.receipt.slug}`);
  assert.is(made.json._links.card.href, '/AGENTS.md/heap/world/mine/card');
  const lit = await t.post('/AGENTS.md/heap/world/mine/light', ann.token, { intent: 'light-1' });
  assert.is(lit.json.status, 'done', lit.text);
  assert.is(lit.json.line, 'ann.town.test lights it');
  const card = await t.get('/AGENTS.md/heap/world/mine', ann.token);
  assert.is(card.json.version, 2, card.text);
  assert.is((await t.get('/AGENTS.md/heap/world/mine/card', ann.token)).status, 200);
  assert.match((await t.get('/AGENTS.md/heap/world/mine/source', ann.token)).json.source, /spell light/);
  assert.equal(
    (await t.get('/AGENTS.md/heap/world', ann.token)).json.cards.map((c: { id: string }) => c.id),
    ['mine'],
  );
  for (const tail of ['offers', 'pending']) assert.is((await t.get(`/AGENTS.md/heap/${tail}`, ann.token)).status, 200, tail);
  assert.is((await t.post('/AGENTS.md/heap/deliver', ann.token, {})).status, 200);
  // The heap's receipts: by intent or by slug, in the heap.
  const byIntent = await t.get('/AGENTS.md/heap/receipt/light-1', ann.token);
  assert.is(byIntent.status, 200, byIntent.text);
  assert.is(byIntent.json.slug, lit.json.receipt.slug);
  assert.is((await t.get(`/AGENTS.md/heap/receipt/${lit.json.receipt.slug}`, ann.token)).json.slug, lit.json.receipt.slug);
  // Not in the town, not in Bob's heap.
  assert.is((await t.get('/AGENTS.md/world/mine', ann.token)).status, 404);
  const bobs = await t.get('/AGENTS.md/heap/world/mine', bob.token);
  assert.is(bobs.status, 404, bobs.text);
  assert.is(bobs.json.class, 'unknown');
  assert.equal((await t.get('/AGENTS.md/heap/world', bob.token)).json.cards, []);
  const cast = await t.post('/AGENTS.md/heap/world/mine/light', bob.token, { intent: 'b' });
  assert.is(cast.json.class, 'unknownObject', cast.text);
  // Unauthenticated: 401.
  assert.is((await t.request('GET', '/AGENTS.md/heap/world')).status, 401);
});

test('receipt/{intent}: your own intent first, else anyone\u2019s spoken name; unknown otherwise', async () => {
  const turn = await t.post('/AGENTS.md/world/lamp/light', ann.token, { intent: 'town-light' });
  assert.is(turn.status, 200, turn.text);
  const slug = turn.json.receipt.slug as string;
  const own = await t.get('/AGENTS.md/receipt/town-light', ann.token);
  assert.is(own.status, 200, own.text);
  assert.is(own.json.slug, slug);
  assert.is(own.json.intent, 'town-light');
  // Bob has no turn of that intent: the same path is no receipt of his.
  const bobs = await t.get('/AGENTS.md/receipt/town-light', bob.token);
  assert.is(bobs.status, 404, bobs.text);
  assert.is(bobs.json.class, 'unknown');
  // Anyone's by spoken name: the public part.
  const public_ = await t.get(`/AGENTS.md/receipt/${slug}`, bob.token);
  assert.is(public_.status, 200, public_.text);
  assert.is(public_.json.slug, slug);
  assert.is(public_.json.intent, undefined, 'the public part only');
  const full = await t.get('/AGENTS.md/receipt/town-light?full=1', ann.token);
  assert.is(full.status, 200);
  assert.ok(full.json.cid, full.text);
  // A receipt link of a turn reply reaches the receipt.
  assert.is((await t.get(turn.json._links.receipt.href, ann.token)).json.slug, slug);
});

test('check: modules against the library; a refusal names stage, line and span', async () => {
  const checked = await t.post('/AGENTS.md/check', ann.token, { source: 'use core\n\ndef f() -> Natural:\n  return "x"\n' });
  assert.is(checked.status, 200, checked.text);
  assert.is(checked.json.ok, false);
  const d = checked.json.diagnostics[0];
  assert.equal([d.stage, d.line], ['type', 4]);
  assert.ok(d.endColumn > d.column, 'a span');
  const good = await t.post('/AGENTS.md/check', ann.token, { source: lamp, entry: 'initial' });
  assert.equal({ ok: good.json.ok, diagnostics: good.json.diagnostics }, { ok: true, diagnostics: [] });
  const modules = await t.post('/AGENTS.md/check', ann.token, { modules: [{ name: 'lamp', source: lamp }] });
  assert.is(modules.json.ok, true, modules.text);
  const unknownField = await t.post('/AGENTS.md/check', ann.token, { source: lamp, object: 'x' });
  assert.is(unknownField.json.class, 'hostRequest');
});

test.run();

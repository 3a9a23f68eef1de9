/**
 * What the guide says of spells, `moved`, offers and the proof of work is what the town does:
 * each claim is read from the served guide and then done through the HTTP routes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { type Guest, startTestTown, type TestTown } from '../world/support.js';

let t: TestTown;
let ann: Guest;
let guide: string;

test.before(async () => {
  t = await startTestTown();
  ann = await t.guest('ann');
  guide = await (await fetch(`${t.base}/AGENTS.md`, { headers: { accept: 'text/plain' } })).text();
});
test.after(async () => {
  await t.close();
});

const flat = (s: string) => s.replace(/\s+/g, ' ');

test('a spell is the filled-in template, method first, sent to its method or to receive; elsewhere noAction', async () => {
  assert.match(flat(guide), 'its method name first ("fill measures=2"), sent to that method (POST .../lamp/fill) or to "receive"');
  const toMethod = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'sp-1', spell: 'fill measures=2' });
  assert.is(toMethod.json.status, 'done', toMethod.text);
  const toReceive = await t.post('/AGENTS.md/world/lamp/receive', ann.token, { intent: 'sp-2', spell: 'fill measures=2' });
  assert.is(toReceive.json.status, 'done', toReceive.text);
  assert.not.ok('receive' in (await t.get('/AGENTS.md/world/lamp', ann.token)).json._actions, '_actions does not list receive');
  const elsewhere = await t.post('/AGENTS.md/world/lamp/light', ann.token, { intent: 'sp-3', spell: 'fill measures=2' });
  assert.equal([elsewhere.json.class, elsewhere.json.clause], ['badSpell', 'noAction']);
  const two = await t.post('/AGENTS.md/world/lamp/receive', ann.token, { intent: 'sp-4', spell: 'light\ndouse' });
  assert.equal([two.json.class, two.json.clause], ['badSpell', 'tooManySpells']);
});

test('moved: its object is the root that moved, and its hint links that card', async () => {
  assert.match(flat(guide), 'the refusal\'s "object" is the root that moved, and its _links.hint is that card');
  const bench = (await t.get('/AGENTS.md/world/bench', ann.token)).json.version;
  const moved = await t.post('/AGENTS.md/world/lamp/fill', ann.token, {
    intent: 'mv-1',
    fields: { measures: 1 },
    if: [{ object: 'bench', version: bench + 1 }],
  });
  assert.is(moved.json.class, 'moved', moved.text);
  assert.is(moved.json.object, 'bench');
  assert.is(moved.json._links.hint.href, '/AGENTS.md/world/bench');
  const read = await t.get(moved.json._links.hint.href, ann.token);
  assert.is(read.json.version, bench, 'the hint reads the version it stands at now');
});

test('offers: each with the height of the turn that made it; `height` is the newest, and after=height answers only newer', async () => {
  assert.match(flat(guide), 'The reply\'s "height" is the newest of those (your "after" when there are none): ask again with ?after=<height>');
  const before = await t.get('/AGENTS.md/offers', ann.token);
  const made = await t.post('/AGENTS.md/world/bench/craft', ann.token, { intent: 'of-1', fields: { kind: 'note' } });
  assert.is(made.json.status, 'done', made.text);
  const offers = await t.get(`/AGENTS.md/offers?after=${before.json.height}`, ann.token);
  assert.is(offers.json.offers.length, 1, offers.text);
  assert.is(offers.json.offers[0].height, made.json.receipt.height);
  assert.is(offers.json.height, made.json.receipt.height);
  assert.is(offers.json._links.next.href, `/AGENTS.md/offers?after=${offers.json.height}`);
  const newer = await t.get(offers.json._links.next.href, ann.token);
  assert.equal([newer.json.status, newer.json.offers, newer.json.height], ['none', [], offers.json.height]);
});

test('the proof of work is said as what it costs, not "about a second"', async () => {
  const open = await startTestTown({ settings: { open: true } });
  try {
    const text = flat(await (await fetch(`${open.base}/AGENTS.md`, { headers: { accept: 'text/plain' } })).text());
    assert.match(text, `It takes ${2 ** limits.arrivalBits} tries on average`);
    assert.not.match(text, 'about a second');
  } finally {
    await open.close();
  }
});

test.run();

/**
 * Turns over HTTP against the genesis town (plus a few test kinds): the three ways to give a
 * turn its input, the reply of spec 2.5 with its compact and full forms, and every refusal class
 * of spec 7.2 a guest can provoke through the turn route. A refused turn is a receipt (HTTP 200),
 * never an HTTP error.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestTown, type Guest, type TestTown } from './support.js';
import { testLayout, testPrograms } from './kinds.js';

const turns = suite<{ t: TestTown; ann: Guest; bob: Guest }>('turns');

turns.before(async (ctx) => {
  ctx.t = await startTestTown({ programs: testPrograms(), layout: testLayout });
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
});
turns.after(async (ctx) => {
  await ctx.t.close();
});

let n = 0;
const intent = () => `intent-${++n}`;

/** A turn; asserts HTTP 200 (a refusal is a receipt too). */
async function cast(t: TestTown, g: Guest, object: string, method: string, body: Record<string, unknown>, query = '') {
  const r = await t.post(`/AGENTS.md/world/${encodeURIComponent(object)}/${method}${query}`, g.token, { intent: intent(), ...body });
  assert.is(r.status, 200, `${object}/${method}: ${r.text}`);
  return r.json;
}

async function refused(t: TestTown, g: Guest, object: string, method: string, body: Record<string, unknown>, cls: string, clause?: string) {
  const j = await cast(t, g, object, method, body);
  assert.is(j.status, 'refused', JSON.stringify(j));
  assert.is(j.class, cls, JSON.stringify(j));
  // Spec 7.2: every refusal names where to look next.
  assert.ok(['receipt', 'source', 'self', 'world'].includes(j.hintKind), `hint kind of ${JSON.stringify(j)}`);
  if (clause !== undefined) assert.is(j.clause, clause, JSON.stringify(j));
  assert.type(j.line, 'string');
  assert.ok(j.receipt && typeof j.receipt.height === 'number', 'a refusal carries its receipt position');
  return j;
}

turns('fields, spell to receive, and typed argument reach the same call', async ({ t, ann }) => {
  const a = await cast(t, ann, 'lamp', 'fill', { fields: { measures: 1 } });
  assert.is(a.status, 'done');
  assert.type(a.receipt.slug, 'string');
  assert.ok(/^[a-z]+-[a-z]+-[a-z]+$/.test(a.receipt.slug));
  assert.ok(a.line.includes('pours in 1 measure'), a.line);
  assert.equal(a.offers, []);
  const b = await cast(t, ann, 'lamp', 'receive', { spell: 'fill measures=1' });
  assert.is(b.status, 'done');
  assert.is(b.receipt.height, a.receipt.height + 1, 'each turn is the next entry of the journal');
  const c = await cast(t, ann, 'lamp', 'fill', { argument: { tag: 'record', fields: [{ name: 'measures', value: { tag: 'natural', value: 1 } }] } });
  assert.is(c.status, 'done');
  const lamp = await t.get('/AGENTS.md/world/lamp', ann.token);
  const fuel = lamp.json.state.fields.find((f: { name: string }) => f.name === 'fuel').value.value;
  assert.is(fuel, 6, 'three turns of one measure on a lamp of three');
  // A method without a form argument: `light` takes the default empty record.
  const d = await cast(t, ann, 'lamp', 'light', {});
  assert.is(d.status, 'done');
  assert.ok(
    d.revealed.some((x: string) => x.includes('stands at version')),
    JSON.stringify(d.revealed),
  );
});

turns('compact=1 and full=1', async ({ t, ann, bob }) => {
  const c = await cast(t, ann, 'lamp', 'fill', { fields: { measures: 0 } }, '?compact=1');
  assert.equal(Object.keys(c).sort(), ['_links', 'offers', 'outcome', 'receipt', 'status']);
  assert.is(c.status, 'done');
  assert.type(c.outcome, 'string');
  const f = await cast(t, bob, 'notice-board', 'receive', { spell: 'make kind=note' }, '?full=1');
  assert.is(f.status, 'done', JSON.stringify(f));
  assert.type(f.receipt.cid, 'string');
  assert.ok(f.receipt.cid.startsWith('bafy'), f.receipt.cid);
  assert.ok(f.whole.usage && typeof f.whole.usage.ticks === 'number', 'the whole receipt has its usage');
  assert.is(f.offers.length, 1, 'a made card is offered to its maker');
});

turns('badSpell: each clause names what is wrong and hints the spell with blanks', async ({ t, ann }) => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    ['lamp', 'fill', { fields: { jugs: 3 } }, 'unknownField'],
    ['lamp', 'receive', { spell: 'fill measures=3 measures=4' }, 'duplicateField'],
    ['lamp', 'give', { fields: { note: 'hi' } }, 'missingField'],
    ['lamp', 'fill', { fields: { measures: 12 } }, 'badValue'],
    ['lamp', 'fill', { spell: 'light' }, 'noAction'],
    ['lamp', 'receive', { spell: 'notice-board: light' }, 'otherCard'],
    ['lamp', 'receive', { spell: 'give to=square note="no end' }, 'quotation'],
    ['lamp', 'receive', { spell: 'give to={x=1' }, 'unclosedBlock'],
    ['lamp', 'receive', { spell: 'light\ndouse' }, 'tooManySpells'],
    ['lamp', 'receive', { spell: 'make kind=dragon' }, 'unknownKind'],
    ['lamp', 'receive', { spell: 'become kind=note' }, 'notYours'],
  ];
  for (const [object, method, body, clause] of cases) {
    const j = await refused(t, ann, object, method, body, 'badSpell', clause);
    assert.type(j.reason, 'string', clause);
    if (clause !== 'tooManySpells' && clause !== 'quotation' && clause !== 'unclosedBlock') assert.type(j.hint, 'string', `${clause} hints the spell`);
    assert.ok(j._links.hint, `${clause} links where to look next`);
  }
});

turns('cardRefused and lawRefused read `refused <clause>: <reading>`', async ({ t, ann }) => {
  // The lamp stands lit from the first test; light it again.
  const c = await refused(t, ann, 'lamp', 'light', {}, 'cardRefused', 'lit');
  assert.is(c.reason, 'refused lit: the lamp is already lit');
  assert.is(c.object, 'lamp');
  const l = await refused(t, ann, 'lamp', 'fill', { fields: { measures: 9 } }, 'lawRefused', 'full');
  assert.is(l.reason, 'refused full: a lamp holds ten measures of oil');
  assert.is(l.line, l.reason);
});

turns('moved: an `if` root that moved refuses, and nothing is journaled', async ({ t, ann }) => {
  const before = await t.get('/AGENTS.md/world/lamp', ann.token);
  const version = before.json.version as number;
  await cast(t, ann, 'lamp', 'fill', { fields: { measures: 0 } });
  const heightBefore = t.town.world.height;
  const j = await refused(t, ann, 'lamp', 'fill', { fields: { measures: 0 }, if: [{ object: 'lamp', version }] }, 'moved');
  assert.is(j.journaled, false);
  assert.is(j.receipt.slug, null);
  assert.ok(j.reason.includes(`not version ${version}`), j.reason);
  assert.is(t.town.world.height, heightBefore, 'a moved turn writes nothing');
  const now = await t.get('/AGENTS.md/world/lamp', ann.token);
  const ok = await cast(t, ann, 'lamp', 'fill', { fields: { measures: 0 }, if: [{ object: 'lamp', version: now.json.version }] });
  assert.is(ok.status, 'done', 'current roots pass');
});

turns('try: reports what it would write and journals nothing', async ({ t, ann }) => {
  const height = t.town.world.height;
  const j = await cast(t, ann, 'lamp', 'fill', { fields: { measures: 0 }, try: true });
  assert.is(j.try, true);
  assert.is(j.journaled, false);
  assert.ok(Array.isArray(j.writes) && j.writes[0].object === 'lamp', JSON.stringify(j));
  assert.ok(j.roots.some((r: { object: string }) => r.object === 'lamp'));
  assert.is(t.town.world.height, height);
});

turns('noMethod, typeMismatch, unknownObject', async ({ t, ann }) => {
  const nm = await refused(t, ann, 'lamp', 'sing', {}, 'noMethod');
  assert.ok(nm.reason.includes('light'), 'names what the card hears');
  const tm = await refused(t, ann, 'lamp', 'fill', { argument: { tag: 'label', value: 'lots' } }, 'typeMismatch');
  assert.type(tm.expected, 'string');
  const tm2 = await refused(
    t,
    ann,
    'lamp',
    'fill',
    { argument: { tag: 'record', fields: [{ name: 'measures', value: { tag: 'label', value: 'two' } }] } },
    'typeMismatch',
  );
  assert.ok(tm2.reason.includes('measures'), tm2.reason);
  const uo = await refused(t, ann, 'no-such-card', 'light', {}, 'unknownObject');
  assert.type(uo.receipt.slug, 'string', 'an unknownObject refusal is journaled');
});

turns('unknownObject alike for a card the caller may not see', async ({ t, ann, bob }) => {
  // A card only its owner sees (as a scratch `create` makes them), journaled into the town.
  const made = await t.town.world.submit({
    kind: 'create',
    principal: ann.principal,
    intent: 'secret-1',
    object: 'ann-secret',
    source: 'type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 0 }\n\nspell poke(self: S) -> S:\n  return self { n: self.n + 1 }\n',
    entry: 'initial',
  });
  assert.is(made.outcome.kind, 'journal');
  const mine = await cast(t, ann, 'ann-secret', 'poke', {});
  assert.is(mine.status, 'done');
  const hidden = await refused(t, bob, 'ann-secret', 'poke', {}, 'unknownObject');
  const absent = await refused(t, bob, 'ann-secrex', 'poke', {}, 'unknownObject');
  assert.is(hidden.reason.replace('ann-secret', 'X'), absent.reason.replace('ann-secrex', 'X'), 'unseen reads exactly as absent');
  const g1 = await t.get('/AGENTS.md/world/ann-secret', bob.token);
  const g2 = await t.get('/AGENTS.md/world/ann-secrex', bob.token);
  assert.is(g1.status, 404);
  assert.is(g1.json.class, 'unknown');
  assert.is(g2.status, 404);
  assert.is(g1.json.message.replace('ann-secret', 'X'), g2.json.message.replace('ann-secrex', 'X'));
  const g3 = await t.get('/AGENTS.md/world/ann-secret', ann.token);
  assert.is(g3.status, 200);
  // Her receipt about it: hers to read; for bob, as a receipt that does not exist (its public
  // part would name the card and quote its line), by spoken name and by content id alike.
  const own = await t.get(`/AGENTS.md/receipt/${mine.receipt.slug}?full=1`, ann.token);
  assert.is(own.status, 200);
  assert.is(own.json.object, 'ann-secret');
  const none = await t.get('/AGENTS.md/receipt/no-such-name', bob.token);
  for (const name of [mine.receipt.slug, own.json.cid]) {
    const r = await t.get(`/AGENTS.md/receipt/${name}`, bob.token);
    assert.is(r.status, 404, r.text);
    assert.is(r.json.class, 'unknown');
    assert.is(r.json.message.replace(name, 'X'), none.json.message.replace('no-such-name', 'X'), 'unseen reads exactly as absent');
  }
  // bob's own refused receipt about it stays his.
  const his = await t.get(`/AGENTS.md/receipt/${hidden.receipt.slug}`, bob.token);
  assert.is(his.status, 200);
  assert.is(his.json.own, true);
});

turns('duplicateIdentity: the same intent for another request names the original', async ({ t, ann }) => {
  const first = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'once', fields: { measures: 0 } });
  assert.is(first.json.status, 'done');
  const again = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'once', fields: { measures: 0 } });
  assert.is(again.json.receipt.slug, first.json.receipt.slug, 'a repeat returns the first receipt');
  assert.is(again.json.receipt.height, first.json.receipt.height);
  assert.is(again.json.repeated, true);
  const other = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'once', fields: { measures: 1 } });
  assert.is(other.status, 200);
  assert.is(other.json.class, 'duplicateIdentity');
  const full = await t.get(`/AGENTS.md/receipt/${first.json.receipt.slug}?full=1`, ann.token);
  assert.is(other.json.original, full.json.cid, 'original is the first receipt');
  assert.ok(other.json.reason.includes(first.json.receipt.slug), other.json.reason);
  // Spec 7.2: a hint kind, and where it points: the first receipt (by content id; nothing new was journaled).
  assert.is(other.json.hintKind, 'receipt');
  assert.is(other.json._links.hint.href, `/AGENTS.md/receipt/${full.json.cid}`);
  const original = await t.get(other.json._links.hint.href, ann.token);
  assert.is(original.json.slug, first.json.receipt.slug);
  // Another guest's intents are its own.
  const cys = await t.post('/AGENTS.md/world/lamp/fill', (await t.guest('cy')).token, { intent: 'once', fields: { measures: 0 } });
  assert.is(cys.json.status, 'done', "cy is not refused duplicateIdentity for ann's intent");
  assert.is.not(cys.json.receipt.slug, first.json.receipt.slug);
});

turns('budget: a turn that runs out of ticks is refused whole', async ({ t, ann }) => {
  const j = await refused(t, ann, 'spinner', 'spin', { fields: { n: 100000000 } }, 'budget');
  assert.is(j.reason, 'ticks');
  const s = await t.get('/AGENTS.md/world/spinner', ann.token);
  assert.is(s.json.version, 1, 'nothing of the turn was kept');
});

turns('budgetExhausted: a cascade of sends spends its depth allowance', async ({ t, ann }) => {
  const j = await cast(t, ann, 'echo-a', 'ping', { fields: { to: 'echo-b' } });
  assert.is(j.status, 'done');
  assert.ok(j.delivered?.length > 1, JSON.stringify(j));
  const last = j.delivered[j.delivered.length - 1];
  assert.is(last.class, 'budgetExhausted', JSON.stringify(j.delivered));
  // Spec 7.2: which allowance (`depth`, `work` or `storage`), and where to look next.
  assert.equal([last.clause, last.hintKind], ['depth', 'receipt']);
  assert.match(last.reason, /^depth: /);
  const r = await t.get(`/AGENTS.md/receipt/${last.slug}`, ann.token);
  assert.is(r.status, 200);
  assert.is(r.json.class, 'budgetExhausted');
});

turns('unspellable: an object name no spell can address', async ({ t, ann }) => {
  for (const p of ['/AGENTS.md/world/lamp%20post', '/AGENTS.md/world/' + 'x'.repeat(129)]) {
    const g = await t.get(p, ann.token);
    assert.is(g.status, 400, p);
    assert.is(g.json.class, 'unspellable');
  }
  const p = await t.post('/AGENTS.md/world/lamp%0Apost/light', ann.token, { intent: intent() });
  assert.is(p.status, 400);
  assert.is(p.json.class, 'unspellable');
});

turns("bad bodies are the front's refusals, not turns", async ({ t, ann }) => {
  const noIntent = await t.post('/AGENTS.md/world/lamp/light', ann.token, {});
  assert.is(noIntent.status, 400);
  assert.is(noIntent.json.class, 'hostRequest');
  const two = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: intent(), fields: {}, spell: 'fill' });
  assert.is(two.status, 400);
  // Text no UTF-8 can write (a lone surrogate): an intent no `receipt?intent=` could ask for, a
  // value the read models would show as U+FFFD while the journal keeps the surrogate.
  for (const body of [
    { intent: '\ud800' },
    { intent: 'a\udc00b' },
    { intent: 'x\ud83d' },
    { intent: intent(), fields: { to: 'notice-board', note: 'x\udfff' } },
    { intent: intent(), spell: 'give to=notice-board note="\ud800"' },
  ]) {
    const r = await t.post('/AGENTS.md/world/lamp/give', ann.token, body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.is(r.json.class, 'badJson');
    assert.match(r.json.message, 'lone surrogate');
  }
  const paired = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'lamp \ud83d\udd6f', fields: { measures: 0 } });
  assert.is(paired.json.status, 'done', 'a pair (an emoji) is text like any other');
  const byIntent = await t.get(`/AGENTS.md/receipt?intent=${encodeURIComponent('lamp \ud83d\udd6f')}`, ann.token);
  assert.is(byIntent.json.slug, paired.json.receipt.slug);
  const noAuth = await t.request('POST', '/AGENTS.md/world/lamp/light', { json: { intent: 'x' } });
  assert.is(noAuth.status, 401);
});

turns('a scratch tail of a world no one opened answers as absent', async ({ t, ann }) => {
  const r = await t.get('/AGENTS.md/scratch/play/world', ann.token);
  assert.is(r.status, 404);
  assert.is(r.json.class, 'unknown');
});

turns.run();

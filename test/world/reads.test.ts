/**
 * The read routes of spec 4.2 over HTTP, served from the read models: the world listing (pages
 * of 64, `after`, `prefix`, method names), a card's state and `_actions`, the card as the
 * caller sees it (newest eight lines, `denied`), its source, receipts (public part, own entry,
 * `ambiguous`, by intent), offers (`after`, `compact`, `wait`), pending sends and `deliver`,
 * and `me.turns` with the open-town `quota`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestTown, type Guest, type TestTown } from './support.js';
import { testLayout, testPrograms } from './kinds.js';

const reads = suite<{ t: TestTown; ann: Guest; bob: Guest }>('reads');

reads.before(async (ctx) => {
  ctx.t = await startTestTown({ programs: testPrograms(), layout: testLayout });
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
});
reads.after(async (ctx) => {
  await ctx.t.close();
});

let n = 0;
const intent = () => `read-${++n}`;
const turn = (t: TestTown, g: Guest, object: string, method: string, body: Record<string, unknown> = {}) =>
  t.post(`/AGENTS.md/world/${encodeURIComponent(object)}/${method}`, g.token, { intent: intent(), ...body });

reads('world: 64 ids a page in id order, with method names; after and prefix', async ({ t, ann }) => {
  // Sixteen at a time: sixty at once could meet the front's in-flight limit (48) on a busy machine.
  const made: Awaited<ReturnType<typeof turn>>[] = [];
  for (let i = 0; i < 60; i += 16) {
    made.push(...(await Promise.all(Array.from({ length: Math.min(16, 60 - i) }, () => turn(t, ann, 'notice-board', 'receive', { spell: 'make kind=note' })))));
  }
  for (const m of made) assert.is(m.json.status, 'done', m.text);
  const first = await t.get('/AGENTS.md/world', ann.token);
  assert.is(first.status, 200);
  assert.is(first.json.cards.length, 64);
  const ids = first.json.cards.map((c: { id: string }) => c.id);
  assert.equal(ids, [...ids].sort());
  const lamp = first.json.cards.find((c: { id: string }) => c.id === 'lamp');
  assert.equal(lamp.methods, ['light', 'douse', 'fill', 'give']);
  assert.is(first.json.next, ids[63]);
  const second = await t.get(`/AGENTS.md/world?after=${encodeURIComponent(first.json.next)}`, ann.token);
  assert.ok(second.json.cards.length > 0);
  assert.ok(second.json.cards.every((c: { id: string }) => c.id > first.json.next));
  const all = [...ids, ...second.json.cards.map((c: { id: string }) => c.id)];
  assert.is(new Set(all).size, all.length, 'pages do not overlap');
  assert.ok(all.length >= 19 + 60 + 2, `every card is listed (${all.length})`);
  const doors = await t.get('/AGENTS.md/world?prefix=door-', ann.token);
  assert.is(doors.json.cards.length, 6);
  assert.ok(doors.json.cards.every((c: { id: string }) => c.id.startsWith('door-')));
  assert.is(doors.json.next, undefined);
  const bad = await t.get('/AGENTS.md/world?after=not%20an%20id', ann.token);
  assert.is(bad.status, 400);
});

reads('object: state, version and _actions (a template per method with a form)', async ({ t, ann }) => {
  const r = await t.get('/AGENTS.md/world/lamp', ann.token);
  assert.is(r.status, 200);
  assert.is(r.json.state.tag, 'record');
  assert.type(r.json.version, 'number');
  assert.equal(r.json._actions, { light: 'light', douse: 'douse', fill: 'fill measures=<natural 0..9>', give: 'give to=<object 1..128> note=<text 0..80>' });
  const mb = await t.get('/AGENTS.md/world/mailbox', ann.token);
  assert.equal(mb.json._actions, {}, 'receive is never listed');
  const door = await t.get('/AGENTS.md/world/door-square-library', ann.token);
  assert.is(door.status, 200);
  assert.ok(Object.keys(door.json._actions).length > 0);
});

reads('card: as the caller sees it, with its newest eight lines (reading spends no intent)', async ({ t, ann }) => {
  for (let i = 0; i < 10; i++) await turn(t, ann, 'lamp', 'fill', { fields: { measures: 0 } });
  const last = await turn(t, ann, 'lamp', 'receive', { spell: 'fill measures=1' });
  const height = t.town.world.height;
  const r = await t.get('/AGENTS.md/world/lamp/card', ann.token);
  assert.is(r.status, 200);
  assert.is(r.json.lines.length, 8);
  assert.is(r.json.lines[7], last.json.line, "newest last, and it shows the caller's own turn");
  assert.type(r.json.paint, 'string');
  assert.is(t.town.world.height, height, 'reading journals nothing');
  const avatar = await t.get('/AGENTS.md/world/avatar-ann/card', ann.token);
  assert.is(avatar.json.yours, true);
  assert.is(avatar.json.place, 'square');
});

reads('denied: a card the host refuses to show (its view refuses the viewer)', async ({ t, ann, bob }) => {
  const mine = await t.get('/AGENTS.md/world/shy/card', ann.token);
  assert.is(mine.status, 200);
  assert.ok(mine.json.paint.startsWith('a shy thing'));
  for (const p of ['/AGENTS.md/world/shy/card', '/AGENTS.md/world/shy', '/AGENTS.md/world/shy/source']) {
    const r = await t.get(p, bob.token);
    assert.is(r.status, 403, p);
    assert.is(r.json.class, 'denied');
    assert.is(r.json.status, 'refused');
  }
  // It still exists for bob: he may cast at it.
  const w = await turn(t, bob, 'shy', 'wave');
  assert.is(w.json.status, 'done');
});

reads('source: law with readings, source, pin, pinSlug, forms; full=1 with content ids', async ({ t, ann }) => {
  const r = await t.get('/AGENTS.md/world/lamp/source', ann.token);
  assert.is(r.status, 200);
  assert.equal(
    r.json.law.map((l: { clause: string }) => l.clause),
    ['full', 'kept'],
  );
  assert.is(r.json.law[0].reading, 'a lamp holds ten measures of oil');
  assert.ok(r.json.source.includes('spell light'));
  assert.ok(r.json.pin.startsWith('bafy'));
  assert.ok(/^[a-z]+-[a-z]+-[a-z]+$/.test(r.json.pinSlug));
  assert.equal(r.json.forms.fill, [{ name: 'measures', optional: false, kind: 'natural', min: 0, max: 9 }]);
  assert.equal(r.json.forms.give[1], { name: 'note', optional: true, kind: 'text', min: 0, max: 80 });
  assert.is(r.json.package, undefined);
  const full = await t.get('/AGENTS.md/world/lamp/source?full=1', ann.token);
  assert.is(full.json.package.pin, r.json.pin);
  assert.ok(full.json.package.modules.every((m: { cid: string }) => m.cid.startsWith('bafy')));
  const none = await t.get('/AGENTS.md/world/nothing/source', ann.token);
  assert.is(none.status, 404);
});

reads("receipt: public part for anyone, whole entry for its principal; by intent only one's own", async ({ t, ann, bob }) => {
  const a = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'ann-fills', fields: { measures: 0 } });
  const slug = a.json.receipt.slug;
  const own = await t.get(`/AGENTS.md/receipt/${slug}`, ann.token);
  assert.is(own.status, 200);
  assert.is(own.json.own, true);
  assert.is(own.json.intent, 'ann-fills');
  assert.ok(own.json.usage, 'the whole receipt');
  const other = await t.get(`/AGENTS.md/receipt/${slug}`, bob.token);
  assert.is(other.json.own, false);
  assert.is(other.json.intent, undefined, 'another guest sees the public part');
  assert.is(other.json.usage, undefined);
  assert.is(other.json.line, own.json.line);
  const full = await t.get(`/AGENTS.md/receipt/${slug}?full=1`, ann.token);
  assert.ok(full.json.cid.startsWith('bafy'));
  assert.is(full.json.entry.height, a.json.receipt.height);
  const byCid = await t.get(`/AGENTS.md/receipt/${full.json.cid}`, bob.token);
  assert.is(byCid.json.slug, slug);
  const byIntent = await t.get('/AGENTS.md/receipt?intent=ann-fills', ann.token);
  assert.is(byIntent.json.slug, slug);
  const notBobs = await t.get('/AGENTS.md/receipt?intent=ann-fills', bob.token);
  assert.is(notBobs.status, 404);
  const missing = await t.get('/AGENTS.md/receipt/acorn-acorn-acorn', ann.token);
  assert.is(missing.status, 404);
});

reads('receipt: a spoken name shared by two receipts is ambiguous (409); full=1 gives content ids', async ({ t, ann }) => {
  // Slugs are 21 bits: among a few thousand entries two share one (the birthday bound). These
  // are ann's turns, submitted below the front so that thousands take a second, not a minute.
  const seen = new Map<string, string>();
  let pair: string | undefined;
  for (let i = 0; i < 8000 && !pair; i += 500) {
    const batch = await Promise.all(
      Array.from({ length: 500 }, (_, j) =>
        t.town.world.submit({ kind: 'turn', principal: ann.principal, intent: `slug-hunt-${i + j}`, object: 'nowhere', method: 'look' }),
      ),
    );
    for (const d of batch) {
      const r = d.outcome.kind === 'journal' ? d.outcome.receipt : undefined;
      if (!r?.slug) continue;
      if (seen.has(r.slug) && seen.get(r.slug) !== r.cid) pair = r.slug;
      seen.set(r.slug, r.cid!);
    }
  }
  assert.ok(pair, 'two receipts share a spoken name');
  const last = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: intent(), fields: { measures: 0 } });
  assert.is(last.status, 200);
  const r = await t.get(`/AGENTS.md/receipt/${pair}`, ann.token);
  assert.is(r.status, 409);
  assert.is(r.json.class, 'ambiguous');
  assert.is(r.json.status, 'refused');
  assert.ok(r.json.receipts.length >= 2);
  const full = await t.get(`/AGENTS.md/receipt/${pair}?full=1`, ann.token);
  assert.is(full.status, 409);
  const cid = full.json.receipts[1].cid as string;
  const one = await t.get(`/AGENTS.md/receipt/${cid}?full=1`, ann.token);
  assert.is(one.status, 200);
  assert.is(one.json.cid, cid);
});

reads('offers: cards made for the caller; after, compact, and wait returning as soon as one lands', async ({ t, bob }) => {
  const none = await t.get('/AGENTS.md/offers', bob.token);
  assert.is(none.json.status, 'none');
  const made = await turn(t, bob, 'notice-board', 'receive', { spell: 'make kind=lamp' });
  const offers = await t.get('/AGENTS.md/offers', bob.token);
  assert.is(offers.json.offers.length, 1);
  assert.is(offers.json.offers[0].text, made.json.offers[0]);
  assert.is(offers.json.offers[0].kind, 'lamp');
  const compact = await t.get('/AGENTS.md/offers?compact=1', bob.token);
  assert.equal(compact.json.offers, [made.json.offers[0]]);
  assert.is(compact.json.height, made.json.receipt.height);
  const after = await t.get(`/AGENTS.md/offers?after=${compact.json.height}`, bob.token);
  assert.equal(after.json.offers, []);
  const started = Date.now();
  const waiting = t.get(`/AGENTS.md/offers?compact=1&wait=20&after=${compact.json.height}`, bob.token);
  await new Promise((r) => setTimeout(r, 300));
  const second = await turn(t, bob, 'notice-board', 'receive', { spell: 'make kind=note' });
  const landed = await waiting;
  const took = Date.now() - started;
  assert.equal(landed.json.offers, second.json.offers);
  assert.ok(took < 5000, `answered as soon as the offer landed (${took} ms)`);
  const tooLong = await t.get('/AGENTS.md/offers?wait=31', bob.token);
  assert.is(tooLong.status, 400);
});

reads('pending and deliver: sends beyond what one delivery runs wait for deliver', async ({ t, ann }) => {
  const blown = await turn(t, ann, 'horn', 'blow', { fields: { to: 'mailbox', times: 20 } });
  assert.is(blown.json.status, 'done');
  assert.is(blown.json.delivered.length, 16, 'the host delivers up to 16 after the turn');
  const sent = blown.json.revealed.filter((x: string) => x.startsWith('horn sent receive to mailbox')).length;
  assert.ok(sent >= 20, `the horn queued ${sent}`);
  const waiting = sent - 16;
  const pending = await t.get('/AGENTS.md/pending', ann.token);
  assert.is(pending.status, 200);
  assert.is(pending.json.count, waiting);
  assert.ok(pending.json.pending.every((s: { from: string; to: string; yours: boolean }) => s.from === 'horn' && s.to === 'mailbox' && s.yours));
  const d = await t.post('/AGENTS.md/deliver', ann.token);
  assert.is(d.status, 200);
  assert.is(d.json.status, 'delivered');
  assert.is(d.json.delivered, waiting);
  assert.ok(d.json.receipts.every((r: { status: string }) => r.status === 'done'));
  const empty = await t.get('/AGENTS.md/pending', ann.token);
  assert.is(empty.json.count, 0, "the caller's read shows its own deliver");
  const nothing = await t.post('/AGENTS.md/deliver', ann.token);
  assert.is(nothing.json.status, 'nothing');
  const box = await t.get('/AGENTS.md/world/mailbox', ann.token);
  assert.is(box.json.state.fields[0].value.value, sent);
});

reads.run();

const quota = suite<{ t: TestTown }>('open town quota');
quota.before(async (ctx) => {
  ctx.t = await startTestTown({ settings: { open: true }, turnQuota: 3 });
});
quota.after(async (ctx) => {
  await ctx.t.close();
});

quota('me.turns counts down; the turn past the quota is refused `quota` until the hour turns', async ({ t }) => {
  const g = await t.guest('dee');
  const me0 = await t.get('/AGENTS.md/me', g.token);
  assert.equal(me0.json.turns, { remaining: 3, next: '2026-11-23T13:00:00.000Z' });
  for (let i = 0; i < 3; i++) assert.is((await turn(t, g, 'lamp', 'fill', { fields: { measures: 0 } })).json.status, 'done');
  const me1 = await t.get('/AGENTS.md/me', g.token);
  assert.is(me1.json.turns.remaining, 0);
  const height = t.town.world.height;
  const q = await turn(t, g, 'lamp', 'fill', { fields: { measures: 0 } });
  assert.is(q.json.status, 'refused');
  assert.is(q.json.class, 'quota');
  assert.is(q.json.next, Date.UTC(2026, 10, 23, 13));
  assert.is(t.town.world.height, height, 'a quota refusal journals nothing');
  t.clock.advance(3600_000);
  assert.is((await turn(t, g, 'lamp', 'fill', { fields: { measures: 0 } })).json.status, 'done');
  const me2 = await t.get('/AGENTS.md/me', g.token);
  assert.is(me2.json.turns.remaining, 2);
});

quota.run();

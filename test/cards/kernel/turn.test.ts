import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide } from '../../../src/cards/kernel/decide.js';
import type { Receipt } from '../../../src/cards/kernel/outcome.js';
import { evolve } from '../../../src/cards/kernel/evolve.js';
import { actionsOf, cardProgram, drawView, formsOf, lawLines } from '../../../src/cards/kernel/reading.js';
import { contentId, slugOfCid } from '../../../src/cards/kernel/content-id.js';
import {
  cardsIn,
  newestLines,
  offersFor,
  pendingSends,
  receiptByIntent,
  receiptsBySlug,
  turnsLeft,
  turnsThisHour,
  visibleIds,
} from '../../../src/cards/kernel/world.js';
import { given, Harness, T0, ann, bob, journaledRefusal, mayor, plain, refusal, report, turn } from './harness.js';

test('genesis: a square with a notice board and a lamp, a library, a workshop and a post office joined by doors, and the town card', () => {
  const h = Harness.town();
  const w = h.world;
  assert.is(w.height, 1);
  assert.is(w.entrance, 'square');
  assert.is(w.opener, mayor);
  for (const id of ['town', 'square', 'library', 'workshop', 'post-office', 'notice-board', 'lamp']) assert.ok(w.cards.has(id), id);
  assert.equal(
    cardsIn(w, 'square', ann).map((c) => c.id),
    ['door-square-library', 'door-square-post-office', 'door-square-workshop', 'lamp', 'market', 'notice-board'],
  );
  for (const room of ['library', 'workshop', 'post-office']) {
    assert.is(w.cards.get(`door-square-${room}`)!.kind, 'door');
    assert.is(w.cards.get(`door-${room}-square`)!.place, room);
  }
  assert.equal((h.state('square') as { name: string }).name, 'the town square');
  assert.equal((h.state('door-square-library') as { to: string }).to, 'library');
  for (const c of w.cards.values()) assert.is(c.owner, c.id === 'lamp' ? '' : 'town', `${c.id}: the lamp on its post is nobody's`);
  assert.ok(w.kinds.has('lamp') && w.kinds.has('avatar'));
  assert.is(w.receipts.size, 1);
});

test("arrival: a guest's first arrival makes an avatar in the square; a second does nothing", () => {
  const h = Harness.town();
  const arrive = { kind: 'arrive' as const, principal: ann, name: 'ann' };
  given(h)
    .when(arrive)
    .thenMatches([
      {
        kind: 'arrival',
        principal: ann,
        avatars: [{ principal: ann, object: 'avatar-ann' }],
        made: [{ id: 'avatar-ann', kind: 'avatar', owner: ann, place: 'square', lines: ['ann.town.test arrived in square'] }],
        receipt: { status: 'done', object: 'avatar-ann', method: 'arrive' },
      },
    ]);
  const o = h.arrive(ann);
  assert.is(o.kind, 'journal');
  const id = h.world.avatars.get(ann)!;
  assert.is(id, 'avatar-ann');
  const card = h.world.cards.get(id)!;
  assert.is(card.place, 'square');
  assert.is(card.owner, ann);
  assert.is((h.state(id) as { name: string }).name, 'ann');
  assert.equal(newestLines(card, 8), ['ann.town.test arrived in square'], 'lines show the guest by handle');
  given(h).when(arrive).then([]);
  assert.ok(
    cardsIn(h.world, 'square', ann).some((c) => c.id === 'avatar-ann'),
    'who stands in the square is read from places: the square keeps no list of its own',
  );
});

test('avatars move by their own spells and through doors, only along the ways from where they stand', () => {
  const h = Harness.town();
  h.arrive(ann);
  h.arrive(bob);
  assert.is(h.cast(ann, 'avatar-ann', 'go room=library').status, 'done');
  assert.is(h.world.cards.get('avatar-ann')!.place, 'library');
  assert.equal(pendingSends(h.world), [], 'a move is one write: nothing is sent to either room');
  assert.ok(!cardsIn(h.world, 'square', ann).some((c) => c.id === 'avatar-ann'));
  const notBobs = refusal(h.turn(bob, 'avatar-ann', 'go', { fields: { room: 'square' } }));
  assert.equal([notBobs.class, notBobs.clause], ['cardRefused', 'notYours'], 'only its guest moves an avatar');
  assert.is(h.act(bob, 'door-square-workshop', 'through', { fields: { avatar: 'avatar-bob' } }).status, 'done');
  assert.is(h.world.cards.get('avatar-bob')!.place, 'workshop');
  assert.equal(
    cardsIn(h.world, 'workshop', ann).map((c) => c.id),
    ['avatar-bob', 'bench', 'door-workshop-square'],
  );
  // the library has one door, back to the square: the workshop is not a way from here
  const noWay = refusal(h.turn(ann, 'avatar-ann', 'go', { fields: { room: 'workshop' } }));
  assert.is(noWay.class, 'cardRefused');
  assert.match(noWay.reason ?? '', /go room=square \(by door-library-square\)/, 'the refusal names the way that works');
  const nowhere = refusal(h.turn(ann, 'avatar-ann', 'go', { fields: { room: 'nowhere-room' } }));
  assert.is(nowhere.class, 'unknownObject');
  assert.match(nowhere.reason ?? '', /go room=square/);
  assert.is(h.world.cards.get('avatar-ann')!.place, 'library', 'a refused go leaves the avatar where it stood');
  // a door in another room is out of reach
  assert.is(refusal(h.turn(ann, 'door-square-workshop', 'through', { fields: { avatar: 'avatar-ann' } })).class, 'cardRefused');
});

test('a turn: one entry with receipt, writes, lines and wants; the receipt carries slug, content id and height', () => {
  const h = Harness.town();
  const height = h.world.height;
  const light = turn(ann, 'lamp', 'light');
  given(h)
    .when(light)
    .thenMatches([
      {
        height,
        kind: 'turn',
        principal: ann,
        intent: { intent: light.intent },
        request: { object: 'lamp', method: 'light' },
        writes: [{ id: 'lamp', version: 2, say: ['ann.town.test lights the lamp'] }],
        receipt: { status: 'done', line: 'ann.town.test lights the lamp', object: 'lamp', method: 'light' },
      },
    ]);
  const r = h.act(ann, 'lamp', 'light', { intent: light.intent });
  assert.is(r.status, 'done');
  assert.is(r.height, height);
  assert.is(r.line, 'ann.town.test lights the lamp', "a card shows the guest's handle, not the principal");
  assert.ok(r.revealed.includes('rule dark did not fire on lamp'), r.revealed.join('; '));
  assert.ok(r.revealed.includes('lamp stands at version 2'));
  const entry = h.journal.at(-1)!;
  const { cid, slug, ...body } = entry;
  assert.equal(contentId(body), { cid, slug }, 'the content id is that of the entry without its own cid');
  assert.is(r.cid, cid);
  assert.is(slugOfCid(cid), slug);
  assert.ok(/^[a-z]+-[a-z]+-[a-z]+$/.test(slug));
  assert.is(h.world.cards.get('lamp')!.version, 2);
  assert.equal(h.state('lamp'), { lit: true, fuel: 2 });
  assert.equal(newestLines(h.world.cards.get('lamp')!, 8), ['ann.town.test lights the lamp']);
  assert.equal(receiptByIntent(h.world, ann, entry.intent!.intent)!.cid, cid);
  assert.equal(
    receiptsBySlug(h.world, slug).map((x) => x.cid),
    [cid],
  );
  assert.is(turnsThisHour(h.world, ann, h.clock), 1);
  assert.equal(turnsLeft(h.world, ann, h.clock, 5), { remaining: 4, next: Date.UTC(2026, 10, 23, 13) });
  // wants open and close as the state moves
  const mine = h.cast(ann, 'lamp', 'make lamp').offers[0]!;
  const lit: string[][] = [];
  for (let i = 0; i < 3; i++) {
    lit.push(h.act(ann, mine, 'light').revealed);
    h.act(ann, mine, 'douse');
  }
  assert.ok(lit[2]!.includes(`opened want oil on ${mine}: a lamp wants oil`), lit[2]!.join('; '));
  assert.ok(!lit[1]!.some((x) => x.startsWith('opened want')));
  const closed = h.act(bob, mine, 'fill', { fields: { measures: 2 } }).revealed;
  assert.ok(closed.includes(`closed want oil on ${mine}`), closed.join('; '));
  // rules are reported fired or not
  const dark = h.act(ann, mine, 'light').revealed;
  assert.ok(dark.includes(`rule dark did not fire on ${mine}`), dark.join('; '));
  assert.ok(h.act(ann, mine, 'douse').revealed.includes(`rule dark fired on ${mine}`));
});

test('a turn that writes nothing advances no version', () => {
  const h = Harness.town();
  const relay = h.cast(ann, 'lamp', 'make maker').offers[0]!;
  given(h)
    .when(turn(ann, relay, 'relay', { fields: { to: 'town', text: 'hello' } }))
    .thenMatches([{ kind: 'turn', receipt: { status: 'done' }, writes: undefined }]);
});

test('try: reports what it would write, offer, fire and open, and the roots it read; journals nothing', () => {
  const h = Harness.town();
  h.arrive(ann);
  const height = h.world.height;
  const lamp = h.world.cards.get('lamp');
  const t = report(h.turn(ann, 'lamp', 'receive', { spell: 'plan { light; give to=me note=hi; make note }', try: true, intent: 'trial' }));
  assert.is(t.status, 'done');
  assert.equal(
    t.writes.map((w) => [w.object, w.version, plain(w.state)]),
    [['lamp', 2, { lit: true, fuel: 2 }]],
  );
  assert.equal(
    t.fires.map((f) => [f.to, f.method]),
    [['avatar-ann', 'receive']],
  );
  assert.equal(
    t.made.map((m) => m.kind),
    ['note'],
  );
  assert.equal(t.offers.length, 1);
  assert.equal(t.roots, [
    { object: 'avatar-ann', version: 1 },
    { object: 'lamp', version: 1 },
  ]);
  assert.is(h.world.height, height);
  assert.is(h.world.cards.get('lamp'), lamp);
  assert.is(h.world.pending.size, 0);
  // a try spends no intent: the same intent then runs for real, with the roots it read
  const real = h.act(ann, 'lamp', 'light', { intent: 'trial', if: t.roots });
  assert.is(real.status, 'done');
  // a try that would be refused says so, and still journals nothing
  const dry = report(h.turn(ann, 'lamp', 'fill', { fields: { measures: 9 }, try: true }));
  assert.is(dry.class, 'lawRefused');
  assert.is(h.world.height, height + 1);
  const fuel0 = Harness.town();
  const mine = fuel0.cast(ann, 'lamp', 'make lamp').offers[0]!;
  for (let i = 0; i < 2; i++) {
    fuel0.act(ann, mine, 'light');
    fuel0.act(ann, mine, 'douse');
  }
  assert.equal(report(fuel0.turn(ann, mine, 'light', { try: true })).opens, [`oil on ${mine}: a lamp wants oil`]);
});

test('visibility: a card visible to its owner alone is absent for others until it is lent', () => {
  const h = Harness.empty(ann);
  h.run({
    kind: 'create',
    principal: ann,
    intent: 'c',
    object: 'diary',
    source:
      'type D:\n  text: Text\n\ndef initial() -> D:\n  return D { text: "" }\n\nspell write(self: D, text: Text 1..80) -> D:\n  return self { text: text }\n',
    entry: 'initial',
  });
  assert.equal(visibleIds(h.world, ann), ['diary']);
  assert.equal(visibleIds(h.world, bob), []);
  given(h)
    .when(turn(bob, 'diary', 'write', { fields: { text: 'hi' } }))
    .thenMatches(journaledRefusal({ class: 'unknownObject', object: 'diary' }));
  h.cast(ann, 'diary', 'lend diary to bob');
  assert.equal(visibleIds(h.world, bob), ['diary']);
  assert.is(h.act(bob, 'diary', 'write', { fields: { text: 'hi from bob' } }).status, 'done');
  assert.equal(h.world.cards.get('diary')!.lent, [bob]);
  assert.is(h.world.cards.get('diary')!.owner, ann, 'lending keeps the owner');
});

test('sends: queued by a turn, listed as pending, delivered as entries of their own (at most 16 per call)', () => {
  const h = Harness.town();
  const box = h.cast(ann, 'lamp', 'make mailbox').offers[0]!;
  const relay = h.cast(ann, 'lamp', 'make maker').offers[0]!;
  for (let i = 0; i < 20; i++) h.act(ann, relay, 'relay', { fields: { to: box, text: `n${i}` } });
  assert.is(pendingSends(h.world).length, 20);
  assert.equal(
    pendingSends(h.world)
      .slice(0, 2)
      .map((s) => s.to),
    [box, box],
  );
  const height = h.world.height;
  const o = h.deliver();
  assert.is(o.kind, 'journal');
  const entries = (o as { entries: { kind: string; height: number; consumed?: string; receipt: Receipt }[] }).entries;
  assert.is(entries.length, 16);
  assert.equal(
    entries.map((e) => e.height),
    Array.from({ length: 16 }, (_, i) => height + i),
  );
  assert.ok(entries.every((e) => e.kind === 'delivery' && e.receipt.status === 'done'));
  assert.is(entries[0]!.receipt.line, 'a letter: n0');
  assert.is(pendingSends(h.world).length, 4);
  h.deliver();
  assert.is(h.deliver().kind, 'nothing');
  assert.is((h.state(box) as { letters: string[] }).letters.length, 20);
  assert.is(h.world.runs.size, 0);
});

test("a delivered send cannot cast a host spell (a card is no guest's deputy)", () => {
  const h = Harness.town();
  const relay = h.cast(ann, 'lamp', 'make maker').offers[0]!;
  const target = h.cast(ann, 'lamp', 'make lamp').offers[0]!;
  h.act(ann, relay, 'relay', { fields: { to: target, text: 'become torch law none' } });
  given(h)
    .when({ kind: 'deliver', max: 16 })
    .thenMatches([{ kind: 'delivery', principal: relay, receipt: { status: 'refused', class: 'badSpell', clause: 'noAction' }, writes: undefined }]);
  h.deliver();
  assert.is(h.world.cards.get(target)!.kind, 'lamp');
  // what a card may send is a card's spell, cast with the sending card as caller
  h.act(ann, relay, 'relay', { fields: { to: target, text: 'fill measures=2' } });
  const ok = (h.deliver() as { entries: { receipt: Receipt }[] }).entries[0]!.receipt;
  assert.is(ok.status, 'done', JSON.stringify(ok));
  assert.is(ok.line, `${relay} pours in 2 measures of oil`);
});

test('offers: cards made for the caller, with the height they were made at', () => {
  const h = Harness.town();
  h.arrive(ann);
  const maker = h.cast(ann, 'lamp', 'make maker').offers[0]!;
  const r = h.act(ann, maker, 'stash', { fields: { text: 'remember the milk' } });
  const id = r.offers[0]!;
  assert.equal(
    offersFor(h.world, ann).map((o) => [o.object, o.kind]),
    [
      [maker, 'maker'],
      [id, 'note'],
    ],
  );
  assert.equal(
    offersFor(h.world, ann, r.height! - 1).map((o) => [o.object, o.height]),
    [[id, r.height]],
  );
  assert.equal(offersFor(h.world, ann, r.height), []);
  assert.equal(h.state(id), { text: 'remember the milk', author: '', heard: [] });
  assert.is(h.world.cards.get(id)!.place, 'avatar-ann', "made things are carried by the maker's avatar");
  assert.is(h.world.cards.get(id)!.maker, maker);
  assert.equal(offersFor(h.world, bob), []);
});

test("become: reprograms the owner's card, migrating its state when the type changes", () => {
  const h = Harness.town();
  const mine = h.cast(ann, 'lamp', 'make lamp').offers[0]!;
  h.act(ann, mine, 'light');
  const pin = h.world.cards.get(mine)!.pin;
  const kept = refusal(h.turn(ann, mine, 'receive', { spell: 'become torch' }));
  assert.is(kept.clause, 'noLaw', 'dropping a law is never silent');
  const r = h.cast(ann, mine, 'become torch law none');
  assert.is(r.status, 'done', JSON.stringify(r));
  const card = h.world.cards.get(mine)!;
  assert.is(card.kind, 'torch');
  assert.not.equal(card.pin, pin);
  assert.equal(h.state(mine), { burning: true, pitch: 2 });
  assert.is(h.act(ann, mine, 'light').status, 'done');
  // the same shape carries over as it is (a dim lamp's law holds once the oil is burnt)
  const other = h.cast(ann, 'lamp', 'make lamp').offers[0]!;
  for (let i = 0; i < 3; i++) {
    h.act(ann, other, 'light');
    h.act(ann, other, 'douse');
  }
  assert.is(h.cast(ann, other, 'become dim law none').status, 'done');
  assert.equal(h.state(other), { lit: false, fuel: 0 });
  assert.is(h.world.cards.get(other)!.kind, 'dim');
  // a law taken from another kind that clashes with the kind's own is refused at `law syntax`
  const third = h.cast(ann, 'lamp', 'make lamp').offers[0]!;
  assert.is(refusal(h.turn(ann, third, 'receive', { spell: 'become lamp law lamp' })).clause, 'law syntax');
});

test("adopt: ownerless or abandoned cards, or anything for the world's opener; never the town's own", () => {
  const h = Harness.town({ abandonAfter: 3_600_000 });
  const mine = h.cast(ann, 'lamp', 'make lamp').offers[0]!;
  assert.is(refusal(h.turn(bob, mine, 'receive', { spell: 'adopt' })).clause, 'notYours');
  h.clock += 2 * 3_600_000;
  assert.is(h.cast(bob, mine, 'adopt').status, 'done', 'ann has not played for two hours: abandoned');
  assert.is(h.world.cards.get(mine)!.owner, bob);
  assert.is(refusal(h.turn(ann, 'notice-board', 'receive', { spell: 'adopt' })).clause, 'notYours');
  assert.is(h.cast(ann, 'lamp', 'adopt').status, 'done', "the lamp on its post is nobody's: the first to adopt it has it");
  assert.is(h.cast(mayor, mine, 'adopt').status, 'done');
  assert.is(h.world.cards.get(mine)!.owner, mayor);
  // a guest who has just arrived still plays here: their avatar is theirs
  h.arrive(ann);
  assert.is(refusal(h.turn(bob, 'avatar-ann', 'receive', { spell: 'adopt' })).clause, 'notYours');
});

test('intent repeat across kinds of turns: a refused turn is a receipt, and its repeat returns it', () => {
  const h = Harness.town();
  const first = h.turn(ann, 'nothing-here', 'poke', { intent: 'x' });
  assert.is(first.kind, 'journal');
  const again = h.turn(ann, 'nothing-here', 'poke', { intent: 'x' });
  assert.is(again.kind, 'repeat');
  assert.equal((again as { receipt: Receipt }).receipt, (first as { receipt: Receipt }).receipt);
});

test('decide never changes the world it is given', () => {
  const h = Harness.town();
  h.arrive(ann);
  const box = h.cast(ann, 'lamp', 'make mailbox').offers[0]!;
  h.act(ann, 'lamp', 'give', { fields: { to: box } });
  assert.is(h.world.cards.get('lamp')!.place, box, 'the lamp was handed into the box beside ann');
  const snapshot = JSON.stringify([...h.world.cards], (_, v) => (v instanceof Map ? [...v] : v));
  const sizes = [h.world.height, h.world.pending.size, h.world.runs.size, h.world.receipts.size, h.world.intents.size];
  for (const cmd of [
    { kind: 'turn' as const, principal: ann, intent: 'q1', object: 'lamp', method: 'light' },
    { kind: 'turn' as const, principal: ann, intent: 'q2', object: 'lamp', method: 'receive', spell: 'plan { light; make note }' },
    { kind: 'deliver' as const, max: 16 },
    { kind: 'arrive' as const, principal: bob, name: 'bob' },
  ]) {
    const o = decide(h.world, cmd, h.clock, h.programs, h.options);
    assert.is(o.kind, 'journal');
  }
  assert.is(
    JSON.stringify([...h.world.cards], (_, v) => (v instanceof Map ? [...v] : v)),
    snapshot,
  );
  assert.equal([h.world.height, h.world.pending.size, h.world.runs.size, h.world.receipts.size, h.world.intents.size], sizes);
});

test('slugs: three words from 128, so they repeat across enough receipts and the reader sees them all', () => {
  const h = Harness.town();
  const slugs = new Map<string, number>();
  for (let i = 0; i < 3000; i++) {
    const { slug } = contentId({ n: i });
    slugs.set(slug, (slugs.get(slug) ?? 0) + 1);
  }
  assert.ok(
    [...slugs.values()].some((n) => n > 1),
    'collisions happen',
  );
  for (let i = 0; i < 5; i++) h.act(ann, 'lamp', 'fill', { fields: { measures: 1 } });
  for (const e of h.journal) assert.ok(receiptsBySlug(h.world, e.slug).some((r) => r.cid === e.cid));
  void T0;
});

test('reading a card: _actions, forms, law lines and views, as the service shows them', () => {
  const h = Harness.town();
  const lamp = h.world.cards.get('lamp')!;
  const program = cardProgram(h.world, h.programs, lamp)!;
  assert.equal(actionsOf(program), { light: 'light', douse: 'douse', fill: 'fill measures=<natural 0..9>', give: 'give to=<object 1..128> note=<text 0..80>' });
  assert.equal(Object.keys(formsOf(program)), ['light', 'douse', 'fill', 'give']);
  assert.equal(
    lawLines(program).map((l) => l.split(':')[0]),
    ['full', 'kept'],
  );
  const paint = drawView(program, lamp, 'paint', ann);
  assert.ok(paint.ok && plain(paint.result) === '( ) a cold lamp, 3 measures of oil');
  assert.not.ok('receive' in actionsOf(cardProgram(h.world, h.programs, h.world.cards.get('town')!)!));
});

test('evolve refuses an entry out of order', () => {
  const h = Harness.town();
  h.act(ann, 'lamp', 'light');
  assert.throws(() => evolve(h.world, h.journal[1]!), /height/);
});

test.run();

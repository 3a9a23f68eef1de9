/**
 * badSpell: every clause of spec 7.2, provoked through real turns, each with a reason and, where
 * a template exists, the spell with blanks as `hint`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { badSpellClauses } from '../../../src/contract/errors.js';
import { given, Harness, ann, bob, journaledRefusal, mayor, refusal, turn } from './harness.js';

const seen = new Set<string>();

/** Given what `h` journaled, when `principal` casts `spell` at `object`, then one entry refusing `badSpell` with `clause`. */
function expectClause(h: Harness, principal: string, object: string, spell: string, clause: string, hintHas?: string) {
  const r = refusal(
    given(h)
      .when(turn(principal, object, 'receive', { spell }))
      .thenMatches(journaledRefusal({ class: 'badSpell', clause })),
  );
  assert.ok(r.reason && r.reason.length > 8, `${spell} has a reason`);
  if (hintHas !== undefined) assert.ok(r.hint?.includes(hintHas), `${spell}: hint ${r.hint} lacks ${hintHas}`);
  seen.add(clause);
  return r;
}

const make = (h: Harness, principal: string, kind: string) => h.cast(principal, 'lamp', `make ${kind}`).offers[0]!;

test('spell text clauses: noAction, otherCard, tooManySpells, hole, quotation, unclosedBlock', () => {
  const h = Harness.town();
  expectClause(h, ann, 'lamp', 'dance wildly', 'noAction', 'fill measures=<natural 0..9>');
  expectClause(h, ann, 'lamp', '', 'noAction');
  expectClause(h, ann, 'lamp', 'notice-board: pin key=a', 'otherCard');
  expectClause(h, ann, 'lamp', 'light; douse', 'tooManySpells');
  expectClause(h, ann, 'lamp', 'fill measures=<natural 0..9>', 'hole');
  expectClause(h, ann, 'lamp', 'give to=square note="unclosed', 'quotation');
  expectClause(h, ann, 'lamp', 'give to=square note=[a b', 'unclosedBlock');
  // the same spells sent by path name the method's own template
  const r = refusal(h.turn(ann, 'lamp', 'fill', { spell: 'fill measures=<natural 0..9>' }));
  assert.is(r.clause, 'hole');
  assert.is(r.hint, 'fill measures=<natural 0..9>');
});

test('form clauses: unknownField, duplicateField, missingField, badValue, fixed — by spell and by fields', () => {
  const h = Harness.town();
  expectClause(h, ann, 'lamp', 'fill litres=3', 'unknownField', 'fill measures=<natural 0..9>');
  expectClause(h, ann, 'lamp', 'fill measures=3 measures=4', 'duplicateField');
  expectClause(h, ann, 'lamp', 'fill', 'missingField');
  expectClause(h, ann, 'lamp', 'fill measures=12', 'badValue');
  expectClause(h, ann, 'lamp', 'fill measures=three', 'badValue');
  expectClause(h, ann, 'lamp', 'give to="not an id!"', 'badValue');
  expectClause(h, ann, 'lamp', 'fill 3 4', 'unknownField');
  const sw = make(h, ann, 'switch');
  expectClause(h, ann, sw, 'set mode=other on=true', 'fixed');
  assert.is(h.cast(ann, sw, 'set mode=only on=true').status, 'done');
  expectClause(h, ann, sw, 'set mode=only on=maybe', 'badValue');
  // fields reach the same clauses, and `__proto__` is only a name
  const f = (fields: unknown) => refusal(h.turn(ann, 'lamp', 'fill', { fields }));
  assert.is(f({ litres: 3 }).clause, 'unknownField');
  assert.is(f(JSON.parse('{"__proto__": 3}')).clause, 'unknownField');
  assert.is(f(JSON.parse('{"constructor": 3}')).clause, 'unknownField');
  assert.is(f({}).clause, 'missingField');
  assert.is(f({ measures: 10 }).clause, 'badValue');
  assert.is(f({ measures: -1 }).clause, 'badValue');
  assert.is(f({ measures: 1.5 }).clause, 'badValue');
  assert.is(f({ measures: '99999999999999999999999' }).clause, 'badValue');
  assert.is(h.act(ann, 'lamp', 'fill', { fields: { measures: '2' } }).status, 'done');
  assert.is(({} as { measures?: unknown }).measures, undefined);
});

test("noAvatar: `me` and `here` need the caster's avatar", () => {
  const h = Harness.town();
  const relay = make(h, ann, 'maker');
  expectClause(h, ann, relay, 'relay to=me text=hi', 'noAvatar');
  expectClause(h, ann, relay, 'relay to=here text=hi', 'noAvatar');
  h.arrive(ann);
  const r = h.cast(ann, relay, 'relay to=me text=hi');
  assert.is(r.status, 'done');
  assert.is(h.world.pending.values().next().value!.to, 'avatar-ann');
  h.cast(ann, relay, 'relay to=here text=hi');
  assert.equal(
    [...h.world.pending.values()].map((s) => s.to),
    ['avatar-ann', 'square'],
  );
});

test('host spell clauses: unknownKind, unknownLaw, noLaw, lawClash, notYours, opener', () => {
  const h = Harness.town();
  expectClause(h, ann, 'lamp', 'make unicorn', 'unknownKind', 'make kind=');
  expectClause(h, ann, 'lamp', 'become note', 'notYours');
  const mine = make(h, ann, 'lamp');
  expectClause(h, ann, mine, 'become unicorn', 'unknownKind');
  expectClause(h, ann, mine, 'become lamp law unicorn', 'unknownLaw');
  expectClause(h, ann, mine, 'become lamp law stone', 'noLaw');
  const dropping = expectClause(h, ann, mine, 'become torch', 'noLaw');
  assert.ok(dropping.reason!.includes('law none'), dropping.reason);
  expectClause(h, ann, mine, 'become dim', 'lawClash');
  expectClause(h, bob, mine, 'lend to bob', 'notYours');
  expectClause(h, ann, 'notice-board', 'adopt', 'notYours');
  expectClause(h, ann, mine, 'lend lamp to bob', 'otherCard');
  expectClause(h, ann, 'lamp', 'quiet bob until 99999999999999 -- no', 'opener');
  expectClause(h, mayor, 'lamp', 'quiet bob until tomorrow -- no', 'badValue');
  expectClause(h, ann, mine, 'lend to "Not A Guest"', 'badValue');
  expectClause(h, ann, mine, 'lend to "guest:localhost:8080:Bob"', 'badValue');
  // A town's host may carry a port (the quick start's is localhost:8080): the name follows the last colon.
  const ported = h.cast(ann, mine, 'lend to "guest:localhost:8080:bob"');
  assert.is(ported.status, 'done', JSON.stringify(ported));
  assert.ok(h.world.cards.get(mine)!.lent.includes('guest:localhost:8080:bob'));
  assert.is(h.cast(mayor, 'lamp', 'quiet "guest:localhost:8080:bob" until 99999999999999 -- a pause').status, 'done');
});

test('plan clauses: tooManyActs, notMade, planWaits, notInPlan, codeTwice, hole', () => {
  const h = Harness.town();
  h.arrive(ann);
  const mine = make(h, ann, 'lamp');
  expectClause(h, ann, mine, `plan { ${Array(9).fill('douse').join('; ')} }`, 'tooManyActs');
  expectClause(h, ann, mine, 'plan { make note; give to={made 2} }', 'notMade');
  expectClause(h, ann, mine, 'plan { {made 1}: write text=hi }', 'notMade');
  expectClause(h, ann, mine, 'give to={made 1}', 'notMade');
  expectClause(h, ann, mine, 'plan { light; lamp: light }', 'planWaits');
  expectClause(h, mayor, 'lamp', 'plan { light; quiet ann until 99999999999999 -- x }', 'notInPlan');
  expectClause(h, ann, mine, 'plan { make lamp; {made 1}: become torch law none }', 'notInPlan');
  expectClause(h, ann, mine, 'plan { plan { light } }', 'notInPlan');
  expectClause(h, ann, mine, 'plan { become lamp law none; become lamp law none }', 'codeTwice');
  expectClause(h, ann, mine, 'plan { make <kind> }', 'hole');
  const height = h.world.height;
  const r = h.cast(ann, mine, 'plan { make note; {made 1}: write text=hello; give to={made 1} }');
  assert.is(r.status, 'done');
  assert.is(h.world.height, height + 1, 'a plan is one entry');
  const note = r.offers[0]!;
  assert.equal(h.state(note), { text: 'hello', author: ann, heard: [] });
  assert.is([...h.world.pending.values()][0]!.to, note);
});

test('an act of a plan that fails refuses the whole plan (no partial writes)', () => {
  const h = Harness.town();
  const mine = make(h, ann, 'lamp');
  const before = h.state(mine);
  const r = refusal(h.turn(ann, mine, 'receive', { spell: 'plan { light; make note; fill measures=9 }' }));
  assert.is(r.class, 'lawRefused');
  assert.equal(h.state(mine), before);
  assert.is([...h.world.cards.keys()].filter((k) => k.startsWith('note-')).length, 0);
  const bad = refusal(h.turn(ann, mine, 'receive', { spell: 'plan { light; fill litres=2 }' }));
  assert.ok(bad.reason!.startsWith('act 2 (fill)'), bad.reason);
});

test('every badSpell clause of 7.2 was provoked', () => {
  assert.equal(
    badSpellClauses.filter((c) => !seen.has(c)),
    [],
  );
});

test.run();

/**
 * Every refusal class of spec 7.2 the kernel produces, given/when/then (test/support/given.ts):
 * given what a town journaled, when a command is decided, then the entry it journals (a refusal
 * journaled is an entry whose receipt refuses) or the refusal it answers with journaling nothing.
 * (`staleRoot` is the service's: it arises when an append at the expected height loses to
 * another front.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { refusalClasses } from '../../../src/contract/errors.js';
import { decide } from '../../../src/cards/kernel/decide.js';
import { answerOf } from '../../../src/cards/kernel/outcome.js';
import { refused } from '../../support/given.js';
import { given, Harness, ann, bob, journaledRefusal, mayor, plain, refusal, turn } from './harness.js';
import { fixturePrograms } from './fixtures.js';
import type { Programs } from '../../../src/cards/kernel/programs.js';

/** Ann makes herself a card of a library kind (so she owns it). */
function annMakes(h: Harness, kind: string): string {
  const r = h.cast(ann, 'lamp', `make ${kind}`);
  assert.is(r.status, 'done');
  return r.offers[0]!;
}
const withAnnsLamp = (h: Harness) => annMakes(h, 'lamp');

const row = (key: string, text: string) => ({
  tag: 'record',
  fields: [
    { name: 'key', value: { tag: 'label', value: key } },
    { name: 'text', value: { tag: 'label', value: text } },
    { name: 'by', value: { tag: 'label', value: '' } },
  ],
});

test('absentItem: a list edit names an item not present', () => {
  const town = Harness.town();
  const o = given(town)
    .when(turn(ann, 'notice-board', 'update', { fields: { key: 'nothing', text: 'x' } }))
    .thenMatches(journaledRefusal({ class: 'absentItem', hintKind: refusalClasses.absentItem.hint, object: 'notice-board', method: 'update' }));
  assert.ok(refusal(o).reason!.includes('nothing'));
  given(town)
    .when(turn(ann, 'notice-board', 'remove', { fields: { key: 'nothing' } }))
    .thenMatches(journaledRefusal({ class: 'absentItem' }));
});

test('duplicateKey and keyTaken: keyed rows refuse what a board must not hold', () => {
  const h = Harness.town();
  h.act(ann, 'notice-board', 'add', { fields: { key: 'fair', text: 'on sunday' } });
  given(h)
    .when(turn(bob, 'notice-board', 'add', { fields: { key: 'fair', text: 'mine now' } }))
    .thenMatches(journaledRefusal({ class: 'keyTaken' }));
  assert.equal(
    (h.state('notice-board') as { rows: { key: string; text: string }[] }).rows.map((x) => [x.key, x.text]),
    [['fair', 'on sunday']],
  );
  const board = annMakes(h, 'board');
  const dup = given(h)
    .when(
      turn(ann, board, 'put', {
        argument: { tag: 'record', fields: [{ name: 'rows', value: { tag: 'list', items: [row('a', '1'), row('b', '2'), row('a', '3')] } }] },
      }),
    )
    .thenMatches(journaledRefusal({ class: 'duplicateKey' }));
  assert.ok(refusal(dup).reason!.includes('a'));
  assert.is(
    h.act(ann, board, 'put', { argument: { tag: 'record', fields: [{ name: 'rows', value: { tag: 'list', items: [row('a', '1'), row('b', '2')] } }] } }).status,
    'done',
  );
});

test('budget: out of ticks or heap, the whole turn rolls back and the usage is on the receipt', () => {
  const h = Harness.town({ budget: { ticks: 5_000, heap: 4_000, bytes: 65_536 } });
  const id = annMakes(h, 'spinner');
  const before = h.state(id);
  const height = h.world.height;
  const r = refusal(h.turn(ann, id, 'spin', { fields: { n: 1_000_000 } }));
  assert.is(r.class, 'budget');
  assert.is(r.reason, 'ticks');
  assert.ok(r.usage.ticks >= 5_000 - 100, `usage ${JSON.stringify(r.usage)}`);
  assert.is(h.world.height, height + 1, 'a budget refusal is journaled');
  assert.equal(h.state(id), before);
  const heap = refusal(h.turn(ann, id, 'grow', { fields: { n: 4_000 } }));
  assert.is(heap.class, 'budget');
  assert.ok(heap.reason === 'heap' || heap.reason === 'ticks');
});

test('budgetExhausted: a cascade of sends stops at the depth allowance', () => {
  const h = Harness.town({ allowances: { depth: 3, work: 4_000_000, storage: 262_144 } });
  const a = annMakes(h, 'echo');
  const b = annMakes(h, 'echo');
  h.act(ann, a, 'ping', { fields: { to: b } });
  const o = h.deliver(16);
  assert.is(o.kind, 'journal');
  const receipts = (o as { entries: { receipt: { status: string; class?: string; reason?: string } }[] }).entries.map((e) => e.receipt);
  assert.equal(
    receipts.map((r) => r.status),
    ['done', 'done', 'done', 'refused'],
  );
  assert.is(receipts[3]!.class, 'budgetExhausted');
  assert.ok(receipts[3]!.reason!.startsWith('depth'));
  assert.is(h.world.pending.size, 0);
  assert.is(h.world.runs.size, 0, 'a finished run leaves nothing behind');
});

test('budgetExhausted: work and storage allowances are per run', () => {
  const h = Harness.town({ allowances: { depth: 100, work: 60, storage: 262_144 } });
  const a = annMakes(h, 'echo');
  const b = annMakes(h, 'echo');
  h.act(ann, a, 'ping', { fields: { to: b } });
  const o = h.deliver(50);
  const last = (o as { entries: { receipt: { class?: string; reason?: string } }[] }).entries.at(-1)!.receipt;
  assert.is(last.class, 'budgetExhausted');
  assert.ok(last.reason!.startsWith('work'), last.reason);
  const s = Harness.town({ allowances: { depth: 100, work: 4_000_000, storage: 60 } });
  const c = annMakes(s, 'echo');
  const d = annMakes(s, 'echo');
  s.act(ann, c, 'ping', { fields: { to: d } });
  const so = s.deliver(50);
  const sl = (so as { entries: { receipt: { class?: string; reason?: string } }[] }).entries.at(-1)!.receipt;
  assert.is(sl.class, 'budgetExhausted');
  assert.ok(sl.reason!.startsWith('storage'), sl.reason);
});

test('capacity: a world that holds its most cards refuses to make another', () => {
  const h = Harness.town();
  h.options = { ...h.options, capacity: { cards: h.world.cards.size, pending: 10 } };
  const o = given(h)
    .when(turn(ann, 'lamp', 'receive', { spell: 'make note' }))
    .thenMatches(journaledRefusal({ class: 'capacity' }));
  assert.ok(refusal(o).reason!.includes('cards'));
});

test('cardRefused: the card refuses by its own rule, with object, clause, reading and reason', () => {
  const h = Harness.town();
  const id = withAnnsLamp(h);
  for (let i = 0; i < 3; i++) {
    h.act(ann, id, 'light');
    h.act(ann, id, 'douse');
  }
  given(h)
    .when(turn(ann, id, 'light'))
    .thenMatches(
      journaledRefusal({
        class: 'cardRefused',
        object: id,
        clause: 'dry',
        reading: 'the lamp has no oil',
        reason: 'refused dry: the lamp has no oil',
        line: 'refused dry: the lamp has no oil',
      }),
    );
});

test('duplicateIdentity: another request under a used intent names the original; nothing journaled', () => {
  const h = Harness.town();
  const first = h.act(ann, 'lamp', 'light', { intent: 'morning' });
  const height = h.world.height;
  const o = given(h)
    .when(turn(ann, 'lamp', 'fill', { intent: 'morning', fields: { measures: 1 } }))
    .then(refused({ status: 'refused', class: 'duplicateIdentity', original: first.cid }));
  const r = refusal(o);
  assert.ok(r.reason!.includes(`entry ${first.height}`) && r.reason!.includes('lamp'), r.reason);
  // the same intent for the same request is a repeat: the first receipt, no new entry
  const again = h.turn(ann, 'lamp', 'light', { intent: 'morning' });
  assert.is(again.kind, 'repeat');
  assert.equal((again as { receipt: unknown }).receipt, first);
  assert.is(h.world.height, height);
  // intents are per principal
  assert.is(h.turn(bob, 'lamp', 'fill', { intent: 'morning', fields: { measures: 1 } }).kind, 'journal');
});

test('evaluation: a malformed plan, and a natural below zero', () => {
  const h = Harness.town();
  const r = refusal(h.turn(ann, 'lamp', 'plan', { fields: { acts: ';' } }));
  assert.is(r.class, 'evaluation');
  assert.ok(r.reason!.includes('malformed plan'));
  const id = annMakes(h, 'switch');
  const z = refusal(h.turn(ann, id, 'drain', { fields: { n: 5 } }));
  assert.is(z.class, 'evaluation');
  assert.ok(z.reason!.includes('below zero'));
});

test('lawRefused: a change the law forbids names the clause and its reading', () => {
  const h = Harness.town();
  given(h)
    .when(turn(ann, 'lamp', 'fill', { fields: { measures: 9 } }))
    .thenMatches(journaledRefusal({ class: 'lawRefused', clause: 'full', reason: 'refused full: a lamp holds ten measures of oil' }));
  assert.is((h.state('lamp') as { fuel: number }).fuel, 3);
});

test('moved: a root that has moved refuses; nothing runs, nothing is journaled, the intent stays unused', () => {
  const h = Harness.town();
  const v = h.world.cards.get('lamp')!.version;
  h.act(bob, 'lamp', 'light');
  const o = given(h)
    .when(turn(ann, 'lamp', 'fill', { fields: { measures: 1 }, intent: 'later', if: [{ object: 'lamp', version: v }] }))
    .then(refused({ class: 'moved', usage: { ticks: 0, heap: 0, bytes: 0 } }));
  assert.ok(refusal(o).reason!.includes(`version ${v + 1}`));
  given(h)
    .when(turn(ann, 'lamp', 'fill', { fields: { measures: 1 }, intent: 'later', if: [{ object: 'lamp', version: v + 1 }] }))
    .thenMatches([{ kind: 'turn', intent: { intent: 'later' }, receipt: { status: 'done' } }]);
  // a root you may not see has moved too (it is gone for you)
  given(h)
    .when(turn(ann, 'lamp', 'light', { if: [{ object: 'nowhere', version: 1 }] }))
    .then(refused({ class: 'moved' }));
});

test('noMethod: the card offers no such method; a view is not a method', () => {
  const h = Harness.town();
  const o = given(h)
    .when(turn(ann, 'lamp', 'dance'))
    .thenMatches(journaledRefusal({ class: 'noMethod' }));
  assert.ok(refusal(o).reason!.includes('light'));
  given(h)
    .when(turn(ann, 'lamp', 'paint'))
    .thenMatches(journaledRefusal({ class: 'noMethod' }));
});

test('programRefused: stateType, migration, law syntax, compile and packageBytes', () => {
  const h = Harness.town();
  const id = withAnnsLamp(h);
  const st = refusal(h.turn(ann, id, 'become', { fields: { kind: 'stone', law: 'none' } }));
  assert.is(st.class, 'programRefused');
  assert.is(st.clause, 'stateType');
  const law = refusal(h.turn(ann, id, 'become', { fields: { kind: 'stone', law: 'lamp' } }));
  assert.is(law.class, 'programRefused');
  assert.is(law.clause, 'law syntax', JSON.stringify(law));
  // a library whose kind no longer compiles, and one whose package is too big
  const { programs } = fixturePrograms();
  const broken: Programs = {
    ...programs,
    kind: (name) =>
      name === 'broken'
        ? { kind: 'broken', modules: [{ name: 'broken', source: 'type X:\n  a: Natural\n\ndef initial() -> X:\n  return X { a: ' }] }
        : name === 'huge'
          ? { kind: 'huge', modules: [{ name: 'huge', source: 'x'.repeat(140_000) }] }
          : name === 'badmigrate'
            ? {
                kind: 'badmigrate',
                modules: [
                  {
                    name: 'badmigrate',
                    source:
                      'type T:\n  n: Natural\n\ntype OldLamp:\n  lit: Boolean\n  fuel: Natural\n\ndef initial() -> T:\n  return T { n: 0 }\n\ndef migrate(old: OldLamp) -> T:\n  return T { n: old.fuel - 100 }\n\nspell poke(self: T) -> T:\n  return self\n',
                  },
                ],
              }
            : programs.kind(name),
  };
  const outcome = (kind: string) =>
    refusal(
      answerOf(
        decide(
          h.world,
          { kind: 'turn', principal: ann, intent: `pr-${kind}`, object: id, method: 'become', fields: { kind, law: 'none' } },
          h.clock,
          broken,
          h.options,
        ),
      ),
    );
  assert.is(outcome('broken').clause, 'compile');
  assert.is(outcome('huge').clause, 'packageBytes');
  const mig = outcome('badmigrate');
  assert.is(mig.clause, 'migration');
  assert.ok(mig.reason!.includes('below zero'), mig.reason);
});

test('quiet: the opener quiets a guest; their turns refuse with clause, reason and next; nothing journaled', () => {
  const h = Harness.town();
  const until = h.clock + 3_600_000;
  const q = h.cast(mayor, 'town', `quiet ann until ${until} -- shouting in the square`);
  assert.is(q.status, 'done');
  given(h)
    .when(turn(ann, 'lamp', 'light', { intent: 'hush' }))
    .then(refused({ class: 'quiet', clause: new Date(until).toISOString(), reason: 'shouting in the square', next: until }));
  given(h)
    .when(turn(bob, 'lamp', 'light'))
    .thenMatches([{ receipt: { status: 'done' } }]); // others play on
  h.clock = until + 1;
  assert.is(h.turn(ann, 'lamp', 'fill', { intent: 'hush', fields: { measures: 1 } }).kind, 'journal', 'the same intent works once quiet has passed');
});

test('quota: past the turns of the hour the turn refuses with next = the next clock hour', () => {
  const h = Harness.town({ turnQuota: 2 });
  h.clock = Date.UTC(2026, 10, 23, 12, 10);
  h.act(ann, 'lamp', 'light');
  h.act(ann, 'lamp', 'fill', { fields: { measures: 1 } });
  given(h)
    .when(turn(ann, 'lamp', 'light'))
    .then(refused({ class: 'quota', next: Date.UTC(2026, 10, 23, 13, 0) }));
  given(h)
    .when(turn(bob, 'lamp', 'light'))
    .thenMatches([{ kind: 'turn', principal: bob }]); // others have turns left this hour
  h.clock = Date.UTC(2026, 10, 23, 13, 0);
  assert.is(h.turn(ann, 'lamp', 'fill', { fields: { measures: 1 } }).kind, 'journal');
});

test('requiredAbsence: create finds the card already present and names it', () => {
  const h = Harness.empty(ann);
  const pet = {
    kind: 'create' as const,
    principal: ann,
    intent: 'c1',
    object: 'pet',
    source:
      'type Pet:\n  name: Text\n\ndef initial() -> Pet:\n  return Pet { name: "rex" }\n\nspell rename(self: Pet, name: Text 1..20) -> Pet:\n  return self { name: name }\n',
    entry: 'initial',
  };
  const create = (intent: string) => h.run({ ...pet, intent });
  assert.is(create('c1').kind, 'journal');
  given(h)
    .when({ ...pet, intent: 'c2' })
    .thenMatches([{ kind: 'create', receipt: { status: 'refused', class: 'requiredAbsence', root: 'pet' }, made: undefined }]);
});

test('typeMismatch: fields that are not an object, an argument of the wrong shape, fields for a method with no form', () => {
  const h = Harness.town();
  const notObject = refusal(h.turn(ann, 'lamp', 'fill', { fields: [3] }));
  assert.is(notObject.class, 'typeMismatch');
  assert.is(notObject.expected, 'fill measures=<natural 0..9>');
  const nested = refusal(h.turn(ann, 'lamp', 'fill', { fields: { measures: { n: 3 } } }));
  assert.is(nested.class, 'typeMismatch');
  const arg = refusal(h.turn(ann, 'lamp', 'fill', { argument: { tag: 'record', fields: [{ name: 'measures', value: { tag: 'label', value: 'three' } }] } }));
  assert.is(arg.class, 'typeMismatch');
  assert.ok(arg.expected!.includes('<natural 0..9>'));
  assert.is(refusal(h.turn(ann, 'lamp', 'fill', { argument: { tag: 'nonsense' } })).class, 'typeMismatch');
  assert.is(refusal(h.turn(ann, 'lamp', 'fill', { fields: { measures: 1 }, spell: 'fill measures=1' })).class, 'typeMismatch');
  const id = annMakes(h, 'switch');
  const formless = refusal(h.turn(ann, id, 'load', { fields: { names: ['a'] } }));
  assert.is(formless.class, 'typeMismatch');
  assert.ok(formless.expected!.includes('List Text'), formless.expected);
  const wrong = refusal(h.turn(ann, id, 'load', { argument: { tag: 'record', fields: [{ name: 'names', value: { tag: 'natural', value: 3 } }] } }));
  assert.is(wrong.class, 'typeMismatch');
  assert.ok(wrong.expected!.includes('List Text'), JSON.stringify(wrong));
  assert.is(
    h.act(ann, id, 'load', { argument: { tag: 'record', fields: [{ name: 'names', value: { tag: 'list', items: [{ tag: 'label', value: 'x' }] } }] } }).status,
    'done',
  );
});

test('unknownObject: an unseen card is exactly like an absent one', () => {
  const h = Harness.empty(ann);
  h.run({
    kind: 'create',
    principal: ann,
    intent: 'c',
    object: 'secret',
    source: 'type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 1 }\n\nspell poke(self: S) -> S:\n  return self\n',
    entry: 'initial',
  });
  const hidden = refusal(
    given(h)
      .when(turn(bob, 'secret', 'poke', { intent: 'x' }))
      .thenMatches(journaledRefusal({ class: 'unknownObject' })),
  );
  const absent = refusal(
    given(h)
      .when(turn(bob, 'secrex', 'poke', { intent: 'y' }))
      .thenMatches(journaledRefusal({ class: 'unknownObject' })),
  );
  const strip = (r: object) =>
    JSON.stringify(r)
      .replace(/secre[tx]/g, 'ID')
      .replace(/"(cid|slug|height)":[^,}]*/g, '');
  assert.is(strip(hidden), strip(absent));
  assert.is(h.act(ann, 'secret', 'poke').status, 'done');
});

test('every class of 7.2 but staleRoot has a test above', () => {
  const covered = [
    'absentItem',
    'badSpell',
    'budget',
    'budgetExhausted',
    'capacity',
    'cardRefused',
    'duplicateIdentity',
    'duplicateKey',
    'evaluation',
    'keyTaken',
    'lawRefused',
    'moved',
    'noMethod',
    'programRefused',
    'quiet',
    'quota',
    'requiredAbsence',
    'typeMismatch',
    'unknownObject',
  ];
  assert.equal(
    Object.keys(refusalClasses).filter((c) => !covered.includes(c)),
    ['staleRoot'],
  );
  void plain;
});

test.run();

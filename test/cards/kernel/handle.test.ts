/**
 * Spec 5.2, "cards show the guest's handle": a principal reads as `<name>.<host>` wherever text
 * is made of it (card lines, sends' text, views, the kernel's own lines), while law, state and
 * the journal keep the principal itself.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { shownPrincipal } from '../../../src/cards/program.js';
import { nameOf } from '../../../src/cards/kernel/turn.js';
import { newestLines } from '../../../src/cards/kernel/world.js';
import { build, cast, ctx, ok, state } from '../lang/helpers.js';
import { label, type TypedData } from '../../../src/contract/typed.js';
import { Harness, ann, bob } from './harness.js';

test('a guest principal reads as its handle; anything else as it is', () => {
  assert.is(shownPrincipal('guest:town.test:ann'), 'ann.town.test');
  assert.is(shownPrincipal('guest:localhost:8080:ada'), 'ada.localhost', 'a handle is a DNS name: no port');
  assert.is(shownPrincipal('guest:[::1]:8080:ada'), 'ada.[::1]');
  assert.is(shownPrincipal('town'), 'town');
  assert.is(shownPrincipal('lamp-7'), 'lamp-7', 'a card acting through a send');
  assert.is(shownPrincipal('door:square:library'), 'door:square:library');
  assert.is(shownPrincipal('guest::ann'), 'guest::ann', 'no host: not a guest principal');
  assert.is(shownPrincipal('guest:town:Ann'), 'guest:town:Ann', 'not a guest name');
  assert.is(shownPrincipal('guest:town:'), 'guest:town:');
  assert.is(shownPrincipal(''), '');
  // the one-entry memory must not leak one principal's handle into another's
  assert.is(shownPrincipal('guest:a.example:bo'), 'bo.a.example');
  assert.is(shownPrincipal('guest:b.example:bo'), 'bo.b.example');
  assert.is(nameOf('guest:town.test:bob'), 'bob.town.test');
});

const src = `
type Card:
  by: Principal
  note: Text 0..200
  who: List Principal

law:
  mine: self.note == before.note or caller == owner -- "only its owner writes"

def initial() -> Card:
  return Card { by: "guest:town.test:nobody", note: "", who: [] }

spell sign(self: Card) -> Card:
  say "{caller} signs for {owner}"
  return self { by: caller, note: caller, who: append(self.who, caller) }

spell recite(self: Card) -> Card:
  say "by {self.by}, note {self.note}, all {self.who}, as text {text(self.by)}"
  return self

spell write(self: Card, note: Text 0..200) -> Card:
  return self { note: note }

view paint(self: Card, viewer: Principal) -> Text:
  return "{viewer} looks at a card signed by {self.by}"
`;

test('the language: Principal values read as handles in text; state and law keep principals', () => {
  const p = build(src);
  const signed = ok(cast(p, 'sign', state(p), {}, ctx({ caller: bob, owner: ann })));
  assert.equal(signed.says, ['bob.town.test signs for ann.town.test']);
  const fields = (signed.state as Extract<TypedData, { tag: 'record' }>).fields;
  assert.equal(fields.find((f) => f.name === 'by')!.value, label(bob), 'state keeps the principal');
  const recited = ok(cast(p, 'recite', signed.state));
  // a Text field holding a principal is text: shown as it is; Principal values (alone, in lists, through text()) as handles
  assert.equal(recited.says, [`by bob.town.test, note ${bob}, all ["bob.town.test"], as text bob.town.test`]);
  const v = p.view('paint', signed.state, ann, { ticks: 100_000, heap: 1_000_000, bytes: 10_000 });
  assert.ok(v.ok && v.result.tag === 'label' && v.result.value === 'ann.town.test looks at a card signed by bob.town.test', JSON.stringify(v));
  // law compares principals, not handles
  const written = ok(cast(p, 'write', signed.state, { note: label('x') }, ctx({ caller: bob, owner: ann }))).state;
  assert.is(p.checkLaw(signed.state, written, ctx({ caller: bob, owner: ann }))?.name, 'mine');
  assert.is(p.checkLaw(signed.state, written, ctx({ caller: ann, owner: ann })), undefined);
  // a caller that merely looks like a handle is no owner
  assert.is(p.checkLaw(signed.state, written, ctx({ caller: 'ann.town.test', owner: ann }))?.name, 'mine');
});

test('the kernel: receipts and card lines show handles; the journal keeps principals', () => {
  const h = Harness.town();
  h.arrive(ann);
  const lit = h.act(ann, 'lamp', 'light');
  assert.is(lit.line, 'ann.town.test lights the lamp');
  const entry = h.journal.at(-1)!;
  assert.is(entry.principal, ann, 'the entry names the principal');
  assert.equal(newestLines(h.world.cards.get('avatar-ann')!, 8), ['ann.town.test arrived in square']);
  const made = h.cast(ann, 'lamp', 'make note');
  const note = made.offers[0]!;
  assert.ok(made.revealed.includes(`made ${note} (note), offered to ann.town.test`), made.revealed.join('; '));
  const lent = h.cast(ann, note, `lend ${note} to bob`);
  assert.is(lent.line, `ann.town.test lent ${note} to bob.town.test`);
  const notYours = h.turn(bob, note, 'receive', { spell: 'adopt' });
  assert.is((notYours as { receipt: { reason?: string } }).receipt.reason, `${note} belongs to ann.town.test, who still plays here`);
  const gave = h.act(ann, 'lamp', 'give', { fields: { to: note, note: 'hi' } });
  assert.is(gave.line, 'ann.town.test cast give on lamp', 'a turn that says nothing: the receipt line names the guest by handle');
  const send = h.journal.at(-1)!.sends![0]!;
  assert.equal(send.argument, {
    tag: 'record',
    fields: [
      { name: 'text', value: label('a lamp (lamp) from ann.town.test: hi') },
      { name: 'post', value: label('') },
    ],
  });
  assert.is(send.principal, ann, 'the send keeps the principal it runs for');
});

test.run();

/**
 * The place law, given/when/then (docs/world.md): given a town where ann and bob have arrived in
 * the square, when a guest goes, takes, drops or gives, then the entry it journals: one write of
 * the card's place, or a refusal that rolls the whole turn back and names what works.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cardsIn } from '../../../src/cards/kernel/world.js';
import { given, Harness, HOST, ann, bob, journaledRefusal, refusal, turn } from './harness.js';

/** ann and bob in the square. */
function town(): Harness {
  const h = Harness.town();
  h.arrive(ann);
  h.arrive(bob);
  return h;
}

const go = (who: string, room: string) => turn(who, who === ann ? 'avatar-ann' : 'avatar-bob', 'go', { fields: { room } });
const take = (who: string, thing: string) => turn(who, who === ann ? 'avatar-ann' : 'avatar-bob', 'take', { fields: { thing } });
const drop = (who: string, thing: string) => turn(who, who === ann ? 'avatar-ann' : 'avatar-bob', 'drop', { fields: { thing } });

test("go: along a door of the room, one write of the avatar's place", () => {
  given(town())
    .when(go(ann, 'library'))
    .thenMatches([{ kind: 'turn', receipt: { status: 'done' }, writes: [{ id: 'avatar-ann', place: 'library' }], sends: undefined }]);
});

test('go to a card that does not exist: unknownObject, and the reason names the ways from here', () => {
  const o = given(town())
    .when(go(ann, 'nowhere-room'))
    .thenMatches(journaledRefusal({ class: 'unknownObject', object: 'nowhere-room' }));
  const reason = refusal(o).reason ?? '';
  for (const way of [
    'go room=library (by door-square-library)',
    'go room=workshop (by door-square-workshop)',
    'go room=post-office (by door-square-post-office)',
  ])
    assert.ok(reason.includes(way), reason);
});

test('go where no door leads from here: noWay, naming the way that works', () => {
  const h = town();
  h.act(ann, 'avatar-ann', 'go', { fields: { room: 'library' } });
  const o = given(h)
    .when(go(ann, 'workshop'))
    .thenMatches(journaledRefusal({ class: 'cardRefused', clause: 'noWay', object: 'avatar-ann' }));
  assert.match(refusal(o).reason ?? '', 'go room=square (by door-library-square)');
  // a thing is no way: nothing walks an avatar into the lamp or the notice board
  given(town())
    .when(go(ann, 'lamp'))
    .thenMatches(journaledRefusal({ class: 'cardRefused', clause: 'noWay' }));
});

test('go by a closed door, or one the room does not list: noWay', () => {
  const h = town();
  h.act('town', 'door-square-library', 'close');
  given(h)
    .when(go(ann, 'library'))
    .thenMatches(journaledRefusal({ class: 'cardRefused', clause: 'noWay' }));
});

test('take: what lies where the avatar stands comes into its hands; what lies elsewhere is out of reach', () => {
  given(town())
    .when(take(ann, 'lamp'))
    .thenMatches([{ receipt: { status: 'done' }, writes: [{ id: 'avatar-ann' }, { id: 'lamp', place: 'avatar-ann' }] }]);
  given(town())
    .when(take(ann, 'bench'))
    .thenMatches(journaledRefusal({ class: 'cardRefused', clause: 'outOfReach', object: 'bench' }));
  given(town())
    .when(take(ann, 'no-such-card'))
    .thenMatches(journaledRefusal({ class: 'unknownObject', object: 'no-such-card' }));
});

test("take: another guest's thing is not yours, lying or held; the town's card is not yours", () => {
  const h = town();
  h.act(bob, 'avatar-bob', 'take', { fields: { thing: 'lamp' } });
  given(h)
    .when(take(ann, 'lamp'))
    .thenMatches(journaledRefusal({ class: 'cardRefused', clause: 'outOfReach' }));
  const made = h.cast(bob, 'avatar-bob', 'make note').offers[0]!;
  h.act(bob, 'avatar-bob', 'drop', { fields: { thing: made } });
  given(h)
    .when(take(ann, made))
    .thenMatches(journaledRefusal({ class: 'cardRefused', clause: 'notYours' }));
  given(h)
    .when(take(ann, 'notice-board'))
    .thenMatches(journaledRefusal({ class: 'cardRefused', clause: 'notYours' }));
});

test('drop: only what the avatar carries; it lands where the avatar stands', () => {
  const h = town();
  given(h)
    .when(drop(ann, 'lamp'))
    .thenMatches(journaledRefusal({ class: 'cardRefused', clause: 'here' }));
  h.act(ann, 'avatar-ann', 'take', { fields: { thing: 'lamp' } });
  h.act(ann, 'avatar-ann', 'go', { fields: { room: 'library' } });
  assert.is(h.world.cards.get('lamp')!.place, 'avatar-ann', 'a carried thing goes where its holder goes');
  given(h)
    .when(drop(ann, 'lamp'))
    .thenMatches([{ receipt: { status: 'done' }, writes: [{ id: 'avatar-ann' }, { id: 'lamp', place: 'library' }] }]);
  h.act(ann, 'avatar-ann', 'drop', { fields: { thing: 'lamp' } });
  assert.equal(
    cardsIn(h.world, 'library', ann).map((c) => c.id),
    ['avatar-ann', 'door-library-square', 'lamp'],
  );
  assert.ok(!cardsIn(h.world, 'square', ann).some((c) => c.id === 'lamp'), 'one card, one place');
});

test("give: the receiver holds it and the giver does not; the giver's own thing becomes the receiver's", () => {
  const h = town();
  const note = h.cast(ann, 'avatar-ann', 'make note').offers[0]!;
  assert.is(h.world.cards.get(note)!.place, 'avatar-ann');
  given(h)
    .when(turn(ann, 'avatar-ann', 'give', { fields: { thing: note, to: 'avatar-bob' } }))
    .thenMatches([{ receipt: { status: 'done' }, writes: [{ id: 'avatar-ann' }, { id: note, place: 'avatar-bob', owner: bob }] }]);
  // the lamp gives itself from the hands that hold it; nobody's lamp stays nobody's
  h.act(ann, 'avatar-ann', 'take', { fields: { thing: 'lamp' } });
  given(h)
    .when(turn(ann, 'lamp', 'give', { fields: { to: 'avatar-bob', note: 'for you' } }))
    .thenMatches([
      { receipt: { status: 'done' }, writes: [{ id: 'lamp', place: 'avatar-bob', owner: undefined }], sends: [{ to: 'avatar-bob', method: 'receive' }] },
    ]);
  // to a card out of reach (in another room): refused, and the thing stays in the giver's hands
  given(h)
    .when(turn(ann, 'avatar-ann', 'give', { fields: { thing: note, to: 'bench' } }))
    .thenMatches(journaledRefusal({ class: 'cardRefused', clause: 'noWay' }));
});

test('a send or a field naming a card that does not exist refuses the whole turn, never silently', () => {
  const h = town();
  const relay = h.cast(ann, 'lamp', 'make maker').offers[0]!;
  given(h)
    .when(turn(ann, relay, 'relay', { fields: { to: 'no-such-card', text: 'hello' } }))
    .thenMatches(journaledRefusal({ class: 'unknownObject', object: 'no-such-card' }));
  given(h)
    .when(turn(ann, 'avatar-ann', 'give', { fields: { thing: 'lamp', to: 'no-such-card' } }))
    .thenMatches(journaledRefusal({ class: 'unknownObject' }));
});

test('Principal fields: a bare name is the guest of this town, guest:<host>:<name> and town as they are, anything else badValue', () => {
  const h = town();
  const ledger = h.cast(ann, 'avatar-ann', 'make ledger').offers[0]!;
  assert.is(h.cast(ann, ledger, 'credit who=bob').status, 'done');
  assert.is(h.act(ann, ledger, 'credit', { fields: { who: `guest:${HOST}:cat` } }).status, 'done');
  assert.is(h.act(ann, ledger, 'credit', { fields: { who: 'town' } }).status, 'done');
  assert.equal(
    (h.state(ledger) as { credited: string[] }).credited,
    [`guest:${HOST}:bob`, `guest:${HOST}:cat`, 'town'],
    'state compares principals in one form',
  );
  given(h)
    .when(turn(ann, ledger, 'credit', { fields: { who: 'Not A Guest' } }))
    .thenMatches(journaledRefusal({ class: 'badSpell', clause: 'badValue' }));
  given(h)
    .when(turn(ann, ledger, 'receive', { spell: 'credit who="guest:x"' }))
    .thenMatches(journaledRefusal({ class: 'badSpell', clause: 'badValue' }));
});

test.run();

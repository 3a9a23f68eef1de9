/**
 * A fork that reads through (history.ts): the world as it stood at a pinned height, as the
 * forker may see it, whatever the world did since; what the fork does stays in its layer; the
 * history keeps only what changed since the heights held, and nothing once they are released.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide } from '../../../src/cards/kernel/decide.js';
import type { Card, Entry } from '../../../src/cards/kernel/entry.js';
import { evolve, replay } from '../../../src/cards/kernel/evolve.js';
import { forkBase, forkSourceWorld, WorldHistory } from '../../../src/cards/kernel/history.js';
import { canSee, layered, visibleIds } from '../../../src/cards/kernel/world.js';
import { Harness, ann, bob, plain } from './harness.js';

const diary =
  'type D:\n  text: Text\n\ndef initial() -> D:\n  return D { text: "" }\n\nspell write(self: D, text: Text 1..80) -> D:\n  return self { text: text }\n';

/** The cards `who` may see now, as plain copies (what a copy taken now would hold). */
const seen = (h: Harness, who: string) => new Map([...h.world.cards].filter(([, c]) => canSee(c, who)).map(([id, c]) => [id, structuredClone(c)]));

function townWithHistory(): { h: Harness; history: WorldHistory } {
  const h = Harness.town();
  const history = new WorldHistory(() => h.world);
  h.beforeEvolve = (e) => history.before(e);
  h.arrive(ann);
  h.run({ kind: 'create', principal: ann, intent: 'a', object: 'anns', source: diary, entry: 'initial' });
  h.run({ kind: 'create', principal: bob, intent: 'b', object: 'bobs', source: diary, entry: 'initial' });
  return { h, history };
}

test('a pinned height reads the world as it stood, as the forker may see it, whatever changed since', () => {
  const { h, history } = townWithHistory();
  const before = seen(h, ann);
  const pin = history.pin(h.world.height)!;
  assert.ok(pin);
  assert.is(history.pin(h.world.height - 1), undefined, 'a height neither the head nor held has no history');

  h.act(ann, 'lamp', 'fill', { fields: { measures: 3 } });
  h.act(ann, 'anns', 'write', { fields: { text: 'later' } });
  h.run({ kind: 'create', principal: ann, intent: 'c', object: 'after', source: diary, entry: 'initial' });
  h.arrive(bob);
  assert.ok(history.recorded > 0, 'the changes since the pin are recorded');

  const base = forkBase(pin.world, ann);
  assert.equal(new Set(base.cards.keys()), new Set(before.keys()), 'exactly the cards the forker saw then');
  for (const [id, card] of before) assert.equal(base.cards.get(id), card, id);
  assert.is(base.cards.size, before.size);
  assert.not.ok(base.cards.has('bobs'), 'a card the forker may not see is absent');
  assert.not.ok(base.cards.has('after'), 'a card made since is absent');
  assert.is(base.avatars.get(bob), undefined, 'an avatar made since is absent');
  assert.is(base.avatars.get(ann), 'avatar-ann');
  assert.ok(base.kinds.has('lamp'));
  assert.throws(() => base.cards.set('x', before.get('lamp') as Card), /layer/);
});

test('a fork evolves in its layer: the world never sees it, and it never sees the world', () => {
  const { h, history } = townWithHistory();
  const pin = history.pin(h.world.height)!;
  const o = decide(
    h.world,
    {
      kind: 'fork',
      through: true,
      source: { ...forkBase(pin.world, ann), name: 'town', host: h.world.host, entrance: h.world.entrance, height: pin.height },
      forker: ann,
      name: 'scratch.ann.f.1',
    },
    h.clock,
    h.programs,
  );
  assert.is(o.kind, 'journal');
  const entry = (o as { entries: Entry[] }).entries[0]!;
  assert.equal(entry.from, { world: 'town', height: pin.height, through: true });
  assert.is(entry.made, undefined, 'the entry carries no card');
  assert.is(entry.packages, undefined, 'nor any code');
  assert.is(entry.world!.entrance, 'square');
  assert.ok(JSON.stringify(entry).length < 1000, `${JSON.stringify(entry).length} bytes`);

  const fork = new Harness(h.programs, h.options);
  fork.world = evolve(layered(forkBase(pin.world, ann)), entry);
  assert.is(fork.world.height, 1);
  assert.is(fork.world.opener, ann);
  const lampThen = plain(h.world.cards.get('lamp')!.state);
  h.act(ann, 'lamp', 'fill', { fields: { measures: 5 } });
  assert.equal(plain(fork.world.cards.get('lamp')!.state), lampThen, 'the world moved on; the fork did not');
  fork.act(ann, 'lamp', 'fill', { fields: { measures: 1 } });
  assert.is.not(plain(fork.world.cards.get('lamp')!.state), lampThen);
  assert.equal((plain(h.world.cards.get('lamp')!.state) as { fuel: number }).fuel, (lampThen as { fuel: number }).fuel + 5, 'the fork never changes the world');
  fork.run({ kind: 'create', principal: ann, intent: 'mine', object: 'bobs', source: diary, entry: 'initial' });
  assert.is(fork.world.cards.get('bobs')!.owner, ann, 'an id hidden from the forker is free in the fork');
  assert.is(h.world.cards.get('bobs')!.owner, bob);
  assert.ok(visibleIds(fork.world, ann).includes('lamp'));
});

test('a fork lists its cards in order page by page, as a listing of all of them would', () => {
  const { h, history } = townWithHistory();
  for (let i = 0; i < 30; i++) h.run({ kind: 'create', principal: i % 3 ? ann : bob, intent: `n${i}`, object: `note-${i}`, source: diary, entry: 'initial' });
  const pin = history.pin(h.world.height)!;
  const fork = new Harness(h.programs, h.options);
  const o = decide(
    h.world,
    {
      kind: 'fork',
      through: true,
      source: { ...forkBase(pin.world, ann), name: 'town', host: h.world.host, entrance: h.world.entrance, height: pin.height },
      forker: ann,
      name: 'f',
    },
    h.clock,
    h.programs,
  );
  fork.world = evolve(layered(layered(forkBase(pin.world, ann))), (o as { entries: Entry[] }).entries[0]!);
  for (const id of ['a-first', 'note-1x', 'note-2', 'zz-last'])
    fork.run({ kind: 'create', principal: ann, intent: id, object: id, source: diary, entry: 'initial' });
  h.run({ kind: 'create', principal: ann, intent: 'late', object: 'note-99', source: diary, entry: 'initial' });
  const all = [...fork.world.cards.values()]
    .filter((c) => canSee(c, ann))
    .map((c) => c.id)
    .sort();
  assert.ok(all.includes('note-2') && all.includes('zz-last') && !all.includes('note-99') && !all.includes('note-0'));
  for (const prefix of [undefined, '', 'note-', 'note-1', 'n', 'q']) {
    for (const after of [undefined, '', 'a', 'note-1', 'note-15', 'note-2', 'zz', 'zzz']) {
      for (const limit of [1, 3, 65]) {
        const want = all.filter((id) => (after === undefined || id > after) && (prefix === undefined || id.startsWith(prefix))).slice(0, limit);
        const opts = { ...(after !== undefined ? { after } : {}), ...(prefix !== undefined ? { prefix } : {}), limit };
        assert.equal(visibleIds(fork.world, ann, opts), want, JSON.stringify(opts));
      }
    }
  }
});

test('pins at two heights read each their own; releasing them leaves no history', () => {
  const { h, history } = townWithHistory();
  const first = history.pin(h.world.height)!;
  const thenA = seen(h, ann);
  h.act(ann, 'anns', 'write', { fields: { text: 'one' } });
  h.act(ann, 'lamp', 'fill', { fields: { measures: 1 } });
  const second = history.pin(h.world.height)!;
  const thenB = seen(h, ann);
  const again = history.pin(first.height);
  assert.ok(again, 'a height another fork holds can be held again');
  h.act(ann, 'anns', 'write', { fields: { text: 'two' } });
  h.act(ann, 'lamp', 'fill', { fields: { measures: 2 } });
  h.run({ kind: 'create', principal: ann, intent: 'c', object: 'after', source: diary, entry: 'initial' });
  const check = (pin: typeof first, then: Map<string, Card>) => {
    const base = forkBase(pin.world, ann);
    assert.equal(new Set(base.cards.keys()), new Set(then.keys()));
    for (const [id, card] of then) assert.equal(base.cards.get(id), card, id);
  };
  check(first, thenA);
  check(again!, thenA);
  check(second, thenB);
  first.release();
  check(again!, thenA);
  check(second, thenB);
  again!.release();
  check(second, thenB);
  second.release();
  assert.is(history.recorded, 0, 'nothing is kept once no fork holds a height');
  h.act(ann, 'lamp', 'fill', { fields: { measures: 1 } });
  assert.is(history.recorded, 0, 'nothing is recorded while nothing is held');
});

test('a world replayed only to be forked keeps what a fork reads, exactly, and none of the rest', () => {
  const { h } = townWithHistory();
  h.act(ann, 'lamp', 'fill', { fields: { measures: 2 } });
  h.act(ann, 'anns', 'write', { fields: { text: 'x' } });
  h.arrive(bob);
  const light = replay(h.journal, forkSourceWorld());
  for (const m of ['cards', 'packages', 'kinds', 'avatars'] as const)
    assert.equal(new Map([...(light[m] as Map<string, unknown>)]), new Map([...(h.world[m] as Map<string, unknown>)]), m);
  assert.equal(
    [light.name, light.host, light.entrance, light.height, light.clock],
    [h.world.name, h.world.host, h.world.entrance, h.world.height, h.world.clock],
  );
  assert.is(light.receipts.size + light.intents.size + light.slugs.size + light.seen.size, 0);
});

test.run();

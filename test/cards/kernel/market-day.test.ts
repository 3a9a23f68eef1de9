/**
 * A day at the market, scripted: five guests arrive and open purses; ann makes a note at the
 * workshop's bench, collects the offer and sells it in the square; bob buys it (the note and
 * its price change hands in one turn); cy and dee meet the town's bounty, which needs two of
 * them; eve posts a bounty of her own that bob meets. After every turn the coins add up to what
 * the rules minted (coins.ts) and the world keeps its places; the town answers from the market's
 * news; the journal replays to the same world.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evolve } from '../../../src/cards/kernel/evolve.js';
import type { Receipt } from '../../../src/cards/kernel/outcome.js';
import { blankWorld, offersFor, type World } from '../../../src/cards/kernel/world.js';
import { checkCoins, coinsOf } from './coins.js';
import { Harness, HOST } from './harness.js';

const guest = (name: string) => `guest:${HOST}:${name}`;
const [ann, bob, cy, dee, eve] = ['ann', 'bob', 'cy', 'dee', 'eve'].map(guest) as [string, string, string, string, string];
const snapshot = (w: World) => JSON.stringify(w, (_, v) => (v instanceof Map ? { map: [...v] } : v));

test('five guests trade, meet a bounty that needs two of them and one of their own; every coin is counted after every turn', () => {
  const h = Harness.town({ turnQuota: 1000 });
  let turns = 0;
  const act = (who: string, object: string, method: string, fields: Record<string, unknown> = {}): Receipt => {
    const r = h.act(who, object, method, { fields });
    turns++;
    checkCoins(h.world, `turn ${turns}: ${object}.${method}`);
    return r;
  };
  const done = (who: string, object: string, method: string, fields: Record<string, unknown> = {}) => {
    const r = act(who, object, method, fields);
    assert.is(r.status, 'done', `${who} ${object}.${method}: ${r.class ?? ''} ${r.reason ?? ''}`);
    return r;
  };
  const me = (who: string) => h.world.avatars.get(who)!;
  const placeOf = (id: string) => h.world.cards.get(id)!.place;
  const ownerOf = (id: string) => h.world.cards.get(id)!.owner;

  for (const g of [ann, bob, cy, dee, eve]) h.arrive(g);
  for (const g of [ann, bob, cy, dee, eve])
    assert.is(done(g, 'market', 'purse').line, `${g.slice(g.lastIndexOf(':') + 1)}.${HOST} opens a purse of 10 coins at the market`);
  assert.is(act(ann, 'market', 'purse').class, 'cardRefused', 'one purse per guest');

  // ann makes a note at the workshop (an offer of the spec: cards made for the caller) and sells it
  done(ann, me(ann), 'go', { room: 'workshop' });
  const note = done(ann, 'bench', 'craft', { kind: 'note' }).offers[0]!;
  assert.ok(
    offersFor(h.world, ann).some((o) => o.object === note),
    'the note is offered to ann',
  );
  done(ann, note, 'write', { text: 'A map of the town' });
  assert.is(act(ann, 'market', 'sell', { item: note, price: 4 }).class, 'cardRefused', 'the market is in the square, out of reach');
  done(ann, me(ann), 'go', { room: 'square' });
  done(ann, 'market', 'sell', { item: note, price: 4 });
  assert.is(placeOf(note), 'market');
  // bob takes up the offer: the note and its price change hands in one turn
  done(bob, 'market', 'buy', { item: note, to: me(bob) });
  assert.equal([placeOf(note), ownerOf(note)], [me(bob), bob]);
  assert.equal([coinsOf(h.world, 'market', ann), coinsOf(h.world, 'market', bob)], [14, 6]);
  assert.is(act(cy, 'market', 'buy', { item: note, to: me(cy) }).class, 'absentItem', 'sold once');

  // the town's bounty needs two: cy alone cannot meet it
  done(cy, 'market', 'join', { key: 'lamp-to-market' });
  done(cy, me(cy), 'take', { thing: 'lamp' });
  const alone = act(cy, 'market', 'meet', { key: 'lamp-to-market' });
  assert.equal([alone.class, alone.clause], ['cardRefused', 'crew']);
  done(dee, 'market', 'join', { key: 'lamp-to-market' });
  assert.is(act(eve, 'market', 'join', { key: 'lamp-to-market' }).clause, 'full');
  done(cy, 'market', 'meet', { key: 'lamp-to-market' });
  assert.equal([coinsOf(h.world, 'market', cy), coinsOf(h.world, 'market', dee)], [15, 15], 'the town mints 5 for each of the crew');
  assert.is(placeOf('lamp'), 'market', 'the lamp went in and is for sale, for the town');

  // eve's own bounty, held from her purse: bob hands in the note he bought
  done(eve, 'market', 'post', { key: 'map', text: 'bring me a map', wants: note, reward: 3, crew: 1 });
  assert.is(coinsOf(h.world, 'market', eve), 7);
  done(bob, 'market', 'join', { key: 'map' });
  done(bob, 'market', 'meet', { key: 'map' });
  assert.is(coinsOf(h.world, 'market', bob), 9);
  assert.is(act(ann, 'market', 'buy', { item: note, to: me(ann) }).clause, 'kept', 'kept for eve');
  done(eve, 'market', 'buy', { item: note, to: me(eve) });
  assert.equal([placeOf(note), ownerOf(note)], [me(eve), eve]);

  // the town answers from the market's news once it is delivered
  while (h.world.pending.size) h.deliver();
  const answer = done(ann, 'town', 'receive', { text: 'what is on the market?', post: '' });
  assert.match(JSON.stringify(answer.result ?? ''), 'lamp for 3 coins');
  const bounties = done(ann, 'town', 'receive', { text: 'any bounties?', post: '' });
  assert.match(JSON.stringify(bounties.result ?? ''), 'no open bounties');

  const total = [ann, bob, cy, dee, eve].reduce((t, g) => t + coinsOf(h.world, 'market', g), 0) + coinsOf(h.world, 'market', 'town');
  assert.is(total, 5 * 10 + 2 * 5, 'five purses and the town bounty minted; everything else changed hands');
  const replayed = blankWorld();
  for (const e of JSON.parse(JSON.stringify(h.journal))) evolve(replayed, e);
  assert.is(snapshot(replayed), snapshot(h.world));
});

test.run();

/**
 * Deliveries take the oldest send first (by id `<height>.<n>`) without scanning the queue: the
 * queue's own order is id order, because evolve appends sends in journal order and only removes
 * them. Checked here against a sort of the whole queue, across turns queuing several sends,
 * partial deliveries and a replayed world.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bySendId, blankWorld, pendingSends } from '../../../src/cards/kernel/world.js';
import { evolve } from '../../../src/cards/kernel/evolve.js';
import { Harness, ann, bob } from './harness.js';
import { rng } from './random.js';

test('deliveries consume sends oldest first, in a live world and in a replayed one', () => {
  const h = Harness.town();
  const box = h.cast(ann, 'lamp', 'make mailbox').offers[0]!;
  const relay = h.cast(ann, 'lamp', 'make maker').offers[0]!;
  const r = rng(17);
  let delivered = 0;
  for (let round = 0; round < 30; round++) {
    // a plan of several relays queues several sends in one entry (ids <height>.0, <height>.1, …)
    const gives = 1 + r.int(3);
    const acts = Array.from({ length: gives }, (_, i) => `relay to=${box} text=r${round}g${i}`).join('; ');
    h.act(r.pick([ann, bob]), relay, 'receive', { spell: gives === 1 ? `relay to=${box} text=r${round}` : `plan { ${acts} }` });
    if (r.chance(0.4)) {
      const expected = pendingSends(h.world)
        .slice(0, 3)
        .map((s) => s.id);
      const o = h.deliver(3);
      assert.is(o.kind, 'journal');
      const consumed = (o as { entries: { consumed?: string }[] }).entries.map((e) => e.consumed);
      assert.equal(consumed, expected, `round ${round}`);
      delivered += consumed.length;
    }
  }
  // the queue as iterated is the queue sorted by id, here and after a replay of the journal
  const ids = [...h.world.pending.values()].map((s) => s.id);
  assert.equal(
    ids,
    [...h.world.pending.values()].sort(bySendId).map((s) => s.id),
  );
  const replayed = blankWorld();
  for (const e of h.journal) evolve(replayed, e);
  assert.equal([...replayed.pending.keys()], ids);
  const rest = pendingSends(h.world).map((s) => s.id);
  const o = h.deliver(1000);
  assert.equal(
    (o as { entries: { consumed?: string }[] }).entries.map((e) => e.consumed),
    rest,
  );
  assert.ok(delivered > 5 && rest.length > 5, `${delivered} delivered early, ${rest.length} at the end`);
});

test.run();

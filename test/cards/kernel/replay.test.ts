/**
 * Replay property: random sequences of turns on random library cards (casts by fields, by
 * spell, by typed argument, host spells, plans, tries, stale roots, reused intents, quiets,
 * deliveries, arrivals). Then
 *  - evolving a blank world over the journal (after a JSON round trip through the entry codec,
 *    as a store would hand it back) reproduces the live world byte for byte, and every entry's
 *    content id is that of its canonical body;
 *  - re-deciding each recorded command in order, against the world replayed so far, reproduces
 *    byte-identical outcomes (entries, receipts, refusals, reports).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isRight } from 'fp-ts/lib/Either.js';
import { contentId } from '../../../src/cards/kernel/content-id.js';
import { decide } from '../../../src/cards/kernel/decide.js';
import { answerOf } from '../../../src/cards/kernel/outcome.js';
import { EntryC, type Entry } from '../../../src/cards/kernel/entry.js';
import { evolve } from '../../../src/cards/kernel/evolve.js';
import { blankWorld, type World } from '../../../src/cards/kernel/world.js';
import { play } from './random-play.js';

export function snapshot(w: World): string {
  return JSON.stringify(w, (_, v) => (v instanceof Map ? { map: [...v] } : v));
}

for (const seed of [1, 2, 3]) {
  test(`seed ${seed}: replaying the journal reproduces the world, and re-deciding reproduces every outcome`, () => {
    const h = play(seed, 400);
    const kinds = new Set(h.journal.map((e) => `${e.kind}:${e.receipt.status}`));
    assert.ok(kinds.has('turn:done') && kinds.has('turn:refused') && (kinds.has('delivery:done') || kinds.has('delivery:refused')), [...kinds].join(' '));
    assert.ok(h.decided.some((d) => d.outcome.kind === 'try') && h.decided.some((d) => d.outcome.kind === 'repeat'));
    const classes = new Set(
      h.decided.flatMap((d) => {
        const o = d.outcome;
        if (o.kind === 'journal') return o.entries.map((e) => e.receipt.class ?? 'done');
        return o.kind === 'repeat' || o.kind === 'refused' ? [o.receipt.class ?? 'done'] : [];
      }),
    );
    if (process.env.VERBOSE) console.log(seed, [...classes].sort().join(' '));
    assert.ok(classes.size >= 8, [...classes].join(' '));

    // the journal as a store hands it back: JSON, decoded by the entry codec
    const stored = JSON.parse(JSON.stringify(h.journal)) as unknown[];
    const entries: Entry[] = stored.map((e) => {
      const d = EntryC.decode(e);
      assert.ok(isRight(d), 'every stored entry decodes');
      return (d as { right: Entry }).right;
    });
    for (const e of entries) {
      const { cid, slug, ...body } = e;
      assert.equal(contentId(body), { cid, slug }, `entry ${e.height}: content id of the canonical body`);
    }
    const replayed = blankWorld();
    for (const e of entries) evolve(replayed, e);
    assert.is(snapshot(replayed), snapshot(h.world));

    // re-decide every command in order against the replayed world
    const again = blankWorld();
    for (const d of h.decided) {
      assert.is(again.height, d.height);
      const decided = decide(again, d.command, d.clock, h.programs, h.options);
      // A repeat names its first receipt; the journal holds it (as the world service reads it back).
      const o = answerOf(decided, decided.kind === 'repeat' ? entries[decided.first.height] : undefined);
      assert.is(JSON.stringify(o), JSON.stringify(d.outcome), `command at height ${d.height}: ${JSON.stringify(d.command).slice(0, 200)}`);
      if (o.kind === 'journal') for (const e of o.entries) evolve(again, e);
    }
    assert.is(snapshot(again), snapshot(h.world));
  });
}

test.run();

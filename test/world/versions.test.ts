/**
 * A town started over read models built by another version of their fold rebuilds them from the
 * journal, with the progress bar, before it serves (their digests then equal a fresh rebuild's);
 * read models built by the same version are resumed from their checkpoints, untouched.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cardDocs, cardsModel } from '../../src/projections/cards.js';
import { digestProjection } from '../../src/projections/digest.js';
import { worldKey } from '../../src/projections/entries.js';
import { guestDocs, guestsModel } from '../../src/projections/guests.js';
import { allProjections } from '../../src/projectors/registry.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import { startTestTown } from './support.js';

/** What `work` writes to stderr (where a start draws its progress bar), passed through too. */
async function stderrOf(work: () => Promise<void>): Promise<string> {
  const chunks: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    chunks.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    await work();
  } finally {
    process.stderr.write = write;
  }
  return chunks.join('');
}

test('a start rebuilds read models of another fold version and resumes those of its own', async () => {
  const t = await startTestTown();
  const freshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  try {
    const ann = await t.guest('ann');
    for (let i = 0; i < 12; i++) {
      const r = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `v-${i}`, fields: { measures: i % 3 } });
      assert.is(r.status, 200, r.text);
    }
    const head = (await t.town.events.headPosition())!;
    assert.ok(await t.town.projectors[0]!.waitFor(head, 10_000), 'the projectors caught up');
    const projections = allProjections(t.town.programs);
    const { reads } = t.town;
    assert.is(await reads.version(cardsModel.name), projections.cards.version, 'a new store is stamped with the versions');

    // As an older cards fold would have left it: another version, a field of an old shape, a
    // document it made that the current fold does not. The guests read model is current.
    const lamp = worldKey('town', 'lamp');
    await reads.unit(async (u) => {
      u.setVersion(cardsModel.name, projections.cards.version - 1);
      await cardDocs.in(u).updateOne({ _id: lamp }, { $set: { oldShape: true } });
      await cardDocs.in(u).insertOne({ _id: 'old-only' });
      await guestDocs.in(u).insertOne({ _id: 'guests-marker', principal: 'nobody', hour: 0, count: 0, lastTurn: 0, turns: 0, height: -1 });
    });
    const guestsAt = await reads.checkpoint(guestsModel.name);
    assert.is(guestsAt, head);

    const said = await stderrOf(() => t.restart());
    assert.match(said, `cards (version ${projections.cards.version - 1}, now ${projections.cards.version}): rebuilding them from the journal`);
    assert.match(said, /100% [\d,]+ ev\/s ETA/);
    assert.not.match(said, 'guests (');

    const after = t.town.reads;
    assert.is(await after.version(cardsModel.name), projections.cards.version);
    assert.is((await cardDocs.in(after).findOne({ _id: lamp }))!.oldShape, undefined, 'no document of the old shape is served');
    assert.is(await cardDocs.in(after).findOne({ _id: 'old-only' }), null);
    assert.ok(await guestDocs.in(after).findOne({ _id: 'guests-marker' }), 'the current read model was not rebuilt');
    assert.ok((await after.checkpoint(guestsModel.name))! >= guestsAt!, 'and resumed from its checkpoint');

    // The rebuilt cards equal cards folded from the journal into an empty store.
    const now = (await t.town.events.headPosition())!;
    assert.ok(await t.town.projectors[0]!.waitFor(now, 10_000));
    const fresh = await openEmbeddedReadStore({ dataDir: freshDir });
    try {
      await rebuildProjection(t.town.events, fresh, projections.cards);
      assert.equal(await digestProjection(after, projections.cards), await digestProjection(fresh, projections.cards));
    } finally {
      await fresh.close();
    }
    const card = await t.get('/AGENTS.md/world/lamp/card', ann.token);
    assert.is(card.status, 200, card.text);
  } finally {
    await t.close();
    fs.rmSync(freshDir, { recursive: true, force: true });
  }
});

test.run();

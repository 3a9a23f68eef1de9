/**
 * A store that caps its units (MongoDB's: DEFAULT_MONGO_UNIT_LIMITS) refuses a unit past them
 * with UnitTooLarge; the rebuild and the projector then fold the same events in halves, and keep
 * the smaller size. Folded under a small cap, every read model is what an uncapped store folds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allProjections } from '../../src/projectors/registry.js';
import { Projector } from '../../src/projections/projector.js';
import { foldChunk, rebuildProjections } from '../../src/projections/rebuild.js';
import { loadRepositoryKeys } from '../../src/repository/keys.js';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import { UnitTooLarge, type UnitLimits } from '../../src/stores/read-store.js';
import { fixturePrograms } from '../cards/kernel/fixtures.js';
import { digests, playedTown, storeTown } from './carry-town.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-unit-limits-'));
const all = () => Object.values(allProjections(fixturePrograms().programs, { keys: () => loadRepositoryKeys(dir) }));
/** Room for a few entries a unit, and for the genesis entry alone. */
const small: UnitLimits = { ops: 12, bytes: 192 * 1024 };

test('a rebuild and a projector under a small unit cap fold in halves and make the same read models', async () => {
  const h = playedTown(600, 17);
  const events = await openEmbeddedEventStore({ dataDir: path.join(dir, 'events') });
  const plain = await openEmbeddedReadStore({ dataDir: path.join(dir, 'plain') });
  const capped = await openEmbeddedReadStore({ dataDir: path.join(dir, 'capped'), unitLimits: small });
  const followed = await openEmbeddedReadStore({ dataDir: path.join(dir, 'followed'), unitLimits: small });
  try {
    await storeTown(events, h);
    const uncapped = await rebuildProjections(events, plain, all());
    assert.is(uncapped.splits, 0);
    const want = await digests(plain);

    // One unit of the whole journal is refused; folded in halves (and halves of halves) it fits.
    const journal = [];
    for await (const e of events.readAll()) journal.push(e);
    const sizing = { max: journal.length, splits: 0 };
    await foldChunk(capped, all(), journal, sizing);
    assert.ok(sizing.splits > 0 && sizing.max < journal.length, JSON.stringify(sizing));
    assert.equal(await digests(capped), want, 'folded in halves');
    const rebuilt = await rebuildProjections(events, capped, all());
    assert.ok(rebuilt.splits > 0, `${rebuilt.splits} splits`);
    assert.equal(await digests(capped), want, 'rebuilt under the cap');

    // A projector following the journal, in batches larger than the cap allows.
    const projector = new Projector(events, followed, all(), { batch: 500 });
    await projector.start();
    await projector.whenCaughtUp();
    await projector.stop();
    assert.is(projector.error, undefined, String(projector.error));
    assert.ok(projector.splits > 0, `${projector.splits} splits`);
    assert.equal(await digests(followed), want, 'followed under the cap');

    // A single event too large for a unit is an error, not a loop.
    const tiny = await openEmbeddedReadStore({ dataDir: path.join(dir, 'tiny'), unitLimits: { ops: 1, bytes: 1 << 20 } });
    try {
      const failed = await foldChunk(tiny, all(), journal.slice(0, 4)).then(
        () => undefined,
        (e) => e,
      );
      assert.instance(failed, UnitTooLarge);
    } finally {
      await tiny.close();
    }
  } finally {
    await plain.close();
    await capped.close();
    await followed.close();
    await events.close();
  }
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();

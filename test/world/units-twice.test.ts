/**
 * No fold depends on its unit running once. MongoDB's `withTransaction` runs a unit's work again
 * after a TransientTransactionError (a WriteConflict, a primary stepping down), keeping only the
 * last run's writes; a fold that changed what it keeps in memory during the run thrown away
 * (the cards' known packages, the repository's head) would then write less the second time.
 *
 * The embedded store does the same on request (readUnitsTwice, TOWN_READ_UNITS_TWICE=1): every
 * unit's work runs, is thrown away, and runs again. The genesis town and a seeded random day of
 * turns, a carry, and turns after it are folded through every projection both ways, batch by
 * batch as live projectors fold them, and rebuilt both ways: every digest is the plain fold's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WorldCommand } from '../../src/commands/world-service.js';
import { allProjections } from '../../src/projectors/registry.js';
import { rebuildProjections } from '../../src/projections/rebuild.js';
import { loadRepositoryKeys } from '../../src/repository/keys.js';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import { fixturePrograms } from '../cards/kernel/fixtures.js';
import { digests, follow, openService, playedTown, storeTown } from './carry-town.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-units-twice-'));

const all = () => Object.values(allProjections(fixturePrograms().programs, { keys: () => loadRepositoryKeys(dir) }));

test('every projection folds the same when each unit runs twice (the first run thrown away)', async () => {
  // A day: each step moves the clock on by up to two minutes (a minute on average).
  const h = playedTown(1440, 5);
  let now = h.clock + 60_000;
  const events = await openEmbeddedEventStore({ dataDir: path.join(dir, 'events') });
  const once = await openEmbeddedReadStore({ dataDir: path.join(dir, 'once') });
  const twice = await openEmbeddedReadStore({ dataDir: path.join(dir, 'twice'), readUnitsTwice: true });
  const folds = { once: all(), twice: all() };
  const runs = { once: 0, twice: 0 };
  try {
    await storeTown(events, h);
    let at = await follow(events, once, folds.once, undefined);
    assert.is(await follow(events, twice, folds.twice, undefined), at);
    // The store really runs the work twice, and keeps one run's writes.
    await once.unit(async () => void runs.once++);
    await twice.unit(async () => void runs.twice++);
    assert.equal(runs, { once: 1, twice: 2 });

    const service = await openService(events, h, () => now);
    now += 3_600_000;
    await service.carry(path.join(dir, 'archive'));
    const turns = h.decided.filter((d) => d.command.kind === 'turn').map((d) => d.command as Extract<WorldCommand, { kind: 'turn' }>);
    for (let i = 0; i < 40; i++) {
      await service.submit({ kind: 'arrive', principal: `guest:town.test:late${i}`, name: `late${i}` });
      const t = turns[turns.length - 1 - i]!;
      await service.submit({ ...t, intent: `${t.intent}-after-carry` });
    }
    await service.close();
    const from = at;
    at = await follow(events, once, folds.once, from);
    assert.is(await follow(events, twice, folds.twice, from), at);

    const plain = await digests(once);
    for (const line of plain) {
      const [name, documents] = line.split(' ');
      if (!['pending', 'feed', 'hosted'].includes(name!)) assert.ok(Number(documents) > 0, line);
    }
    assert.equal(await digests(twice), plain, 'folded live, batch by batch');

    // A rebuild (large units, each run twice) into both stores, with the same projection
    // objects folded again (what they remember of the store is forgotten with it).
    await rebuildProjections(events, once, folds.once);
    await rebuildProjections(events, twice, folds.twice);
    assert.equal(await digests(once), plain, 'rebuilt');
    assert.equal(await digests(twice), plain, 'rebuilt, each unit run twice');
  } finally {
    await once.close();
    await twice.close();
    await events.close();
  }
});

test('TOWN_READ_UNITS_TWICE=1 turns it on for every embedded read store opened (how the whole suite can run so)', async () => {
  const before = process.env.TOWN_READ_UNITS_TWICE;
  process.env.TOWN_READ_UNITS_TWICE = '1';
  try {
    const on = await openEmbeddedReadStore({ dataDir: path.join(dir, 'env-on') });
    let runs = 0;
    await on.unit(async () => void runs++);
    await on.close();
    assert.is(runs, 2);
    const off = await openEmbeddedReadStore({ dataDir: path.join(dir, 'env-off'), readUnitsTwice: false });
    assert.is(off.readUnitsTwice, false, 'the option wins over the variable');
    await off.close();
  } finally {
    if (before === undefined) delete process.env.TOWN_READ_UNITS_TWICE;
    else process.env.TOWN_READ_UNITS_TWICE = before;
  }
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();

/**
 * Read models across a carry: a town of a few thousand mixed entries (the kernel tests' random
 * play) folded as the live projectors fold it, batch by batch as it arrives (the old epoch, then
 * the carry entry, then entries after it); then the old epoch's stream is deleted, as an operator
 * may once the archive is kept, and every read model is rebuilt from the new epoch alone. Each
 * digest is the live one's, the repository's signed head included; and so again with a carry
 * too large for one append, in parts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WorldCommand } from '../../src/commands/world-service.js';
import { TOWN_WORLD, worldStream } from '../../src/events/world.js';
import { allProjections } from '../../src/projectors/registry.js';
import { rebuildProjections } from '../../src/projections/rebuild.js';
import { receiptDocs } from '../../src/projections/receipts.js';
import { cardDocs } from '../../src/projections/cards.js';
import { guestDocs } from '../../src/projections/guests.js';
import { loadRepositoryKeys } from '../../src/repository/keys.js';
import { recordDocs } from '../../src/repository/projection.js';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import { fixturePrograms } from '../cards/kernel/fixtures.js';
import { digests, follow, openService, playedTown, storeTown } from './carry-town.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-rebuild-'));

const all = () => Object.values(allProjections(fixturePrograms().programs, { keys: () => loadRepositoryKeys(dir) }));

async function acrossACarry(name: string, maxAppendSize: number, parts: (n: number) => boolean) {
  const h = playedTown(3000, 23);
  let now = h.clock + 60_000;
  const clock = () => now;
  const events = await openEmbeddedEventStore({ dataDir: path.join(dir, name, 'events'), maxAppendSize });
  const live = await openEmbeddedReadStore({ dataDir: path.join(dir, name, 'live') });
  const rebuilt = await openEmbeddedReadStore({ dataDir: path.join(dir, name, 'rebuilt') });
  try {
    await storeTown(events, h);
    const projections = all();
    await rebuildProjections(events, live, projections);
    let at = await events.headPosition();
    const receiptsBefore = await receiptDocs.in(live).count({ world: TOWN_WORLD });
    assert.ok(receiptsBefore > 2000, String(receiptsBefore));

    const service = await openService(events, h, clock);
    now += 3_600_000;
    // turns on both sides of the carry, the live projectors following all along
    const arrive = (i: number): WorldCommand => ({ kind: 'arrive', principal: `guest:town.test:late${i}`, name: `late${i}` });
    for (let i = 0; i < 20; i++) await service.submit(arrive(i));
    at = await follow(events, live, projections, at);
    const done = await service.carry(path.join(dir, name, 'archive'));
    assert.ok(parts(done.parts.length), `${done.parts.length} parts`);
    const turns = h.decided.filter((d) => d.command.kind === 'turn').map((d) => d.command as WorldCommand);
    for (let i = 20; i < 60; i++) await service.submit(arrive(i));
    let journaled = 0;
    for (let i = 0; i < 60; i++) {
      // the same turns again under fresh intents: new writes to carried cards
      const t = turns[turns.length - 1 - i]! as Extract<WorldCommand, { kind: 'turn' }>;
      const d = await service.submit({ ...t, intent: `${t.intent}-after-carry` });
      if (d.outcome.kind === 'journal') journaled++;
    }
    assert.ok(journaled >= 30, `${journaled} turns journaled after the carry`);
    const cards = service.committed.cards.size;
    await service.close();
    await follow(events, live, projections, at);
    const liveDigests = await digests(live);

    // what the carry left in the live read models: the present, no receipt from before it
    assert.is(await receiptDocs.in(live).count({ world: TOWN_WORLD, height: { $lt: done.height } }), 0);
    const after = await receiptDocs.in(live).count({ world: TOWN_WORLD });
    assert.ok(after >= 61, String(after));
    assert.is(await cardDocs.in(live).count({ world: TOWN_WORLD }), cards);
    assert.ok((await guestDocs.in(live).count({})) > 60);
    assert.is(await recordDocs.in(live).count({}), await receiptDocs.in(live).count({ world: TOWN_WORLD }), 'a record per receipt of the epoch');

    // the old epoch gone from the store: the new epoch alone
    await events.deleteStream(worldStream(TOWN_WORLD));
    await rebuildProjections(events, rebuilt, all());
    assert.equal(await digests(rebuilt), liveDigests);
  } finally {
    await live.close();
    await rebuilt.close();
    await events.close();
  }
}

test('the live read models across a carry equal a rebuild from the new epoch alone', () => acrossACarry('whole', 4 << 20, (n) => n === 1));

test('and so across a carry in parts (an append size of 96 KiB)', () => acrossACarry('parts', 96 * 1024, (n) => n >= 3));

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();

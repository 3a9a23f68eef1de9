/**
 * The write side: one entry per turn on `world-town` at the expected height; 50 identical
 * requests racing make one entry and get one receipt; two fronts on one journal catch up and
 * decide again when the other wrote first; the world survives a restart (from its snapshot, or
 * from the journal when the snapshot does not fit it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { defaultOptions } from '../../src/cards/kernel/options.js';
import { WorldService } from '../../src/commands/world-service.js';
import { fileSnapshots } from '../../src/commands/snapshot/world-snapshot.js';
import { decodeWorldEntry, worldStream } from '../../src/events/world.js';
import { startTestTown, testClock } from './support.js';

const journal = suite('journal');

journal('50 identical requests racing under one intent: one entry, one receipt for all', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    await t.get('/AGENTS.md/world/lamp', ann.token);
    await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'warm', fields: { measures: 0 } });
    const before = t.town.world.height;
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'race', fields: { measures: 1 } })),
    );
    for (const r of replies) assert.is(r.status, 200, r.text);
    const slugs = new Set(replies.map((r) => `${r.json.receipt.slug}@${r.json.receipt.height}`));
    assert.is(slugs.size, 1, [...slugs].join(' '));
    assert.ok(replies.every((r) => r.json.status === 'done'));
    assert.is(replies.filter((r) => !r.json.repeated).length, 1, 'one decided it, the others were repeats');
    assert.is(t.town.world.height, before + 1, 'exactly one entry was journaled');
    const stream = await t.town.events.readStream(worldStream('town'), { fromRevision: BigInt(before) });
    assert.is(stream.length, 1);
    assert.is(decodeWorldEntry(stream[0]!).intent?.intent, 'race');
    const lamp = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is(lamp.json.state.fields.find((f: { name: string }) => f.name === 'fuel').value.value, 4, 'filled once');
  } finally {
    await t.close();
  }
});

journal('every entry lies at its height; concurrent turns of many guests all land', async () => {
  const t = await startTestTown();
  try {
    const guests = await Promise.all(['ann', 'bob', 'cy', 'dee'].map((g) => t.guest(g)));
    await Promise.all(
      guests.flatMap((g) =>
        Array.from({ length: 12 }, (_, i) => t.post('/AGENTS.md/world/notice-board/receive', g.token, { intent: `m${i}`, spell: 'make kind=note' })),
      ),
    );
    const all = await t.town.events.readStream(worldStream('town'));
    all.forEach((e, i) => assert.is(decodeWorldEntry(e).height, i));
    const made = all.map(decodeWorldEntry).filter((e) => e.kind === 'turn' && e.receipt.status === 'done');
    assert.is(made.length, 48);
  } finally {
    await t.close();
  }
});

journal('two fronts on one journal: the one that lost the race catches up and decides again', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'first', fields: { measures: 1 } });
    // A second front: its own world service over the same store.
    const other = new WorldService({
      events: t.town.events,
      programs: t.town.programs,
      clock: t.clock,
      options: () => defaultOptions,
      genesis: { host: 'town.test', opener: 'town' },
    });
    await other.open();
    const h = other.height;
    // This front moves on; the other does not know yet.
    await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'second', fields: { measures: 1 } });
    const d = await other.submit({ kind: 'turn', principal: ann.principal, intent: 'third', object: 'lamp', method: 'fill', fields: { measures: 1 } });
    assert.is(d.outcome.kind, 'journal');
    assert.is(other.stats.conflicts, 1, 'its first append lost');
    assert.is(d.outcome.kind === 'journal' && d.outcome.entries[0]!.height, h + 1, 'decided again at the new height');
    // A repeat through the other front returns this front's receipt.
    const rep = await other.submit({ kind: 'turn', principal: ann.principal, intent: 'first', object: 'lamp', method: 'fill', fields: { measures: 1 } });
    assert.is(rep.outcome.kind, 'repeat');
    // This front now loses a race in turn and recovers the same way.
    const mine = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'fourth', fields: { measures: 1 } });
    assert.is(mine.json.status, 'done');
    assert.is(mine.json.receipt.height, h + 2);
    assert.is(t.town.world.stats.conflicts, 1);
    const lamp = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is(lamp.json.state.fields.find((f: { name: string }) => f.name === 'fuel').value.value, 7);
    await other.close();
  } finally {
    await t.close();
  }
});

journal('appends in flight: a failed batch voids the batches behind it, and their commands are decided again', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    const real = t.town.events;
    // A store whose third append fails, and with it every append issued before that failure
    // settles (as the embedded store fails a group and everything queued behind it).
    let calls = 0;
    let failures = 0;
    let broken: Promise<void> | undefined;
    const flaky: typeof real = Object.create(real);
    flaky.append = async (stream, events, expected) => {
      const n = ++calls;
      await new Promise((r) => setTimeout(r, 15));
      if (n === 3) {
        failures++;
        broken = new Promise((r) => setTimeout(r, 30));
        throw new Error('disk says no');
      }
      if (broken) {
        failures++;
        await broken;
        broken = undefined;
        throw new Error('queued behind a failed group');
      }
      return real.append(stream, events, expected);
    };
    const service = new WorldService({
      events: flaky,
      programs: t.town.programs,
      clock: t.clock,
      options: () => defaultOptions,
      genesis: { host: 'town.test', opener: 'town' },
      appendsInFlight: 4,
      world: 'other',
    });
    await service.open();
    const base = service.height;
    const turns = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        service.submit({ kind: 'turn', principal: ann.principal, intent: `p${i}`, object: 'lamp', method: 'fill', fields: { measures: 0 } }),
      ),
    );
    assert.ok(
      turns.every((d) => d.outcome.kind === 'journal' || d.outcome.kind === 'repeat'),
      JSON.stringify(turns.map((d) => d.outcome.kind)),
    );
    const entries = (await real.readStream(worldStream('other'))).map(decodeWorldEntry);
    entries.forEach((e, i) => assert.is(e.height, i));
    const intents = entries.filter((e) => e.intent).map((e) => e.intent!.intent);
    assert.is(new Set(intents).size, intents.length, 'no turn was journaled twice');
    assert.is(intents.length, 40, 'every turn was journaled once');
    assert.is(service.height, base + 40);
    assert.ok(failures >= 2, `a batch failed with another in flight behind it (${failures} failed appends of ${calls})`);
    await service.close();
  } finally {
    await t.close();
  }
});

journal('restart: the world comes back from its snapshot, or from the journal when the snapshot does not fit', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    const firsts = [];
    for (let i = 0; i < 5; i++) firsts.push(await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `f${i}`, fields: { measures: 1 } }));
    const height = t.town.world.height;
    const version = (await t.get('/AGENTS.md/world/lamp', ann.token)).json.version;
    await t.restart();
    assert.is(t.town.world.stats.snapshotLoaded, height, 'the snapshot written at close was loaded');
    assert.is(t.town.world.stats.replayed, 0);
    assert.is(t.town.world.height, height);
    const again = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'f0', fields: { measures: 1 } });
    assert.is(again.json.repeated, true, 'intents survive a restart');
    // The World keeps where the first receipt is; its body comes back from the journal, whole.
    assert.equal([again.json.line, again.json.revealed, again.json.receipt], [firsts[0]!.json.line, firsts[0]!.json.revealed, firsts[0]!.json.receipt]);
    const full = await t.post('/AGENTS.md/world/lamp/fill?full=1', ann.token, { intent: 'f1', fields: { measures: 1 } });
    assert.is(full.json.whole.line, firsts[1]!.json.line);
    assert.is(full.json.receipt.slug, firsts[1]!.json.receipt.slug);
    const lamp = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is(lamp.json.version, version);
    // A snapshot of another journal (here: one entry short, with a wrong last entry) is ignored.
    const snaps = fileSnapshots(t.dir);
    const s = snaps.load('town')!;
    snaps.save('town', { ...s, lastCid: 'bafyreinotthisjournal' });
    await t.restart();
    assert.is(t.town.world.stats.snapshotLoaded, 0);
    assert.is(t.town.world.stats.replayed, height);
    fs.writeFileSync(path.join(t.dir, 'snapshots', 'town.snapshot'), '{"format":"town-world-3","lastCid":"x","plain":{},"maps":["cards"]}\n[[1,');
    await t.restart();
    assert.is(t.town.world.height, height);
  } finally {
    await t.close();
  }
});

journal('a fresh town is founded once: genesis is entry 0', async () => {
  const t = await startTestTown({ clock: testClock() });
  try {
    const first = await t.town.events.readStream(worldStream('town'), { maxCount: 1 });
    const g = decodeWorldEntry(first[0]!);
    assert.is(g.kind, 'genesis');
    assert.is(g.world?.host, 'town.test');
    const p = libraryPrograms();
    assert.ok(p.kindNames().includes('lamp'));
  } finally {
    await t.close();
  }
});

journal.run();

/**
 * A carry on a stored town (the embedded store): the old epoch archived and verifiable, the new
 * epoch begun by its carry entry, and a world service opened on it reads every card as before,
 * keeps the promises of the old epoch (a pre-carry intent repeats as the pointer, another request
 * under it is `duplicateIdentity`), journals on at increasing heights, and carries again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { presentDigest, presentMaps } from '../../src/cards/kernel/carry.js';
import type { Command } from '../../src/cards/kernel/commands.js';
import { carry } from '../../src/commands/carry.js';
import type { WorldCommand } from '../../src/commands/world-service.js';
import { currentEpoch } from '../../src/events/epochs.js';
import { decodeWorldEntry, epochStream, TOWN_WORLD, worldStream } from '../../src/events/world.js';
import { verifyArchive } from '../../src/events/epoch-archive.js';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openService, playedTown, storeTown } from './carry-town.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-'));
const archiveDir = path.join(dir, 'archive');
const h = playedTown();
const H = h.world.height;
let now = h.clock + 60_000;
const clock = () => now;
type Turn = Extract<Command, { kind: 'turn' }>;
const firsts = h.decided.flatMap((d) =>
  d.command.kind === 'turn' && d.outcome.kind === 'journal'
    ? d.outcome.entries.filter((e) => e.intent?.intent === (d.command as Turn).intent).map((entry) => ({ command: d.command as Turn, entry }))
    : [],
);

test('carry a stored town: archived, begun, and read the same by a world service', async () => {
  const events = await openEmbeddedEventStore({ dataDir: dir });
  try {
    await storeTown(events, h);
    const before = await openService(events, h, clock);
    assert.is(before.height, H);
    const digest = presentDigest(before.committed);
    await before.close();

    const done = await carry({ events, world: TOWN_WORLD, archiveDir, clock });
    assert.equal({ epoch: done.epoch, height: done.height, entries: done.entries }, { epoch: 1, height: H, entries: H });
    const trailer = await verifyArchive(path.join(archiveDir, done.archive));
    assert.equal({ height: trailer.height, digest: trailer.digest, sha256: trailer.sha256 }, { height: H, digest, sha256: done.sha256 });
    assert.equal(await currentEpoch(events, TOWN_WORLD), { epoch: 1, start: H, stream: epochStream(TOWN_WORLD, H), revision: 0n });
    const [first] = await events.readStream(epochStream(TOWN_WORLD, H));
    assert.is(decodeWorldEntry(first!).kind, 'carry');
    // the old epoch is left as it was (its archive is the copy to keep; deleting it is the operator's)
    assert.is(await events.streamRevision(worldStream(TOWN_WORLD)), BigInt(H - 1));

    const after = await openService(events, h, clock);
    assert.is(after.stats.replayed, 1, 'the new epoch alone is replayed');
    assert.is(after.height, H + 1);
    for (const name of presentMaps) assert.equal([...after.committed[name]], [...h.world[name]], name);
    assert.is(after.committed.receipts.size, 1);

    // the old epoch's promises
    for (const { command, entry } of firsts.slice(-200)) {
      const repeat = await after.submit(command as WorldCommand);
      assert.is(repeat.outcome.kind, 'repeat');
      const r = (repeat.outcome as { receipt: { cid?: string; carried?: unknown; line: string } }).receipt;
      assert.is(r.cid, entry.cid);
      assert.equal(r.carried, { archive: done.archive, epoch: 0, height: entry.height, cid: entry.cid });
      const other = await after.submit({
        ...command,
        method: command.method === 'douse' ? 'light' : 'douse',
        fields: undefined,
        spell: undefined,
        argument: undefined,
      });
      assert.is(other.outcome.kind === 'refused' && other.outcome.receipt.class, 'duplicateIdentity');
    }
    // new turns journal on, at heights after the carry's
    now += 3_600_000;
    const fresh = await after.submit({ kind: 'arrive', principal: 'guest:town.test:newcomer', name: 'newcomer' });
    assert.is(fresh.outcome.kind, 'journal');
    assert.is((fresh.outcome as { receipt: { height?: number } }).receipt.height, H + 1);
    const height = after.height;
    const cards = [...after.committed.cards];
    await after.close();
    const [second] = await events.readStream(epochStream(TOWN_WORLD, H), { fromRevision: 1n });
    assert.is(decodeWorldEntry(second!).height, H + 1);

    // reopened: the new epoch, replayed (or snapshot-free) to the same height
    const again = await openService(events, h, clock);
    assert.is(again.height, height);
    assert.equal([...again.committed.cards], cards);

    // a second carry: one past covers both epochs
    await again.close();
    const twice = await carry({ events, world: TOWN_WORLD, archiveDir, clock });
    assert.equal({ epoch: twice.epoch, height: twice.height, entries: twice.entries }, { epoch: 2, height, entries: height - H });
    const third = await openService(events, h, clock);
    assert.is(third.height, height + 1);
    const { command, entry } = firsts[0]!;
    const old = await third.submit(command as WorldCommand);
    assert.is(old.outcome.kind === 'repeat' && old.outcome.receipt.carried?.epoch, 0);
    assert.is(old.outcome.kind === 'repeat' && old.outcome.receipt.cid, entry.cid);
    await third.close();
  } finally {
    await events.close();
  }
});

test('nothing to carry: an empty store is refused, nothing written', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-empty-'));
  const events = await openEmbeddedEventStore({ dataDir: empty });
  try {
    await carry({ events, world: TOWN_WORLD, archiveDir: path.join(empty, 'archive'), clock }).then(
      () => assert.unreachable('carried nothing'),
      (e: unknown) => assert.match(String(e), /nothing to carry/),
    );
    assert.is(fs.existsSync(path.join(empty, 'archive')), false);
  } finally {
    await events.close();
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test('a carry under load: every command is decided in one epoch, never both, and none is lost', async () => {
  const busy = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-busy-'));
  const events = await openEmbeddedEventStore({ dataDir: busy, maxAppendSize: 4 << 20 });
  try {
    await storeTown(events, h);
    const service = await openService(events, h, clock);
    now += 3_600_000;
    const arrive = (i: number): WorldCommand => ({ kind: 'arrive', principal: `guest:town.test:load${i}`, name: `load${i}` });
    const early = Array.from({ length: 40 }, (_, i) => service.submit(arrive(i)));
    const carrying = service.carry(path.join(busy, 'archive'));
    const late = Array.from({ length: 40 }, (_, i) => service.submit(i % 4 ? arrive(40 + i) : (firsts[i]!.command as WorldCommand)));
    const done = await carrying;
    const answers = await Promise.all([...early, ...late]);
    const heights = answers.flatMap((a) => (a.outcome.kind === 'journal' ? [(a.outcome.receipt as { height: number }).height] : []));
    assert.is(heights.length, 70, 'every arrival journaled');
    assert.is(new Set(heights).size, heights.length, 'no height twice');
    assert.ok(!heights.includes(done.height), 'none at the carry entry');
    // those asked before the carry are in the old epoch; those after, in the new one
    for (const a of answers.slice(0, 40)) assert.ok((a.outcome as { receipt: { height: number } }).receipt.height < done.height);
    for (const a of answers.slice(40)) {
      if (a.outcome.kind === 'journal') assert.ok(a.outcome.receipt.height! > done.height);
      else assert.is(a.outcome.kind === 'repeat' && a.outcome.receipt.carried?.epoch, 0, 'a pre-carry repeat is the pointer');
    }
    await service.submit(arrive(999));
    const height = service.height;
    const cards = [...service.committed.cards];
    const avatars = [...service.committed.avatars];
    await service.close();
    const again = await openService(events, h, clock);
    assert.is(again.height, height);
    assert.equal([...again.committed.cards], cards);
    assert.equal([...again.committed.avatars], avatars);
    assert.is(again.stats.replayed, height - done.height, 'the new epoch alone (no snapshot kept here)');
    await again.close();
  } finally {
    await events.close();
    fs.rmSync(busy, { recursive: true, force: true });
  }
});

test('a carry waits for no fork: a scratch world reading through to the town refuses it', async () => {
  const held = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-held-'));
  const events = await openEmbeddedEventStore({ dataDir: held, maxAppendSize: 4 << 20 });
  try {
    await storeTown(events, h);
    const service = await openService(events, h, clock);
    const pin = service.pin()!;
    await service.carry(path.join(held, 'archive')).then(
      () => assert.unreachable('carried under a fork'),
      (e: unknown) => assert.match(String(e), /scratch worlds read through/),
    );
    pin.release();
    assert.is((await currentEpoch(events, TOWN_WORLD)).epoch, 0);
    const done = await service.carry(path.join(held, 'archive'));
    assert.is(done.epoch, 1);
    await service.close();
  } finally {
    await events.close();
    fs.rmSync(held, { recursive: true, force: true });
  }
});

test('a carry larger than one append: the carry entry and its continuation entries, each within the size, and a carry stopped between parts completed', async () => {
  const small = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-small-'));
  const events = await openEmbeddedEventStore({ dataDir: small, maxAppendSize: 128 * 1024 });
  try {
    await storeTown(events, h);
    const before = await openService(events, h, clock);
    const digest = presentDigest(before.committed);
    await before.close();
    // stopped after its second part: the old epoch is still the journal, whole
    let parts = 0;
    await carry({
      events,
      world: TOWN_WORLD,
      archiveDir: path.join(small, 'archive'),
      clock,
      onStep: (step) => {
        if (step === 'part' && ++parts === 2) throw new Error('stopped between parts');
      },
    }).then(
      () => assert.unreachable('carried'),
      (e: unknown) => assert.match(String(e), /stopped between parts/),
    );
    assert.is((await currentEpoch(events, TOWN_WORLD)).epoch, 0);
    assert.is(await events.streamRevision(epochStream(TOWN_WORLD, H)), 1n, 'two parts stored');
    const stopped = await openService(events, h, clock);
    assert.is(stopped.height, H, 'the old epoch, whole');
    await stopped.close();
    // carried again later: the stored parts are these, the rest appended
    now += 60_000;
    const done = await carry({ events, world: TOWN_WORLD, archiveDir: path.join(small, 'archive'), clock });
    assert.ok(done.parts.length >= 3, `${done.parts.length} parts`);
    assert.is(done.digest, digest, 'the archive names the present carried');
    const stored = await events.readStream(epochStream(TOWN_WORLD, H));
    assert.equal(
      stored.map((e) => decodeWorldEntry(e).cid),
      done.parts.map((e) => e.cid),
    );
    for (const e of stored) assert.ok(JSON.stringify(e.data).length < 128 * 1024, 'each part within one append');
    assert.equal(
      stored.map((e) => decodeWorldEntry(e).carried?.part),
      done.parts.map((_, i) => i),
    );
    const after = await openService(events, h, clock);
    assert.is(after.height, H + done.parts.length, 'heights go on after the last part');
    for (const name of presentMaps) assert.equal([...after.committed[name]], [...h.world[name]], name);
    assert.is(after.committed.past?.digests.length, H * 32, 'the past whole');
    // the old epoch's promises, from a past laid in over parts
    for (const { command, entry } of firsts.slice(0, 50)) {
      const repeat = await after.submit(command as WorldCommand);
      assert.is(repeat.outcome.kind === 'repeat' && repeat.outcome.receipt.cid, entry.cid);
    }
    const fresh = await after.submit({ kind: 'arrive', principal: 'guest:town.test:parted', name: 'parted' });
    assert.is(fresh.outcome.kind === 'journal' && fresh.outcome.receipt.height, H + done.parts.length);
    await after.close();
  } finally {
    await events.close();
    fs.rmSync(small, { recursive: true, force: true });
  }
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();

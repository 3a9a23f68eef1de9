/**
 * A carry SIGKILLed at every step (after the archive, after the carry entry, between the parts
 * of a carry too large for one append, after the pointer)
 * and at random moments (most of them in the middle of writing the archive) leaves a whole town:
 * a world service opens on either the old epoch (every entry, every card as it was) or the new
 * one (the carried world), and carrying again then completes. The delays of the random kills are
 * printed, so a failure can be replayed with them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { presentDigest, presentMaps } from '../../src/cards/kernel/carry.js';
import { carry } from '../../src/commands/carry.js';
import { currentEpoch } from '../../src/events/epochs.js';
import { epochStream, TOWN_WORLD } from '../../src/events/world.js';
import { verifyArchive } from '../../src/events/epoch-archive.js';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openService, playedTown, storeTown } from '../world/carry-town.js';

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'carry-child.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-kill-'));
const seed = path.join(root, 'seed');
const h = playedTown(2500, 5);
const H = h.world.height;
const digest = presentDigest(h.world);
const clock = () => h.clock + 60_000;

/** Runs the child carry on `dir`; kills it at `step` (once printed) or after `delay` ms. */
function carryKilled(dir: string, at: { step: string } | { delay: number }, maxAppendSize?: number): Promise<string> {
  return new Promise((resolve) => {
    const env = { ...process.env, ...(maxAppendSize ? { CARRY_MAX_APPEND: String(maxAppendSize) } : {}) };
    const p = spawn(process.execPath, [child, dir, 'step' in at ? at.step : 'run'], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '';
    p.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if ('step' in at && out.includes(`${at.step}\n`)) p.kill('SIGKILL');
      if ('delay' in at && out.includes('started\n') && !p.killed) setTimeout(() => p.kill('SIGKILL'), at.delay);
    });
    p.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    p.once('exit', () => resolve(out));
  });
}

/** The town on `dir` opens whole on one epoch or the other; answers the epoch. */
async function assertWhole(dir: string, why: string, maxAppendSize?: number): Promise<number> {
  const events = await openEmbeddedEventStore({ dataDir: dir, ...(maxAppendSize ? { maxAppendSize } : {}) });
  try {
    const { epoch } = await currentEpoch(events, TOWN_WORLD);
    const service = await openService(events, h, clock);
    if (epoch === 0) {
      assert.is(service.height, H, why);
      assert.is(presentDigest(service.committed), digest, why);
    } else {
      const parts = Number(await events.streamRevision(epochStream(TOWN_WORLD, H))) + 1;
      assert.is(service.height, H + parts, why);
      assert.is(service.committed.carrying, undefined, `${why}: every part laid in`);
      for (const name of presentMaps) assert.equal([...service.committed[name]], [...h.world[name]], `${why}: ${name}`);
      assert.is(service.committed.past?.epochs[0]?.to, H, why);
    }
    await service.close();
    // carrying again completes, from whichever epoch it is
    const done = await carry({ events, world: TOWN_WORLD, archiveDir: path.join(dir, 'archive'), clock });
    assert.is(done.epoch, epoch + 1, why);
    await verifyArchive(path.join(dir, 'archive', done.archive));
    assert.not.ok(
      fs.readdirSync(path.join(dir, 'archive')).some((f) => f.endsWith('.tmp')),
      `${why}: no half archive left`,
    );
    const after = await openService(events, h, clock);
    for (const name of ['cards', 'pending', 'offers'] as const)
      assert.equal([...after.committed[name]], [...h.world[name]], `${why}: ${name} after carrying again`);
    await after.close();
    return epoch;
  } finally {
    await events.close();
  }
}

test.before(async () => {
  const events = await openEmbeddedEventStore({ dataDir: seed });
  await storeTown(events, h);
  await events.close();
});

test('killed after each step, the town is whole on one epoch, and carries again', async () => {
  const expected: Record<string, number> = { archived: 0, journaled: 0, pointed: 1 };
  for (const step of Object.keys(expected)) {
    const dir = path.join(root, step);
    fs.cpSync(seed, dir, { recursive: true });
    const out = await carryKilled(dir, { step });
    assert.ok(out.includes(`${step}\n`), out);
    assert.is(await assertWhole(dir, `killed after ${step}`), expected[step]);
  }
});

test('a carry in parts killed between its parts: the old epoch, whole, and carrying again completes', async () => {
  const small = 96 * 1024;
  const dir = path.join(root, 'parts');
  fs.cpSync(seed, dir, { recursive: true });
  const out = await carryKilled(dir, { step: 'part' }, small);
  assert.ok(out.includes('part\n'), out);
  const events = await openEmbeddedEventStore({ dataDir: dir, maxAppendSize: small });
  const stored = await events.streamRevision(epochStream(TOWN_WORLD, H));
  await events.close();
  assert.is(stored, 0n, 'the carry entry alone was stored');
  assert.is(await assertWhole(dir, 'killed between parts', small), 0);
});

test('killed at random moments, the town is whole on one epoch, and carries again', async () => {
  const delays = Array.from({ length: 4 }, () => Math.floor(Math.random() * 400));
  console.log(`carry kill delays (ms): ${delays.join(' ')}`);
  for (const [i, delay] of delays.entries()) {
    const dir = path.join(root, `random-${i}`);
    fs.cpSync(seed, dir, { recursive: true });
    const out = await carryKilled(dir, { delay });
    const reached = out.trim().split('\n').pop();
    if (process.env.VERBOSE) console.log(`killed after ${delay} ms, the last step done: ${reached}`);
    await assertWhole(dir, `killed after ${delay} ms (the last step done: ${reached})`);
  }
});

test.after(() => fs.rmSync(root, { recursive: true, force: true }));
test.run();

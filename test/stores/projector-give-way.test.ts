/**
 * A projector that gives way to a busy journal (ProjectorOptions.giveWay, the repository's):
 * while the journal grows fast it folds nothing, holding at most a unit; once the journal is
 * quiet it folds at once; an event never waits past `maxLagMs` whatever the load; and a stop
 * does not wait for the load to pause.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import type { EventStore, RecordedEvent } from '../../src/stores/event-store.js';
import type { ReadStore, Unit } from '../../src/stores/read-store.js';
import type { Projection } from '../../src/projections/projection.js';
import { Projector } from '../../src/projections/projector.js';

const name = 'giveway';
const folds: number[] = [];

function tally(): Projection {
  const fold = async (events: RecordedEvent[], unit: Unit) => {
    folds.push(events.length);
    const c = unit.collection(`${name}.count`);
    const doc = (await c.findOne({ _id: 'n' })) ?? { _id: 'n', n: 0 };
    await c.replaceOne({ _id: 'n' }, { _id: 'n', n: (doc.n as number) + events.length }, { upsert: true });
  };
  return { name, version: 1, collections: [`${name}.count`], handles: (t) => t === 'counted', apply: (e, u) => fold([e], u), applyBatch: fold };
}

interface Ctx {
  dataDir: string;
  events: EventStore;
  reads: ReadStore;
  /** The two meters: the journal's bytes, the process's CPU. */
  bytes: number;
  cpu: number;
  load: NodeJS.Timeout | undefined;
}
const test = suite<Ctx>('projector giving way');
test.before.each(async (ctx) => {
  ctx.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  ctx.events = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  ctx.reads = await openEmbeddedReadStore({ dataDir: ctx.dataDir });
  ctx.bytes = 0;
  ctx.cpu = 0;
  ctx.load = undefined;
  folds.length = 0;
});
test.after.each(async (ctx) => {
  clearInterval(ctx.load);
  await ctx.reads.close();
  await ctx.events.close();
  fs.rmSync(ctx.dataDir, { recursive: true, force: true });
});

async function append(events: EventStore, n: number) {
  for (let i = 0; i < n; i++) await events.append('tally', [{ id: randomUUID(), type: 'counted', data: {} }], 'any');
}

const counted = async (reads: ReadStore) => ((await reads.collection(`${name}.count`).findOne({ _id: 'n' }))?.n as number | undefined) ?? 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function projector(ctx: Ctx, maxLagMs: number, lookMs = 200) {
  return new Projector(ctx.events, ctx.reads, tally(), {
    batch: 5,
    lingerMs: 20,
    giveWay: {
      meters: [
        { read: () => ctx.bytes, busyPerSecond: 10_000 },
        { read: () => ctx.cpu, busyPerSecond: 1_000 },
      ],
      maxLagMs,
      lookMs,
    },
  });
}

/** The journal grows by 100 KB a second: far over the projector's 10 KB a second. */
const busy = (ctx: Ctx) => {
  ctx.load = setInterval(() => (ctx.bytes += 5_000), 50);
};

test('a quiet journal: folded right after the linger', async (ctx) => {
  const p = projector(ctx, 10_000);
  await p.start();
  const started = Date.now();
  await append(ctx.events, 3);
  while ((await counted(ctx.reads)) < 3) {
    assert.ok(Date.now() - started < 2000, 'folded within the linger and one look at the journal');
    await sleep(10);
  }
  await p.stop();
});

test('a busy journal: nothing folded, a unit held, until the oldest entry is maxLagMs old; then all of it', async (ctx) => {
  busy(ctx);
  const p = projector(ctx, 1500);
  await p.start();
  const started = Date.now();
  await append(ctx.events, 12);
  await sleep(900);
  assert.is(await counted(ctx.reads), 0, 'nothing folded while the journal grows');
  while ((await counted(ctx.reads)) < 12) {
    assert.ok(Date.now() - started < 4000, 'folded once the lag bound passed, though the journal still grows');
    await sleep(20);
  }
  assert.ok(Date.now() - started >= 1400, 'not before the lag bound');
  assert.ok(Math.max(...folds) <= 5, 'never more than a unit at a time');
  await p.stop();
});

test('any meter busy is enough: a read load (CPU) with a quiet journal holds the unit too', async (ctx) => {
  ctx.load = setInterval(() => (ctx.cpu += 500), 50);
  const p = projector(ctx, 10_000);
  await p.start();
  await append(ctx.events, 3);
  await sleep(800);
  assert.is(await counted(ctx.reads), 0, 'nothing folded while the CPU meter runs');
  clearInterval(ctx.load);
  const paused = Date.now();
  while ((await counted(ctx.reads)) < 3) {
    assert.ok(Date.now() - paused < 2000, 'folded within a look or two of the pause');
    await sleep(10);
  }
  await p.stop();
});

test('the load pauses: folded at once, before the lag bound', async (ctx) => {
  busy(ctx);
  const p = projector(ctx, 10_000);
  await p.start();
  await append(ctx.events, 8);
  await sleep(600);
  assert.is(await counted(ctx.reads), 0);
  clearInterval(ctx.load);
  const paused = Date.now();
  while ((await counted(ctx.reads)) < 8) {
    assert.ok(Date.now() - paused < 2000, 'folded within a look or two of the pause');
    await sleep(10);
  }
  await p.stop();
});

test('a stop does not wait for the load to pause, nor for the look in progress: it folds what it holds', async (ctx) => {
  busy(ctx);
  const p = projector(ctx, 60_000, 5_000);
  await p.start();
  await append(ctx.events, 4);
  await sleep(300);
  assert.is(await counted(ctx.reads), 0);
  const stopping = Date.now();
  await p.stop();
  assert.ok(Date.now() - stopping < 500, `stopped in ${Date.now() - stopping} ms`);
  assert.is(await counted(ctx.reads), 4);
});

test.run();

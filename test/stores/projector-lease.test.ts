/**
 * One worker per projection, on the embedded stores (one process owns them, so the two workers
 * run in-process, each with its own lease keeper and projector, as two `npm run projector`
 * processes do against MongoDB): the second waits while the first holds the lease, takes over
 * within the bound (time to live + retry) once the first dies without letting go, and the
 * checkpoint never moves backwards, watched all along. The same test runs against MongoDB
 * when MONGO_URL is set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import { openMongoReadStore } from '../../src/stores/mongo/read-store.js';
import { LeaseLost, type ReadStore, type Unit } from '../../src/stores/read-store.js';
import type { EventStore, RecordedEvent } from '../../src/stores/event-store.js';
import type { Projection } from '../../src/projections/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { LeaseKeeper } from '../../src/projections/lease-keeper.js';

const TTL = 300;
const RETRY = 50;

function tally(name: string): Projection {
  const fold = async (events: RecordedEvent[], unit: Unit) => {
    const c = unit.collection(`${name}.count`);
    const doc = (await c.findOne({ _id: 'n' })) ?? { _id: 'n', n: 0, last: '0' };
    let n = doc.n as number;
    let last = BigInt(doc.last as string);
    for (const e of events) {
      if (e.position <= last) continue; // idempotent
      n++;
      last = e.position;
    }
    await c.replaceOne({ _id: 'n' }, { _id: 'n', n, last: String(last) }, { upsert: true });
  };
  return { name, version: 1, collections: [`${name}.count`], handles: (t) => t === 'counted', apply: (e, u) => fold([e], u), applyBatch: fold };
}

/** A worker as startWorker makes one: the leases first, then the projector fenced with them. */
async function worker(events: EventStore, reads: ReadStore, name: string, holder: string, stop?: Promise<void>) {
  const leases = new LeaseKeeper(reads, [name], { holder, ttlMs: TTL, retryMs: RETRY });
  void stop?.then(() => leases.abandon());
  if (!(await leases.take())) return undefined;
  const projector = new Projector(events, reads, tally(name), { batch: 7, pollMs: 5, leases, onError: () => undefined });
  await projector.start();
  return { projector, leases };
}

async function append(events: EventStore, n: number) {
  for (let i = 0; i < n; i++) await events.append(`tally-${i % 3}`, [{ id: randomUUID(), type: 'counted', data: {} }], 'any');
}

const until = async (ok: () => boolean | Promise<boolean>, what: string, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

function leaseSuite(title: string, open: (dataDir: string) => Promise<ReadStore>) {
  const test = suite<{ dataDir: string; events: EventStore; reads: ReadStore; name: string }>(title);
  test.before.each(async (ctx) => {
    ctx.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
    ctx.events = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
    ctx.reads = await open(ctx.dataDir);
    ctx.name = `t${randomUUID().slice(0, 8)}`;
  });
  test.after.each(async (ctx) => {
    await ctx.reads.drop(ctx.name);
    await ctx.reads.close();
    await ctx.events.close();
    fs.rmSync(ctx.dataDir, { recursive: true, force: true });
  });

  test('a second worker waits; the first dies; the second takes over within the bound; the checkpoint never goes back', async ({ events, reads, name }) => {
    await append(events, 40);
    const first = (await worker(events, reads, name, 'first'))!;
    await first.projector.whenCaughtUp();
    // Watch the checkpoint all along.
    const seen: bigint[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const c = await reads.checkpoint(name);
        if (c !== undefined) seen.push(c);
        await new Promise((r) => setTimeout(r, 3));
      }
    })();
    let secondStarted = 0;
    const second = worker(events, reads, name, 'second').then((w) => {
      secondStarted = Date.now();
      return w;
    });
    await append(events, 30);
    await until(async () => (await reads.checkpoint(name)) === (await events.headPosition()), 'the first folding live');
    await new Promise((r) => setTimeout(r, 3 * TTL));
    assert.is(secondStarted, 0, 'the second waits while the first holds the lease (it renews it)');
    const killedAt = Date.now();
    await first.projector.kill();
    const w2 = (await second)!;
    const tookOver = secondStarted - killedAt;
    assert.ok(tookOver <= TTL + RETRY + 250, `took over ${tookOver} ms after the first died (bound ${TTL + RETRY} ms and slack)`);
    await append(events, 25);
    await until(async () => (await reads.checkpoint(name)) === (await events.headPosition()), 'the second folding');
    watching = false;
    await watcher;
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! >= seen[i - 1]!, `checkpoint went back from ${seen[i - 1]} to ${seen[i]}`);
    const count = await reads.collection(`${name}.count`).findOne({ _id: 'n' });
    assert.is(count?.n, 95, 'every event counted once');
    await w2.projector.stop();
  });

  test('a worker that lost its lease (paused past it) has its unit refused and stops; a stopped worker lets go at once', async ({ events, reads, name }) => {
    await append(events, 10);
    const first = (await worker(events, reads, name, 'first'))!;
    await first.projector.whenCaughtUp();
    // A pause longer than the lease: renewals stop, another takes it.
    first.leases.abandon();
    await new Promise((r) => setTimeout(r, TTL + 50));
    const other = new LeaseKeeper(reads, [name], { holder: 'other', ttlMs: 60_000 });
    assert.ok(await other.take());
    await append(events, 5);
    await until(() => first.projector.error !== undefined, 'the first failing');
    assert.instance(first.projector.error, LeaseLost);
    assert.is(await reads.checkpoint(name), first.projector.checkpoint, 'its late unit wrote nothing');
    await first.projector.stop().catch(() => undefined);
    // Released on stop: a third takes it without waiting for the time to live.
    await other.release();
    const started = Date.now();
    const third = (await worker(events, reads, name, 'third'))!;
    assert.ok(Date.now() - started < TTL, 'released: taken at once');
    await third.projector.whenCaughtUp();
    assert.is(await reads.checkpoint(name), await events.headPosition());
    await third.projector.stop();
  });

  return test;
}

leaseSuite('one worker per projection: embedded', (dataDir) => openEmbeddedReadStore({ dataDir })).run();
const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) {
  const database = `town_lease_${randomUUID().slice(0, 8)}`;
  leaseSuite('one worker per projection: mongo', () => openMongoReadStore({ url: mongoUrl, database })).run();
} else {
  console.log('projector leases: skipped mongo adapter (MONGO_URL not set)');
}

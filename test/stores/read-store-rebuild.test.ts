/**
 * Rebuilds through the embedded read store in several units: the journal is read while the
 * previous unit commits, so the result must not depend on the batch size, and a unit that fails
 * must stop the rebuild with its error.
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
import { rebuildProjection } from '../../src/projections/rebuild.js';

const test = suite<{ dataDir: string; events: EventStore; reads: ReadStore }>('rebuild in several units');
test.before.each(async (ctx) => {
  ctx.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  ctx.events = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  ctx.reads = await openEmbeddedReadStore({ dataDir: ctx.dataDir });
  for (let i = 0; i < 25; i++) {
    await ctx.events.append(`tally-${i % 3}`, [{ id: randomUUID(), type: 'counted', data: { n: i } }], 'any');
  }
});
test.after.each(async (ctx) => {
  await ctx.reads.close();
  await ctx.events.close();
  fs.rmSync(ctx.dataDir, { recursive: true, force: true });
});

/** Per stream: how many events, their sum, and the last position (loaded by _id, then written). */
function tallies(failAt?: number): Projection {
  const fold = async (events: RecordedEvent[], unit: Unit) => {
    const c = unit.collection('tally.streams');
    const ids = [...new Set(events.map((e) => e.stream))];
    const docs = new Map((await c.find({ _id: { $in: ids } })).map((d) => [d._id, d]));
    for (const e of events) {
      const n = (e.data as { n: number }).n;
      if (n === failAt) throw new Error(`refused ${n}`);
      const d = docs.get(e.stream) ?? { _id: e.stream, count: 0, sum: 0, last: '' };
      docs.set(e.stream, { ...d, count: (d.count as number) + 1, sum: (d.sum as number) + n, last: String(e.position) });
    }
    for (const d of docs.values()) await c.replaceOne({ _id: d._id }, d, { upsert: true });
  };
  return {
    name: 'tally',
    version: 1,
    collections: ['tally.streams'],
    indexes: [{ collection: 'tally.streams', spec: { keys: { sum: 1 }, name: 'sum' } }],
    handles: (type) => type === 'counted',
    apply: (event, unit) => fold([event], unit),
    applyBatch: fold,
  };
}

test('the read model and checkpoint do not depend on the batch size', async ({ events, reads }) => {
  const whole = await rebuildProjection(events, reads, tallies(), { batch: 1000 });
  assert.is(whole.events, 25);
  const once = await reads.collection('tally.streams').find({}, { sort: { _id: 1 } });
  const head = await events.headPosition();
  assert.is(await reads.checkpoint('tally'), head);
  let reports = 0;
  const split = await rebuildProjection(events, reads, tallies(), { batch: 4, onProgress: () => reports++ });
  assert.is(split.events, 25);
  assert.is(reports, 7, 'one unit per 4 events');
  assert.equal(await reads.collection('tally.streams').find({}, { sort: { _id: 1 } }), once);
  assert.equal(
    once.map((d) => d.count),
    [9, 8, 8],
  );
  assert.is(await reads.checkpoint('tally'), head);
  // The index was maintained through every unit: a lookup by sum finds each stream.
  for (const d of once)
    assert.equal(
      (await reads.collection('tally.streams').find({ sum: d.sum })).map((x) => x._id),
      [d._id],
    );
});

test('a failing unit stops the rebuild with its error and commits nothing of its batch', async ({ events, reads }) => {
  let error: Error | undefined;
  await rebuildProjection(events, reads, tallies(10), { batch: 4 }).catch((e: Error) => (error = e));
  assert.match(String(error?.message), /refused 10/);
  // Units of events 0–3, 4–7 committed; the one holding event 10 (8–11) did not, nor any after.
  const docs = await reads.collection('tally.streams').find({}, { sort: { _id: 1 } });
  assert.is(
    docs.reduce((n, d) => n + (d.count as number), 0),
    8,
  );
  const all: RecordedEvent[] = [];
  for await (const e of events.readAll()) all.push(e);
  assert.is(await reads.checkpoint('tally'), all[7]!.position);
});

test.run();

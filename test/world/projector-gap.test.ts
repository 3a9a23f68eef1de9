/**
 * The projector's wait between units under load (ProjectorOptions.commitGapMs): while events
 * keep arriving it folds them in fewer, larger units, every one of them still folded and
 * checkpointed; an idle projector folds the next event at once; a reader's wait (read-your-
 * writes) ends the gap at once; stopping does not wait a gap out.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import type { RecordedEvent } from '../../src/stores/event-store.js';
import type { ReadStore, Unit } from '../../src/stores/read-store.js';
import type { Projection } from '../../src/projections/projection.js';
import { Projector } from '../../src/projections/projector.js';

/** Counts the events it folds and the units they came in. */
function counting(): Projection & { units: number } {
  const p = {
    units: 0,
    name: 'gap',
    version: 1,
    collections: ['gap.count'],
    handles: (t: string) => t === 'counted',
    apply: (e: RecordedEvent, u: Unit) => fold([e], u),
    applyBatch: (es: RecordedEvent[], u: Unit) => fold(es, u),
  };
  const fold = async (events: RecordedEvent[], unit: Unit) => {
    p.units++;
    const c = unit.collection('gap.count');
    const doc = (await c.findOne({ _id: 'n' })) ?? { _id: 'n', n: 0 };
    await c.replaceOne({ _id: 'n' }, { _id: 'n', n: (doc.n as number) + events.length }, { upsert: true });
  };
  return p;
}

async function stores() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-gap-'));
  const events = await openEmbeddedEventStore({ dataDir: dir });
  const reads = await openEmbeddedReadStore({ dataDir: dir });
  return {
    events,
    reads,
    close: async () => {
      await reads.close();
      await events.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const append = (events: Awaited<ReturnType<typeof stores>>['events']) => events.append('counter', [{ id: randomUUID(), type: 'counted', data: {} }], 'any');

const count = async (reads: ReadStore) => ((await reads.collection('gap.count').findOne({ _id: 'n' }))?.n as number | undefined) ?? 0;

/** Appends `n` events one after another as fast as the journal takes them; the last position. */
async function stream(events: Awaited<ReturnType<typeof stores>>['events'], n: number): Promise<bigint> {
  let last = 0n;
  for (let i = 0; i < n; i++) last = (await append(events)).position;
  return last;
}

test('under a steady stream, a gap folds every event in fewer units', async () => {
  const runs: { units: number; folded: number }[] = [];
  for (const commitGapMs of [0, 80]) {
    const s = await stores();
    const p = counting();
    const projector = new Projector(s.events, s.reads, p, { commitGapMs });
    await projector.start();
    const last = await stream(s.events, 300);
    assert.ok(await projector.waitFor(last, 10_000), 'every event folded and checkpointed');
    runs.push({ units: p.units, folded: await count(s.reads) });
    assert.is(projector.checkpointOf('gap'), last);
    await projector.stop();
    await s.close();
  }
  assert.is(runs[0]!.folded, 300);
  assert.is(runs[1]!.folded, 300);
  assert.ok(runs[1]!.units < runs[0]!.units, `fewer units with the gap (${runs[1]!.units} against ${runs[0]!.units})`);
});

test('an idle projector folds the next event at once, gap or not', async () => {
  const s = await stores();
  const projector = new Projector(s.events, s.reads, counting(), { commitGapMs: 5_000 });
  await projector.start();
  for (let i = 0; i < 3; i++) {
    const { position } = await append(s.events);
    const started = performance.now();
    assert.ok(await projector.waitFor(position, 2_000));
    assert.ok(performance.now() - started < 1_000, 'no gap waited when nothing was waiting');
  }
  await projector.stop();
  await s.close();
});

test("a reader's wait ends the gap at once", async () => {
  const s = await stores();
  const projector = new Projector(s.events, s.reads, counting(), { commitGapMs: 60_000 });
  await projector.start();
  const last = await stream(s.events, 200);
  const started = performance.now();
  assert.ok(await projector.waitFor(last, 20_000), 'folded');
  assert.ok(performance.now() - started < 15_000, 'the reader did not wait out the gap');
  assert.is(await count(s.reads), 200);
  await projector.stop();
  await s.close();
});

test('stop commits what is buffered without waiting a gap out', async () => {
  const s = await stores();
  const p = counting();
  const projector = new Projector(s.events, s.reads, p, { commitGapMs: 60_000 });
  await projector.start();
  const last = await stream(s.events, 200);
  const started = performance.now();
  await projector.stop();
  assert.ok(performance.now() - started < 10_000, 'stop did not wait a minute');
  // Whatever the subscription had delivered is committed; the rest is folded by the next start.
  const checkpoint = projector.checkpointOf('gap') ?? 0n;
  assert.is(await count(s.reads), Number(checkpoint));
  const again = new Projector(s.events, s.reads, p, { commitGapMs: 0 });
  await again.start();
  assert.ok(await again.waitFor(last, 10_000));
  assert.is(await count(s.reads), 200);
  await again.stop();
  await s.close();
});

test.run();

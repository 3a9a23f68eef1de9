/**
 * A start over read models built by another version of their fold rebuilds them from the
 * journal (src/projections/versions.ts), and one over read models of the same version leaves
 * them as they are, on the embedded read store and (when MONGO_URL is set) on MongoDB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import { openMongoReadStore, type MongoReadStore } from '../../src/stores/mongo/read-store.js';
import type { EventStore, RecordedEvent } from '../../src/stores/event-store.js';
import type { Doc, ReadStore, Unit } from '../../src/stores/read-store.js';
import type { Projection } from '../../src/projections/projection.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import { digestProjection } from '../../src/projections/digest.js';
import { rebuildStale, staleReadModels } from '../../src/projections/versions.js';
import { rejects } from './read-store.contract.js';

interface Ctx {
  dataDir: string;
  events: EventStore;
  reads: ReadStore;
  /** A second, empty read store: where a fresh rebuild is made to compare with. */
  other: ReadStore;
  p: string;
  cleanup(): Promise<void>;
}

/** Per stream: how many events and their sum; version 2 of the fold also keeps the largest. */
function tallies(p: string, version: number): Projection {
  const name = `${p}tally`;
  const collection = `${name}.streams`;
  const fold = async (events: RecordedEvent[], unit: Unit) => {
    const c = unit.collection(collection);
    const ids = [...new Set(events.map((e) => e.stream))];
    const docs = new Map((await c.find({ _id: { $in: ids } })).map((d) => [d._id, d]));
    for (const e of events) {
      const n = (e.data as { n: number }).n;
      const d = docs.get(e.stream) ?? { _id: e.stream, count: 0, sum: 0 };
      const next: Doc = { ...d, count: (d.count as number) + 1, sum: (d.sum as number) + n };
      if (version >= 2) next.max = Math.max((d.max as number | undefined) ?? n, n);
      docs.set(e.stream, next);
    }
    await c.putMany([...docs.values()]);
  };
  return {
    name,
    version,
    collections: [collection],
    indexes: [{ collection, spec: { keys: { sum: 1 }, name: 'sum' } }],
    handles: (type) => type === 'counted',
    apply: (event, unit) => fold([event], unit),
    applyBatch: fold,
  };
}

/** Collects what a rebuild writes for a person to read. */
function capture() {
  const lines: string[] = [];
  return { out: { write: (text: string) => lines.push(text), isTTY: false }, text: () => lines.join('') };
}

async function embeddedReads(): Promise<{ store: ReadStore; cleanup(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  const store = await openEmbeddedReadStore({ dataDir: dir });
  return {
    store,
    async cleanup() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function mongoReads(url: string): Promise<{ store: ReadStore; cleanup(): Promise<void> }> {
  const store: MongoReadStore = await openMongoReadStore({ url, database: `town_versions_${randomUUID().slice(0, 8)}` });
  return {
    store,
    async cleanup() {
      await store.dropDatabase();
      await store.close();
    },
  };
}

function versionsSuite(name: string, open: () => Promise<{ store: ReadStore; cleanup(): Promise<void> }>) {
  const test = suite<Ctx>(`read model versions: ${name}`);
  test.before.each(async (ctx) => {
    ctx.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
    ctx.events = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
    for (let i = 0; i < 30; i++) await ctx.events.append(`tally-${i % 3}`, [{ id: randomUUID(), type: 'counted', data: { n: i } }], 'any');
    const reads = await open();
    const other = await open();
    ctx.reads = reads.store;
    ctx.other = other.store;
    ctx.p = `v${randomUUID().slice(0, 8)}`;
    ctx.cleanup = async () => {
      await reads.cleanup();
      await other.cleanup();
    };
  });
  test.after.each(async (ctx) => {
    await ctx.cleanup();
    await ctx.events.close();
    fs.rmSync(ctx.dataDir, { recursive: true, force: true });
  });

  test('a new read model is stamped with its version, not rebuilt', async ({ events, reads, p }) => {
    const said = capture();
    assert.equal(await rebuildStale(events, reads, [tallies(p, 1)], { out: said.out }), []);
    assert.is(await reads.version(`${p}tally`), 1);
    assert.is(await reads.checkpoint(`${p}tally`), undefined, 'its projector folds it from the start');
    assert.is(said.text(), '', 'nothing to say about a new store');
    assert.equal(await staleReadModels(reads, [tallies(p, 1)]), []);
  });

  test('the same version resumes: nothing dropped, the checkpoint kept', async ({ events, reads, p }) => {
    await rebuildProjection(events, reads, tallies(p, 1));
    const head = await events.headPosition();
    assert.is(await reads.checkpoint(`${p}tally`), head);
    await reads.collection(`${p}tally.streams`).insertOne({ _id: 'marker' });
    const said = capture();
    assert.equal(await rebuildStale(events, reads, [tallies(p, 1)], { out: said.out }), []);
    assert.is(said.text(), '');
    assert.ok(await reads.collection(`${p}tally.streams`).findOne({ _id: 'marker' }), 'not rebuilt');
    assert.is(await reads.checkpoint(`${p}tally`), head);
  });

  test('another version is rebuilt, with the progress bar, equal to a fresh rebuild', async ({ events, reads, other, p }) => {
    await rebuildProjection(events, reads, tallies(p, 1));
    await reads.collection(`${p}tally.streams`).insertOne({ _id: 'marker' });
    const said = capture();
    assert.equal(await rebuildStale(events, reads, [tallies(p, 2)], { out: said.out }), [`${p}tally`]);
    assert.match(said.text(), `${p}tally (version 1, now 2): rebuilding them from the journal`);
    assert.match(said.text(), /\[#+\] 100% [\d,]+ ev\/s ETA/);
    assert.is(await reads.version(`${p}tally`), 2);
    assert.is(await reads.checkpoint(`${p}tally`), await events.headPosition());
    assert.is(await reads.collection(`${p}tally.streams`).findOne({ _id: 'marker' }), null);
    await rebuildProjection(events, other, tallies(p, 2));
    const rebuilt = await digestProjection(reads, tallies(p, 2));
    assert.equal(rebuilt, await digestProjection(other, tallies(p, 2)));
    assert.is(rebuilt.documents, 3);
    assert.ok((await reads.collection(`${p}tally.streams`).findOne({ _id: 'tally-0' }))!.max === 27, 'the new fold wrote its new field');
  });

  test('a read model with a checkpoint and no version (built before versions) is rebuilt', async ({ events, reads, other, p }) => {
    await reads.unit(async (u) => {
      await u.collection(`${p}tally.streams`).insertOne({ _id: 'tally-0', count: 1, sum: 0, old: true });
      u.setCheckpoint(`${p}tally`, 1n);
    });
    assert.is(await reads.version(`${p}tally`), undefined);
    const said = capture();
    assert.equal(await rebuildStale(events, reads, [tallies(p, 1)], { out: said.out }), [`${p}tally`]);
    assert.match(said.text(), `${p}tally (no version recorded, now 1)`);
    await rebuildProjection(events, other, tallies(p, 1));
    assert.equal(await digestProjection(reads, tallies(p, 1)), await digestProjection(other, tallies(p, 1)));
  });

  test('a projector that cannot rebuild refuses a stale read model and changes nothing', async ({ events, reads, p }) => {
    await rebuildProjection(events, reads, tallies(p, 1));
    const error = await rejects(rebuildStale(events, reads, [tallies(p, 2)], { stale: 'refuse' }));
    assert.match(error.message, `${p}tally (version 1, now 2)`);
    assert.is(await reads.version(`${p}tally`), 1);
    assert.is(await reads.collection(`${p}tally.streams`).count({}), 3);
  });

  test('a rebuild that stops part-way resumes from its checkpoint: the version is recorded first', async ({ events, reads, p }) => {
    await rebuildProjection(events, reads, tallies(p, 1));
    let units = 0;
    const failing = tallies(p, 2);
    const fold = failing.applyBatch!;
    failing.applyBatch = async (events, unit) => {
      if (++units === 2) throw new Error('stopped');
      return fold(events, unit);
    };
    await rejects(rebuildProjection(events, reads, failing, { batch: 10 }));
    assert.is(await reads.version(`${p}tally`), 2);
    const all: RecordedEvent[] = [];
    for await (const e of events.readAll()) all.push(e);
    assert.is(await reads.checkpoint(`${p}tally`), all[9]!.position, 'the first unit committed');
    assert.equal(await rebuildStale(events, reads, [tallies(p, 2)]), [], 'the same version now: the projector resumes it');
  });

  return test;
}

versionsSuite('embedded', embeddedReads).run();
const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) versionsSuite('mongo', () => mongoReads(mongoUrl)).run();
else console.log('read model versions: skipped mongo adapter (MONGO_URL not set)');

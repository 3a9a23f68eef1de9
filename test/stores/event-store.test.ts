import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedEventStore, PAGE_SIZE, type EmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openEsdbEventStore } from '../../src/stores/esdb/event-store.js';
import { openEventStore } from '../../src/stores/open-event-store.js';
import { filteredHandlers, StreamDeleted, type EventStore, type RecordedEvent } from '../../src/stores/event-store.js';
import { JournalReader } from '../../src/stores/embedded/journal-reader.js';
import { collect, ev, eventStoreContract, waitFor, type StoreUnderTest } from './event-store.contract.js';

async function embedded(): Promise<StoreUnderTest> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  const sut: StoreUnderTest = {
    store: await openEmbeddedEventStore({ dataDir }),
    async reopen() {
      return openEmbeddedEventStore({ dataDir });
    },
    async cleanup() {
      await sut.store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return sut;
}

eventStoreContract('embedded', embedded).run();

const esdbUrl = process.env.EVENTSTORE_URL;
if (esdbUrl) {
  eventStoreContract('esdb', async () => {
    const sut: StoreUnderTest = {
      store: await openEsdbEventStore({ url: esdbUrl }),
      reopen: () => openEsdbEventStore({ url: esdbUrl }),
      cleanup: () => sut.store.close(),
    };
    return sut;
  }).run();
} else {
  console.log('event store contract: skipped esdb adapter (EVENTSTORE_URL not set)');
}

// What only the embedded store promises (on EventStoreDB the server owns these).
const test = suite<{ dataDir: string; store: EmbeddedEventStore }>('embedded event store');
test.before.each(async (ctx) => {
  ctx.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
});
test.after.each(async (ctx) => {
  await ctx.store.close();
  fs.rmSync(ctx.dataDir, { recursive: true, force: true });
});

test('an empty store has no head and an empty $all', async ({ store }) => {
  assert.is(await store.headPosition(), undefined);
  assert.equal(await collect(store.readAll()), []);
  let caughtAt: bigint | undefined | 'not yet' = 'not yet';
  const sub = store.subscribeToAll(undefined, { onEvent() {}, onCaughtUp: (p) => (caughtAt = p) });
  await waitFor(() => caughtAt !== 'not yet', 'caught up');
  assert.is(caughtAt, undefined);
  await sub.close();
});

test('positions start at 1 and count events', async ({ store }) => {
  const a = await store.append('s-1', [ev('A'), ev('B')], 'noStream');
  const b = await store.append('s-2', [ev('C')], 'noStream');
  assert.is(a.position, 2n);
  assert.is(b.position, 3n);
  assert.equal(
    (await collect(store.readAll())).map((e) => e.position),
    [1n, 2n, 3n],
  );
});

test('the journal and its index live under <dataDir>/events', async ({ store, dataDir }) => {
  await store.append('s-1', [ev('A')], 'noStream');
  assert.ok(fs.statSync(path.join(dataDir, 'events', 'journal')).size > 8);
  assert.ok(fs.existsSync(path.join(dataDir, 'events', 'data.mdb')));
});

test('concurrent appends share commits', async ({ store }) => {
  const before = store.commits;
  await Promise.all(Array.from({ length: 48 }, (_, i) => store.append(`w-${i}`, [ev('E')], 'noStream')));
  assert.ok(store.commits - before <= 2, `48 appends took ${store.commits - before} commits`);
});

test('readAll and catch-up page through a journal larger than a page', async ({ store }) => {
  const total = PAGE_SIZE * 3 + 17;
  for (let done = 0; done < total; done += 100) {
    const n = Math.min(100, total - done);
    await store.append(
      'big',
      Array.from({ length: n }, (_, i) => ev('E', { i: done + i })),
      'any',
    );
  }
  const all = await collect(store.readAll());
  assert.is(all.length, total);
  assert.ok(all.every((e, i) => (e.data as { i: number }).i === i));
  const part = await collect(store.readAll({ after: 100n, maxCount: PAGE_SIZE + 5 }));
  assert.is(part.length, PAGE_SIZE + 5);
  assert.is(part[0]!.position, 101n);
  const seen: RecordedEvent[] = [];
  let caught = false;
  const sub = store.subscribeToAll(undefined, { onEvent: (e) => void seen.push(e), onCaughtUp: () => (caught = true) });
  await waitFor(() => caught, 'caught up');
  assert.is(seen.length, total);
  assert.ok(seen.every((e, i) => e.position === BigInt(i + 1)));
  await sub.close();
});

test('a deleted stream leaves $all, subscriptions and the thread’s reader, and stays deleted across a reopen and an index rebuild', async (ctx) => {
  let store = ctx.store;
  // The deleted stream fills whole pages, so readAll must page past positions it yields nothing of.
  for (let done = 0; done < PAGE_SIZE * 2 + 3; done += 100) {
    await store.append(
      'gone',
      Array.from({ length: Math.min(100, PAGE_SIZE * 2 + 3 - done) }, () => ev('G')),
      'any',
    );
  }
  await store.append(
    'kept',
    Array.from({ length: 10 }, (_, i) => ev('K', { i })),
    'any',
  );
  await store.deleteStream('gone');
  await store.append('kept', [ev('K', { i: 10 })], 'any');
  const kept = (events: RecordedEvent[]) => {
    assert.ok(
      events.every((e) => e.stream === 'kept'),
      events.map((e) => e.stream).join(' '),
    );
    return events.map((e) => (e.data as { i: number }).i);
  };
  const eleven = Array.from({ length: 11 }, (_, i) => i);
  assert.equal(kept(await collect(store.readAll())), eleven);
  assert.equal(kept(await collect(store.readAll({ maxCount: 5 }))), [0, 1, 2, 3, 4]);
  const seen: RecordedEvent[] = [];
  let caught = false;
  const sub = store.subscribeToAll(undefined, { onEvent: (e) => void seen.push(e), onCaughtUp: () => (caught = true) });
  await waitFor(() => caught, 'caught up');
  await sub.close();
  assert.equal(kept(seen), eleven);
  // The projector thread reads the frames itself: told the deleted streams, it passes over them.
  const share = store.share();
  assert.equal(share.deleted(), ['gone']);
  const reader = new JournalReader(share.file, share.deleted());
  assert.equal(kept(reader.read(share.offsetAfter(undefined), share.durable().offset, 10_000).events), eleven);
  reader.close();
  // One that started before the delete learns of it from the tombstone, which it never hands on.
  const early = new JournalReader(share.file);
  const read = early.read(share.offsetAfter(undefined), share.durable().offset, 10_000).events;
  early.close();
  assert.ok(read.every((e) => !e.stream.startsWith('$')));
  assert.equal(kept(read.filter((e) => e.stream !== 'gone')), eleven);

  const stillDeleted = async (s: EmbeddedEventStore) => {
    assert.equal(await s.readStream('gone'), []);
    assert.is(await s.streamRevision('gone'), undefined);
    assert.instance(await s.append('gone', [ev('G')], 'any').catch((e: unknown) => e), StreamDeleted);
    assert.equal(kept(await collect(s.readAll())), eleven);
  };
  await store.close();
  store = ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  await stillDeleted(store);
  // The index is derived from the journal: thrown away, it is made again, tombstones included.
  await store.close();
  for (const f of ['data.mdb', 'lock.mdb', 'index-state.json']) fs.rmSync(path.join(ctx.dataDir, 'events', f), { force: true });
  store = ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  await stillDeleted(store);
});

test('a throwing handler ends its subscription with onError, others go on', async ({ store }) => {
  let failed: Error | undefined;
  const good: RecordedEvent[] = [];
  const bad = store.subscribeToAll(undefined, {
    onEvent() {
      throw new Error('handler broke');
    },
    onError: (e) => (failed = e),
  });
  const ok = store.subscribeToAll(undefined, { onEvent: (e) => void good.push(e) });
  await store.append('s', [ev('A')], 'any');
  await store.append('s', [ev('B')], 'any');
  await waitFor(() => failed !== undefined && good.length === 2, 'error and delivery');
  assert.is(failed!.message, 'handler broke');
  await bad.close();
  await ok.close();
});

test('closing the store stops subscriptions and refuses further calls', async ({ store, dataDir }) => {
  const sub = store.subscribeToAll(undefined, { onEvent() {} });
  await store.close();
  await sub.close();
  await assert.not.throws(() => store.close());
  let threw = false;
  try {
    await store.append('s', [ev('A')], 'any');
  } catch {
    threw = true;
  }
  assert.ok(threw);
  const again = await openEmbeddedEventStore({ dataDir });
  assert.is(await again.headPosition(), undefined);
  await again.close();
});

test.run();

const factory = suite('openEventStore');
factory('without a url it opens the embedded store under dataDir', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  const store: EventStore = await openEventStore({ dataDir });
  await store.append('s', [ev('A')], 'noStream');
  assert.ok(fs.existsSync(path.join(dataDir, 'events')));
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
factory('a url that is not esdb:// is refused', async () => {
  let threw: unknown;
  try {
    await openEventStore({ url: 'http://localhost:2113', dataDir: os.tmpdir() });
  } catch (error) {
    threw = error;
  }
  assert.instance(threw, Error);
});
factory.run();

// Adapters that cannot filter on the server (EventStoreDB here) filter what they hear with this.
const filtering = suite('filteredHandlers');

filtering('wanted streams are delivered; the others are reported passed, in order', async () => {
  const delivered: string[] = [];
  const passed: bigint[] = [];
  const recorded = (stream: string, position: bigint): RecordedEvent => ({
    id: `${position}`,
    stream,
    type: 'E',
    revision: 0n,
    position,
    data: {},
    created: 0,
  });
  const h = filteredHandlers({ onEvent: (e) => void delivered.push(e.stream), onPassed: (p) => passed.push(p) }, { streamPrefixes: ['world-', 'invitation-'] });
  for (const [stream, position] of [
    ['world-town', 1n],
    ['credential-a', 2n],
    ['invitation-x', 3n],
    ['session-b', 4n],
    ['session-c', 5n],
  ] as const)
    await h.onEvent(recorded(stream, position));
  assert.equal(delivered, ['world-town', 'invitation-x']);
  assert.equal(passed, [2n, 4n, 5n]);
  const all = { onEvent() {} };
  assert.is(filteredHandlers(all, undefined), all, 'no filter: the handlers as they are');
});
filtering.run();

// The embedded store passes over the frames this session wrote by the stream it kept for each
// (embedded/recent-frames.ts); frames of earlier sessions are read as before.
const recentFrames = suite('embedded scans over kept frames');

recentFrames('a filtered read crosses from frames of an earlier session into this one’s, in order, skipping deleted streams', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  let store = await openEmbeddedEventStore({ dataDir });
  try {
    const wanted = (i: number) => `want-${i % 3}`;
    for (let i = 0; i < 40; i++) await store.append(i % 4 === 0 ? wanted(i) : `other-${i}`, [ev('E', { i })], 'any');
    await store.close();
    store = await openEmbeddedEventStore({ dataDir });
    for (let i = 40; i < 80; i++) await store.append(i % 4 === 0 ? wanted(i) : `other-${i}`, [ev('E', { i }), ev('F', { i })], 'any');
    await store.deleteStream(wanted(44));
    await store.append('other-last', [ev('E', { i: 80 })], 'any');
    const expect = (after: number) => {
      const out: number[] = [];
      for (let i = 0; i < 80; i++) if (i % 4 === 0 && wanted(i) !== wanted(44)) out.push(i);
      return out.filter((i) => i >= after);
    };
    const seen: { i: number; position: bigint }[] = [];
    const caught: (bigint | undefined)[] = [];
    const sub = store.subscribeToAll(
      undefined,
      { onEvent: (e) => void seen.push({ i: (e.data as { i: number }).i, position: e.position }), onCaughtUp: (p) => void caught.push(p) },
      { streamPrefixes: ['want-'] },
    );
    await waitFor(() => caught.length > 0, 'catch-up');
    await sub.close();
    const firsts = seen.filter((s, k) => k === 0 || seen[k - 1]!.i !== s.i).map((s) => s.i);
    assert.equal(firsts, expect(0), 'the wanted streams, old frames and new, none of the deleted one');
    for (let k = 1; k < seen.length; k++) assert.ok(seen[k - 1]!.position < seen[k]!.position, 'in position order');
    // Unfiltered reads of the same span agree with the kept offsets.
    const all = await collect(store.readAll({ after: 0n }));
    const read = all.filter((e) => e.stream.startsWith('want-')).map((e) => e.position);
    assert.equal(
      seen.map((s) => s.position),
      read,
    );
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

recentFrames.run();

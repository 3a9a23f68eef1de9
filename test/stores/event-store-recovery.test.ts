/**
 * The embedded store's journal and index after things went wrong: torn or corrupt journal tails
 * (what a power cut leaves of unacknowledged writes), a lost, stale or untrusted index, a disk
 * that refuses a write, and the upgrade from the first, LMDB-only layout.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedEventStore, PAGE_SIZE, type EmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { CHECKPOINT, CHUNK } from '../../src/stores/embedded/journal-index.js';
import { encodeAppend } from '../../src/stores/embedded/frames.js';
import { fileIo, JournalCorrupt, listFrames, type JournalIo } from '../../src/stores/embedded/journal.js';
import { WrongExpectedVersion, type RecordedEvent } from '../../src/stores/event-store.js';
import { fileURLToPath } from 'node:url';
import { collect, ev } from './event-store.contract.js';

const test = suite<{ dataDir: string; store: EmbeddedEventStore | undefined }>('embedded store recovery');
test.before.each((ctx) => {
  ctx.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  ctx.store = undefined;
});
test.after.each(async (ctx) => {
  await ctx.store?.close();
  fs.rmSync(ctx.dataDir, { recursive: true, force: true });
});

const journalOf = (dataDir: string) => path.join(dataDir, 'events', 'journal');

/** Appends `n` one-event appends round-robin over three streams, then closes the store. */
async function fill(dataDir: string, n: number): Promise<void> {
  const store = await openEmbeddedEventStore({ dataDir });
  for (let i = 0; i < n; i++) await store.append(`s-${i % 3}`, [ev('E', { i })], 'any');
  await store.close();
}

/**
 * Writes frames for an append straight into the journal, as a store that crashed before
 * acknowledging it would have left them: the index never heard of them.
 */
function writeUnacknowledged(dataDir: string, position: number, revision: number, stream: string, is: number[]): void {
  const events = is.map((i) => ({ ...ev('Unacked'), json: JSON.stringify({ i }), metadata: undefined, metadataJson: undefined }));
  fs.appendFileSync(journalOf(dataDir), encodeAppend(position, revision, stream, events, Date.now()).bytes);
}

function summary(events: RecordedEvent[]): Array<[string, number, number]> {
  return events.map((e) => [e.stream, Number(e.revision), (e.data as { i: number }).i]);
}

/** After a cut: the journal reads whole, revisions follow on, and a new append lands right after. */
async function assertWholeAndGoesOn(store: EmbeddedEventStore, expectedCount: number): Promise<void> {
  const all = await collect(store.readAll());
  assert.is(all.length, expectedCount);
  assert.ok(
    all.every((e, i) => e.position === BigInt(i + 1)),
    'positions 1..n without holes',
  );
  const r = await store.append('s-0', [ev('After', { i: -1 })], 'any');
  assert.is(r.position, BigInt(expectedCount + 1));
}

test('garbage after the last frame is cut off, nothing acknowledged is lost, the bytes are kept aside', async (ctx) => {
  await fill(ctx.dataDir, 10);
  fs.appendFileSync(journalOf(ctx.dataDir), Buffer.from([0x17, 0, 0, 0, 0xde, 0xad, 0xbe]));
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.is(ctx.store.truncatedOnOpen, 7);
  await assertWholeAndGoesOn(ctx.store, 10);
  assert.is(fs.readdirSync(path.join(ctx.dataDir, 'events')).filter((f) => f.startsWith('journal.torn-')).length, 1);
  await ctx.store.close();
  // The cut is final: the new append is followed by nothing stale on the next open.
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.is(ctx.store.truncatedOnOpen, 0);
  assert.is(await ctx.store.headPosition(), 11n);
});

test('unacknowledged appends whole on disk are kept; one cut short is dropped', async (ctx) => {
  await fill(ctx.dataDir, 10);
  // A crash after the write of a group, before its acknowledgement: positions 11 and 12 arrived,
  // 13 was torn three bytes short of its end.
  writeUnacknowledged(ctx.dataDir, 11, 3, 's-1', [100]);
  writeUnacknowledged(ctx.dataDir, 12, 3, 's-2', [101]);
  writeUnacknowledged(ctx.dataDir, 13, 4, 's-0', [102]);
  const file = journalOf(ctx.dataDir);
  fs.truncateSync(file, fs.statSync(file).size - 3);
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.is(await ctx.store.headPosition(), 12n);
  assert.equal(summary(await ctx.store.readStream('s-1', { fromRevision: 2n })), [
    ['s-1', 2, 7],
    ['s-1', 3, 100],
  ]);
  assert.is(await ctx.store.streamRevision('s-0'), 3n);
  await assertWholeAndGoesOn(ctx.store, 12);
  assert.is(await ctx.store.streamRevision('s-0'), 4n);
});

test('a multi-event append torn between its frames disappears whole', async (ctx) => {
  const store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  await store.append('whole', [ev('A', { i: 0 })], 'noStream');
  await store.close();
  writeUnacknowledged(ctx.dataDir, 2, 1, 'whole', [1, 2, 3, 4]);
  const frames = listFrames(journalOf(ctx.dataDir));
  assert.equal(
    frames.map((f) => f.more),
    [0, 3, 2, 1, 0],
  );
  // Keep the first two frames of the second append and half of its third.
  fs.truncateSync(journalOf(ctx.dataDir), frames[3]!.offset + 10);
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.equal(summary(await ctx.store.readStream('whole')), [['whole', 0, 0]]);
  assert.is(await ctx.store.headPosition(), 1n);
  const r = await ctx.store.append('whole', [ev('C', { i: 9 })], 0n);
  assert.is(r.position, 2n);
});

test('acknowledged events cut off the journal are never cut silently: open refuses', async (ctx) => {
  await fill(ctx.dataDir, 10);
  const file = journalOf(ctx.dataDir);
  const size = fs.statSync(file).size;
  fs.truncateSync(file, size - 3);
  let threw: unknown;
  try {
    ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  } catch (error) {
    threw = error;
  }
  assert.instance(threw, JournalCorrupt);
  assert.match(String(threw), /events 10 to 10 were acknowledged/);
  assert.is(fs.statSync(file).size, size - 3);
  // Still refused the second time: the first attempt did not talk the index out of it.
  threw = undefined;
  try {
    ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  } catch (error) {
    threw = error;
  }
  assert.instance(threw, JournalCorrupt);
  // Accepting the loss, as the message says: without the index the torn frame is cut.
  for (const f of ['data.mdb', 'index-state.json']) fs.rmSync(path.join(ctx.dataDir, 'events', f));
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.is(await ctx.store.headPosition(), 9n);
});

test('a last frame whose checksum does not match is dropped', async (ctx) => {
  await fill(ctx.dataDir, 4);
  writeUnacknowledged(ctx.dataDir, 5, 1, 's-1', [4]);
  const file = journalOf(ctx.dataDir);
  const last = listFrames(file).at(-1)!;
  const fd = fs.openSync(file, 'r+');
  const byte = Buffer.alloc(1);
  fs.readSync(fd, byte, 0, 1, last.end - 2);
  byte[0] = byte[0]! ^ 0x20;
  fs.writeSync(fd, byte, 0, 1, last.end - 2);
  fs.closeSync(fd);
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  await assertWholeAndGoesOn(ctx.store, 4);
});

test('corruption inside the acknowledged journal is reported on read, never returned as events', async (ctx) => {
  // Past the first checkpoint, so that opening does not scan the damaged frame.
  await fill(ctx.dataDir, CHECKPOINT + 8);
  const file = journalOf(ctx.dataDir);
  const third = listFrames(file)[2]!;
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.from('~'), 0, 1, third.offset + 20);
  fs.closeSync(fd);
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  let threw: unknown;
  try {
    await collect(ctx.store.readAll());
  } catch (error) {
    threw = error;
  }
  assert.instance(threw, JournalCorrupt);
  // Other events still read.
  assert.is((await ctx.store.readStream('s-0')).length, Math.ceil((CHECKPOINT + 8) / 3));
  assert.is((await collect(ctx.store.readAll({ after: 3n }))).length, CHECKPOINT + 5);
});

test('an index thrown away after a power cut still knows how far the journal was acknowledged', async (ctx) => {
  await fill(ctx.dataDir, 10);
  const file = journalOf(ctx.dataDir);
  fs.truncateSync(file, fs.statSync(file).size - 3);
  // As a power cut leaves it: in use on another boot, so LMDB is not trusted and is rebuilt.
  const state = path.join(ctx.dataDir, 'events', 'index-state.json');
  fs.writeFileSync(state, JSON.stringify({ ...JSON.parse(fs.readFileSync(state, 'utf8')), boot: 'before-the-cut', clean: false }));
  let threw: unknown;
  try {
    ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  } catch (error) {
    threw = error;
  }
  assert.instance(threw, JournalCorrupt);
});

test('corruption that opening scans over is refused, not cut off', async (ctx) => {
  await fill(ctx.dataDir, 10);
  const file = journalOf(ctx.dataDir);
  const size = fs.statSync(file).size;
  const third = listFrames(file)[2]!;
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.from('~'), 0, 1, third.offset + 20);
  fs.closeSync(fd);
  let threw: unknown;
  try {
    ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  } catch (error) {
    threw = error;
  }
  assert.instance(threw, JournalCorrupt);
  assert.is(fs.statSync(file).size, size);
  threw = undefined;
  try {
    ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  } catch (error) {
    threw = error;
  }
  assert.instance(threw, JournalCorrupt, 'refused again on the next try');
});

test('a deleted index is rebuilt from the journal', async (ctx) => {
  await fill(ctx.dataDir, 100);
  // Names that the quick read of a frame's start cannot take as they are.
  const odd = ['quote"d', 'back\\slash', 'ünï✓code', 'x\u0001y'];
  const before = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  for (const name of odd) await before.append(name, [ev('Odd', { i: -1 }), ev('Odd', { i: -2 })], 'noStream');
  await before.close();
  for (const f of ['data.mdb', 'lock.mdb']) fs.rmSync(path.join(ctx.dataDir, 'events', f));
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.is(await ctx.store.headPosition(), BigInt(100 + 2 * odd.length));
  for (const name of odd)
    assert.equal(summary(await ctx.store.readStream(name)), [
      [name, 0, -1],
      [name, 1, -2],
    ]);
  assert.is(await ctx.store.streamRevision('s-1'), 32n);
  assert.equal(summary(await ctx.store.readStream('s-2', { direction: 'backwards', maxCount: 2 })), [
    ['s-2', 32, 98],
    ['s-2', 31, 95],
  ]);
  await assertWholeAndGoesOn(ctx.store, 100 + 2 * odd.length);
});

test('frames larger than a read chunk, one right after another, are all found again on open', async (ctx) => {
  await fill(ctx.dataDir, 10);
  const store = await openEmbeddedEventStore({ dataDir: ctx.dataDir, maxAppendSize: 4 << 20 });
  // the second starts where the read of the first ends: its length is known only once its header is read
  for (const n of [900_000, 800_000, 700_000]) await store.append('big', [ev('Big', { text: 'x'.repeat(n) })], 'any');
  await store.close();
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir, maxAppendSize: 4 << 20 });
  assert.is(await ctx.store.headPosition(), 13n);
  const big = await ctx.store.readStream('big');
  assert.equal(
    big.map((e) => (e.data as { text: string }).text.length),
    [900_000, 800_000, 700_000],
  );
});

/** Points `['s-0', 0]` at the frame of position 2 (an event of s-1) behind the store's back. */
async function plantWrongEntry(dataDir: string): Promise<void> {
  const second = listFrames(journalOf(dataDir))[1]!;
  const env = open({ path: path.join(dataDir, 'events'), maxDbs: 4, noSync: true });
  const chunks = env.openDB<number[], [string, number]>({ name: 'stream-chunks' });
  const chunk = chunks.get(['s-0', 0])!;
  chunk[0] = second.offset;
  await chunks.put(['s-0', 0], chunk);
  await new Promise<void>((resolve) => (env as unknown as { sync(cb: () => void): void }).sync(resolve));
  await env.close();
}

test('an index last used on another boot and not closed cleanly is thrown away', async (ctx) => {
  // Past the first checkpoint, so that opening does not re-index (and repair) position 1.
  await fill(ctx.dataDir, CHECKPOINT + 6);
  await plantWrongEntry(ctx.dataDir);
  const state = path.join(ctx.dataDir, 'events', 'index-state.json');
  // Control: a clean index is trusted as it is, planted entry included.
  fs.writeFileSync(state, JSON.stringify({ boot: 'another-boot', clean: true }));
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.is((await ctx.store.readStream('s-0'))[0]!.stream, 's-1');
  await ctx.store.close();
  await plantWrongEntry(ctx.dataDir);
  fs.writeFileSync(state, JSON.stringify({ boot: 'another-boot', clean: false }));
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.equal(summary(await ctx.store.readStream('s-0', { maxCount: 2 })), [
    ['s-0', 0, 0],
    ['s-0', 1, 3],
  ]);
});

test('an index that lags the journal (a crash before its commit) is caught up from its newest checkpoint', async (ctx) => {
  const total = 5 * CHECKPOINT + 7;
  await fill(ctx.dataDir, total);
  const keep = 2 * CHECKPOINT + 5;
  // Take away what a crash could have kept the index from committing: everything after `keep`.
  const env = open({ path: path.join(ctx.dataDir, 'events'), maxDbs: 4, noSync: true });
  const offsets = env.openDB<number, number>({ name: 'offsets' });
  const chunks = env.openDB<number[], [string, number]>({ name: 'stream-chunks' });
  const lostCheckpoints = [...offsets.getKeys({ start: keep + 1 })];
  // Stream s-k holds i = 3 * revision + k, at position i + 1: keep each chunk's part up to `keep`.
  const position = (stream: string, revision: number) => 3 * revision + Number(stream.slice(2)) + 1;
  const cut = [...chunks.getRange({})].map(({ key, value }) => ({
    key,
    lost: value.length,
    kept: value.filter((_, j) => position(key[0], key[1] * CHUNK + j) <= keep),
  }));
  assert.ok(lostCheckpoints.length >= 2);
  assert.is(
    cut.reduce((n, c) => n + c.lost - c.kept.length, 0),
    total - keep,
  );
  await env.transaction(() => {
    for (const key of lostCheckpoints) offsets.remove(key);
    for (const { key, kept } of cut) {
      if (kept.length) chunks.put(key, kept);
      else chunks.remove(key);
    }
  });
  await env.close();
  fs.writeFileSync(
    path.join(ctx.dataDir, 'events', 'index-state.json'),
    JSON.stringify({ boot: fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), clean: false }),
  );
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.is(await ctx.store.streamRevision('s-2'), BigInt(Math.floor((total - 3) / 3)));
  const all = await collect(ctx.store.readAll());
  assert.equal(
    all.map((e) => (e.data as { i: number }).i),
    Array.from({ length: total }, (_, i) => i),
  );
  const s1 = await ctx.store.readStream('s-1');
  assert.equal(
    s1.map((e) => Number(e.revision)),
    s1.map((_, i) => i),
  );
  await assertWholeAndGoesOn(ctx.store, total);
});

test('readAll from every position of a reopened journal pages through checkpoints correctly', async (ctx) => {
  const total = 3 * CHECKPOINT + 5;
  await fill(ctx.dataDir, total);
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  const all = summary(await collect(ctx.store.readAll()));
  for (let after = 0; after <= total; after++) {
    const part = summary(await collect(ctx.store.readAll({ after: BigInt(after), maxCount: 3 })));
    assert.equal(part, all.slice(after, after + 3), `after ${after}`);
  }
  // A page bigger than the journal, and subscriptions, through the same path.
  assert.is((await collect(ctx.store.readAll({ after: 1n, maxCount: PAGE_SIZE * 2 }))).length, total - 1);
});

test('reads combine what the index has committed with what only memory holds yet', async (ctx) => {
  await fill(ctx.dataDir, 30);
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  for (let i = 30; i < 36; i++) await ctx.store.append(`s-${i % 3}`, [ev('E', { i })], 'any');
  const is = (events: RecordedEvent[]) => events.map((e) => (e.data as { i: number }).i);
  assert.equal(is(await ctx.store.readStream('s-0')), [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33]);
  assert.equal(is(await ctx.store.readStream('s-0', { fromRevision: 8n, maxCount: 3 })), [24, 27, 30]);
  assert.equal(is(await ctx.store.readStream('s-0', { direction: 'backwards', maxCount: 4 })), [33, 30, 27, 24]);
  assert.equal(is(await ctx.store.readStream('s-0', { direction: 'backwards', fromRevision: 10n, maxCount: 2 })), [30, 27]);
  assert.equal(is(await ctx.store.readStream('s-0', { direction: 'backwards', fromRevision: 1n })), [3, 0]);
  assert.equal(is(await collect(ctx.store.readAll({ after: 28n }))), [28, 29, 30, 31, 32, 33, 34, 35]);
});

test('a write the disk refuses fails its group and everything queued behind it; heads go back', async (ctx) => {
  let failNext = false;
  const journalIo: Partial<JournalIo> = {
    writev(fd, buffers, position) {
      if (failNext) {
        failNext = false;
        // A slow failure, so that more appends queue up behind the failing group.
        return new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error('EIO: simulated'), { code: 'EIO' })), 30));
      }
      return fileIo.writev(fd, buffers, position);
    },
  };
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir, journalIo });
  const store = ctx.store;
  await store.append('a', [ev('A', { i: 0 })], 'noStream');
  failNext = true;
  const group = Promise.allSettled([store.append('a', [ev('A', { i: 1 })], 0n), store.append('b', [ev('B', { i: 2 })], 'noStream')]);
  // Queued while the failing group is being written: numbered after it, so refused with it.
  await new Promise((resolve) => setImmediate(resolve));
  const behind = Promise.allSettled([store.append('a', [ev('A', { i: 3 })], 1n)]);
  const outcomes = [...(await group), ...(await behind)];
  assert.is(outcomes.length, 3);
  for (const o of outcomes) {
    assert.is(o.status, 'rejected');
    assert.match(String((o as PromiseRejectedResult).reason), /EIO/);
  }
  assert.is(await store.streamRevision('a'), 0n);
  assert.is(await store.streamRevision('b'), undefined);
  assert.is(await store.headPosition(), 1n);
  // The refused appends left nothing behind: the same expectations hold again.
  const a = await store.append('a', [ev('A', { i: 4 })], 0n);
  const b = await store.append('b', [ev('B', { i: 5 })], 'noStream');
  assert.equal([a.position, b.position], [2n, 3n]);
  await store.close();
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  assert.equal(summary(await collect(ctx.store.readAll())), [
    ['a', 0, 0],
    ['a', 1, 4],
    ['b', 0, 5],
  ]);
});

test('a retry of an append still in flight gets the first attempt’s outcome', async (ctx) => {
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  const events = [ev('A'), ev('B')];
  const [first, retry] = await Promise.all([ctx.store.append('r', events, 'noStream'), ctx.store.append('r', events, 'noStream')]);
  assert.equal(retry, first);
  assert.is((await ctx.store.readStream('r')).length, 2);
  let refused: unknown;
  try {
    await Promise.all([ctx.store.append('r', [ev('C')], 1n), ctx.store.append('r', [ev('D')], 1n)]);
  } catch (error) {
    refused = error;
  }
  assert.instance(refused, WrongExpectedVersion);
});

test('the journal has one owner: a second open is refused until the first is gone', async (ctx) => {
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  let refused: unknown;
  try {
    await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  } catch (error) {
    refused = error;
  }
  assert.match(String(refused), /already open in this process/);
  await ctx.store.close();
  ctx.store = undefined;

  // Another process owns it while it runs; once it is killed, its lock is stale.
  const writer = path.join(path.dirname(fileURLToPath(import.meta.url)), 'crash-writer.js');
  const child = spawn(process.execPath, [writer, ctx.dataDir, '2'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const guard = setTimeout(() => child.kill('SIGKILL'), 10_000);
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.on('exit', () => reject(new Error('writer exited early')));
    });
    refused = undefined;
    try {
      await openEmbeddedEventStore({ dataDir: ctx.dataDir });
    } catch (error) {
      refused = error;
    }
    assert.match(String(refused), new RegExp(`open in process ${child.pid}`));
  } finally {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    clearTimeout(guard);
  }
  ctx.store = await openEmbeddedEventStore({ dataDir: ctx.dataDir });
  const head = (await ctx.store.headPosition()) ?? 0n;
  assert.is((await ctx.store.append('mine', [ev('Taken')], 'noStream')).position, head + 1n);
});

test.run();

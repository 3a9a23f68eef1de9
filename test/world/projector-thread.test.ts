/**
 * The server's projector thread (src/projectors/thread.ts): it folds the same read models as a
 * projector on the request thread, reading the embedded journal's durable frames itself or being
 * forwarded events by another store; it resumes from its checkpoints, and it never reads past
 * what is durable.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { digestProjection } from '../../src/projections/digest.js';
import { projectionNames } from '../../src/projections/index.js';
import { allProjections } from '../../src/projectors/registry.js';
import { Projector } from '../../src/projections/projector.js';
import { ThreadProjector } from '../../src/projectors/thread.js';
import { openEmbeddedEventStore, type EmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { JournalReader } from '../../src/stores/embedded/journal-reader.js';
import type { EventStore } from '../../src/stores/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import type { ReadStore } from '../../src/stores/read-store.js';
import { startTestTown, type TestTown } from './support.js';

const programs = libraryPrograms();
const modules = programs.libraryModules!;
const names = [...projectionNames];

async function digests(reads: ReadStore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of Object.values(allProjections(programs))) out[p.name] = (await digestProjection(reads, p)).sha256;
  return out;
}

/** A town with some turns in its journal; closed, so its journal can be opened again here. */
async function journalWithTurns(): Promise<string> {
  const t: TestTown = await startTestTown({ settings: { inProcessProjectors: false } });
  const [ada, bob] = [await t.guest('ada'), await t.guest('bob')];
  for (let i = 0; i < 12; i++) {
    const g = i % 2 ? ada : bob;
    const r = await t.post(
      i % 3 ? '/AGENTS.md/world/lamp/fill' : '/AGENTS.md/world/notice-board/receive',
      g.token,
      i % 3 ? { intent: `t${i}`, fields: { measures: i % 4 } } : { intent: `t${i}`, spell: 'make kind=note' },
    );
    assert.is(r.status, 200, r.text);
  }
  await t.town.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-thread-'));
  fs.cpSync(t.dir, dir, { recursive: true });
  await t.close();
  return dir;
}

const test = suite<{ dirs: string[] }>('projector thread');
test.before.each((ctx) => {
  ctx.dirs = [];
});
test.after.each((ctx) => {
  for (const d of ctx.dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A guest's claim: an event the guests projection folds. */
const claimGuest = (events: EventStore, i: number) =>
  events.append(
    `guest-g${i}`,
    [{ id: randomUUID(), type: 'GuestClaimed', data: { name: `g${i}`, source: { invitation: `c${i}` }, claimId: `k${i}`, at: i } }],
    'noStream',
  );

const tmp = (ctx: { dirs: string[] }) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'town-thread-'));
  ctx.dirs.push(d);
  return d;
};

test('reading the journal and being forwarded events fold what a projector on this thread folds', async (ctx) => {
  const source = await journalWithTurns();
  ctx.dirs.push(source);
  const events = await openEmbeddedEventStore({ dataDir: source });
  try {
    const head = (await events.headPosition())!;
    // The reference: a projector on this thread.
    const inline = tmp(ctx);
    const inlineReads = await openEmbeddedReadStore({ dataDir: inline });
    const projector = new Projector(events, inlineReads, Object.values(allProjections(programs)));
    await projector.start();
    assert.ok(await projector.waitFor(head, 10_000));
    await projector.stop();
    const expected = await digests(inlineReads);
    await inlineReads.close();

    // A store that is not the embedded one (forwarding), and the embedded one (reading the journal).
    const forwarding: EventStore = Object.create(events) as EventStore;
    for (const [how, store, share] of [
      ['forwarded', forwarding, undefined],
      ['journal', events, (events as EmbeddedEventStore).share()],
    ] as const) {
      const dir = tmp(ctx);
      const thread = new ThreadProjector({
        events: store,
        ...(share ? { journal: share } : {}),
        readStore: { dataDir: dir },
        names,
        libraryModules: modules,
        batch: 7,
      });
      await thread.start();
      assert.ok(await thread.waitFor(head, 10_000), `${how}: caught up`);
      await thread.whenCaughtUp();
      assert.is(thread.checkpoint, head);
      await thread.stop();
      const reads = await openEmbeddedReadStore({ dataDir: dir });
      assert.equal(await digests(reads), expected, `${how}: same read models`);
      await reads.close();
    }
  } finally {
    await events.close();
  }
});

test('live appends reach the thread as they become durable, and a restart resumes from the checkpoint', async (ctx) => {
  const data = tmp(ctx);
  const events = await openEmbeddedEventStore({ dataDir: data });
  const readDir = tmp(ctx);
  const append = (i: number) => claimGuest(events, i);
  try {
    const start = () => new ThreadProjector({ events, journal: events.share(), readStore: { dataDir: readDir }, names: ['guests'], libraryModules: modules });
    let thread = start();
    await thread.start();
    await thread.whenCaughtUp();
    assert.is(thread.checkpoint, undefined, 'an empty journal: nothing folded');
    const seen: bigint[] = [];
    thread.onAdvance((p) => seen.push(p));
    for (let i = 1; i <= 5; i++) {
      const { position } = await append(i);
      assert.ok(await thread.waitFor(position, 10_000), `append ${i} folded`);
    }
    assert.ok(seen.length >= 1 && seen.at(-1) === 5n, `advances ${seen.join(',')}`);
    await thread.stop();

    // Appended while no thread runs; the next one starts from its checkpoint (5), not from 0.
    for (let i = 6; i <= 8; i++) await append(i);
    thread = start();
    await thread.start();
    assert.is(thread.checkpointOf('guests'), 5n);
    assert.ok(await thread.waitFor(8n, 10_000));
    await thread.stop();
    assert.is(thread.folded, 3, 'only the three new events were folded');
    const reads = await openEmbeddedReadStore({ dataDir: readDir });
    assert.is(await reads.checkpoint('guests'), 8n);
    await reads.close();
  } finally {
    await events.close();
  }
});

test('under a stream the thread waits between units, but never while a reader waits', async (ctx) => {
  const events = await openEmbeddedEventStore({ dataDir: tmp(ctx) });
  try {
    const thread = new ThreadProjector({
      events,
      journal: events.share(),
      readStore: { dataDir: tmp(ctx) },
      names: ['guests'],
      libraryModules: modules,
      commitGapMs: 60_000,
    });
    await thread.start();
    await thread.whenCaughtUp();
    let advances = 0;
    thread.onAdvance(() => advances++);
    // A steady stream nobody reads: after the first unit, what came meanwhile waits out the gap.
    let last = 0n;
    for (let i = 1; i <= 40; i++) last = (await claimGuest(events, i)).position;
    const started = performance.now();
    // A reader waits: the thread is told, ends the gap, and folds the rest at once.
    assert.ok(await thread.waitFor(last, 20_000), 'the reader saw the stream folded');
    assert.ok(performance.now() - started < 15_000, 'the reader did not wait out the gap');
    assert.ok(advances >= 1);
    await thread.stop();
  } finally {
    await events.close();
  }
});

test('a thread that dies is reported, started again, and resumes from its checkpoint', async (ctx) => {
  const data = tmp(ctx);
  const events = await openEmbeddedEventStore({ dataDir: data });
  const append = (i: number) => claimGuest(events, i);
  const errors: Error[] = [];
  const thread = new ThreadProjector({
    events,
    journal: events.share(),
    readStore: { dataDir: tmp(ctx) },
    names: ['guests'],
    libraryModules: modules,
    restartMs: 20,
    onError: (e) => errors.push(e),
  });
  try {
    await thread.start();
    assert.ok(await thread.waitFor((await append(1)).position, 10_000));
    // The thread dies (as a crash would take it).
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    const { position } = await append(2);
    const deadline = Date.now() + 10_000;
    while (!(await thread.waitFor(position, 200)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.is(thread.checkpoint, position, 'folded after the restart');
    assert.is(errors.length, 1, 'the death was reported once');
    assert.match(errors[0]!.message, /exited/);
    assert.is(thread.error, undefined, 'running again');
    await thread.stop();
  } finally {
    await thread.stop();
    await events.close();
  }
});

test('a thread that cannot open its read store fails to start, and says why', async (ctx) => {
  const data = tmp(ctx);
  const events = await openEmbeddedEventStore({ dataDir: data });
  const notADir = path.join(tmp(ctx), 'file');
  fs.writeFileSync(notADir, 'not a directory');
  const errors: Error[] = [];
  try {
    const thread = new ThreadProjector({
      events,
      journal: events.share(),
      readStore: { dataDir: notADir },
      names: ['guests'],
      libraryModules: modules,
      onError: (e) => errors.push(e),
    });
    const failed = await thread.start().then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(failed instanceof Error, 'start rejects');
    assert.match(failed.message, /ENOTDIR|not a directory|EEXIST|file/i, failed.message);
    assert.is(errors.length, 0, "a start that fails is the caller's to report, not a failure of a running thread");
    assert.is(await thread.waitFor(1n, 50), false);
  } finally {
    await events.close();
  }
});

test('the reader reads only whole frames below the end it is given, and refuses damaged ones', async (ctx) => {
  const data = tmp(ctx);
  const events = await openEmbeddedEventStore({ dataDir: data });
  for (let i = 0; i < 4; i++) await events.append('s', [{ id: randomUUID(), type: 'T', data: { i } }], i === 0 ? 'noStream' : BigInt(i - 1));
  const share = events.share();
  const { offset: end, position } = share.durable();
  assert.is(position, 4);
  const from = share.offsetAfter(undefined);
  const reader = new JournalReader(share.file);
  const all = reader.read(from, end, 100);
  assert.equal(
    all.events.map((e) => (e.data as { i: number }).i),
    [0, 1, 2, 3],
  );
  assert.is(all.next, end);
  const two = new JournalReader(share.file).read(share.offsetAfter(2n), end, 100);
  assert.equal(
    two.events.map((e) => e.position),
    [3n, 4n],
  );
  const capped = new JournalReader(share.file).read(from, end, 3);
  assert.is(capped.events.length, 3);
  reader.close();
  await events.close();
  // One flipped byte in the last frame's body: its checksum no longer holds.
  const bytes = fs.readFileSync(share.file);
  bytes[end - 3] ^= 0xff;
  fs.writeFileSync(share.file, bytes);
  assert.throws(() => new JournalReader(share.file).read(from, end, 100), /corrupt/);
});

test.run();

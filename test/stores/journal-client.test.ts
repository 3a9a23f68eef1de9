/**
 * The EventStore of a front beside the town (src/stores/embedded/journal-client.ts): it reads
 * the journal locally and sends appends to the owner's socket (append-server.ts). It must pass
 * the event store contract unchanged, so a front cannot tell it from the embedded store; and
 * beside it: racing fronts, the owner's own appends, a connection dropped mid-append and bad
 * request lines. Owner, server and clients are in one process here.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { open } from 'lmdb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WrongExpectedVersion, type EventData } from '../../src/stores/event-store.js';
import { openEmbeddedEventStore, type EmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { serveAppends, type AppendServer } from '../../src/stores/embedded/append-server.js';
import { appendSocketPath } from '../../src/stores/embedded/append-protocol.js';
import { openJournalClient, type JournalClient } from '../../src/stores/embedded/journal-client.js';
import { fileIo, type JournalIo } from '../../src/stores/embedded/journal.js';
import { eventStoreContract, type StoreUnderTest } from './event-store.contract.js';
import { storageFault } from '../../src/contract/storage-fault.js';
import { TownError } from '../../src/contract/town-error.js';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'town-client-'));
const ev = (i: number): EventData => ({ id: randomUUID(), type: 'E', data: { i } });

eventStoreContract('journal client', async () => {
  const dataDir = tempDir();
  const owner = await openEmbeddedEventStore({ dataDir });
  const server = await serveAppends(owner, appendSocketPath(dataDir));
  const sut: StoreUnderTest = {
    store: await openJournalClient({ dataDir }),
    reopen: () => openJournalClient({ dataDir }),
    async cleanup() {
      await sut.store.close();
      await server.close();
      await owner.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return sut;
}).run();

interface Town {
  dataDir: string;
  owner: EmbeddedEventStore;
  server: AppendServer;
  clients: JournalClient[];
}

async function town(fronts: number, journalIo?: Partial<JournalIo>): Promise<Town> {
  const dataDir = tempDir();
  const owner = await openEmbeddedEventStore({ dataDir, journalIo });
  const server = await serveAppends(owner, appendSocketPath(dataDir));
  const clients: JournalClient[] = [];
  for (let i = 0; i < fronts; i++) clients.push(await openJournalClient({ dataDir }));
  return { dataDir, owner, server, clients };
}

async function closeTown(t: Town): Promise<void> {
  for (const c of t.clients) await c.close();
  await t.server.close();
  await t.owner.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
}

const is = (events: Array<{ data: unknown }>) => events.map((e) => (e.data as { i: number }).i);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const fronts = suite('journal client beside its owner');

fronts('two fronts racing on one stream: exactly one wins each revision, and the loser reads the winner at once', async () => {
  const t = await town(2);
  try {
    const [a, b] = t.clients as [JournalClient, JournalClient];
    await a.append('race', [ev(-1)], 'noStream');
    for (let round = 0; round < 30; round++) {
      const expected = BigInt(round);
      const outcomes = await Promise.allSettled([a.append('race', [ev(round * 2)], expected), b.append('race', [ev(round * 2 + 1)], expected)]);
      const won = outcomes.findIndex((o) => o.status === 'fulfilled');
      assert.is(outcomes.filter((o) => o.status === 'fulfilled').length, 1, `round ${round}`);
      const lost = outcomes[1 - won] as PromiseRejectedResult;
      assert.instance(lost.reason, WrongExpectedVersion);
      assert.is((lost.reason as WrongExpectedVersion).actual, expected + 1n);
      const loser = won === 0 ? b : a;
      const [last] = await loser.readStream('race', { direction: 'backwards', maxCount: 1 });
      assert.is(last!.revision, expected + 1n);
      assert.is((last!.data as { i: number }).i, round * 2 + won);
      assert.is(await loser.streamRevision('race'), expected + 1n);
    }
    assert.equal(is(await a.readStream('race')), is(await t.owner.readStream('race')));
  } finally {
    await closeTown(t);
  }
});

fronts('a front reads what the owner appended as soon as the append resolved, across the index catching up', async () => {
  const t = await town(1);
  try {
    const [client] = t.clients as [JournalClient];
    for (let i = 0; i < 400; i++) {
      const s = `own-${i % 5}`;
      const r = await t.owner.append(s, [ev(i)], 'any');
      assert.is(await client.streamRevision(s), r.nextRevision, `append ${i}`);
      const [last] = await client.readStream(s, { direction: 'backwards', maxCount: 1 });
      assert.is((last!.data as { i: number }).i, i);
      // Now and then long enough for the owner's index to take the frames from memory.
      if (i % 50 === 0) await delay(60);
    }
    await delay(60);
    for (let k = 0; k < 5; k++) {
      const s = `own-${k}`;
      assert.equal(is(await client.readStream(s)), is(await t.owner.readStream(s)));
      assert.equal(
        is(await client.readStream(s, { direction: 'backwards', fromRevision: 70n, maxCount: 10 })),
        is(await t.owner.readStream(s, { direction: 'backwards', fromRevision: 70n, maxCount: 10 })),
      );
      assert.equal(is(await client.readStream(s, { fromRevision: 60n, maxCount: 10 })), is(await t.owner.readStream(s, { fromRevision: 60n, maxCount: 10 })));
    }
    await t.owner.deleteStream('own-3');
    assert.equal(await client.readStream('own-3'), []);
    assert.is(await client.streamRevision('own-3'), undefined);
    assert.not.ok(
      (await collect(client.readAll())).some((e) => e.stream === 'own-3'),
      'a deleted stream leaves $all',
    );
  } finally {
    await closeTown(t);
  }
});

fronts('without the owner’s index a front reads every stream from the journal', async () => {
  const dataDir = tempDir();
  try {
    const owner = await openEmbeddedEventStore({ dataDir });
    for (let i = 0; i < 150; i++) await owner.append(`s-${i % 3}`, [ev(i)], 'any');
    await owner.deleteStream('s-2');
    await owner.close();
    for (const f of ['data.mdb', 'lock.mdb']) fs.rmSync(path.join(dataDir, 'events', f), { force: true });
    const client = await openJournalClient({ dataDir });
    assert.equal(
      is(await client.readStream('s-1', { fromRevision: 40n })),
      Array.from({ length: 10 }, (_, k) => 3 * (40 + k) + 1),
    );
    assert.is(await client.streamRevision('s-0'), 49n);
    assert.is(await client.streamRevision('s-2'), undefined);
    await client.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

fronts('an index emptied in place (its owner indexing the journal again) is not trusted: a front reads from the journal', async () => {
  const dataDir = tempDir();
  try {
    const owner = await openEmbeddedEventStore({ dataDir });
    for (let i = 0; i < 130; i++) await owner.append(`c-${i % 2}`, [ev(i)], 'any');
    await owner.close();
    // As JournalIndex.clear leaves it: no entries, `through` kept.
    const env = open({ path: path.join(dataDir, 'events'), maxDbs: 4 });
    env.transactionSync(() => {
      env.openDB({ name: 'offsets' }).clearSync();
      env.openDB({ name: 'stream-chunks' }).clearSync();
    });
    assert.is(env.openDB<number, string>({ name: 'meta' }).get('through'), 130);
    await env.close();
    const client = await openJournalClient({ dataDir });
    assert.is(await client.streamRevision('c-1'), 64n);
    assert.equal(is(await client.readStream('c-0', { direction: 'backwards', maxCount: 3 })), [128, 126, 124]);
    await client.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

fronts('a front open across an owner restart that rebuilt the index reads every stream, old and new', async () => {
  const t = await town(1);
  try {
    const [client] = t.clients as [JournalClient];
    for (let i = 0; i < 200; i++) await client.append(`r-${i % 2}`, [ev(i)], 'any');
    await delay(60);
    assert.is(await client.streamRevision('r-0'), 99n);
    await t.server.close();
    await t.owner.close();
    // The index is derived: the next owner indexes the journal again, into a new file.
    for (const f of ['data.mdb', 'lock.mdb', 'index-state.json']) fs.rmSync(path.join(t.dataDir, 'events', f), { force: true });
    t.owner = await openEmbeddedEventStore({ dataDir: t.dataDir });
    t.server = await serveAppends(t.owner, appendSocketPath(t.dataDir));
    for (let i = 200; i < 300; i++) await client.append(`r-${i % 2}`, [ev(i)], 'any');
    assert.is(await client.streamRevision('r-1'), 149n);
    // Past the time a front looks at the index file again.
    await delay(1100);
    assert.equal(is(await client.readStream('r-0')), is(await t.owner.readStream('r-0')));
    assert.equal(
      is(await client.readStream('r-1', { direction: 'backwards', maxCount: 120 })),
      is(await t.owner.readStream('r-1', { direction: 'backwards', maxCount: 120 })),
    );
    await client.append('r-0', [ev(300)], 149n);
    assert.is(await client.streamRevision('r-0'), 150n);
  } finally {
    await closeTown(t);
  }
});

fronts('a refusal is answered once what was reserved before it is durable, so the front reads what beat it', async () => {
  let gate: (() => void) | undefined;
  let held = false;
  const journalIo: Partial<JournalIo> = {
    async writev(fd, buffers, position) {
      if (held) await new Promise<void>((resolve) => (gate = resolve));
      return fileIo.writev(fd, buffers, position);
    },
  };
  /** Holds the group `reserve` makes on its way to the disk until `release`. */
  const hold = async (reserve: () => Promise<unknown>) => {
    held = true;
    gate = undefined;
    const written = reserve();
    while (!gate) await delay(2);
    return { written };
  };
  const release = () => {
    held = false;
    gate?.();
  };
  /** The call's outcome, and whether it has come yet. */
  const watch = (call: Promise<unknown>) => {
    const watched = { answered: false, outcome: undefined as unknown };
    const settled = call.then(
      (value) => value,
      (error: unknown) => error,
    );
    void settled.then((outcome) => {
      watched.answered = true;
      watched.outcome = outcome;
    });
    return { watched, settled };
  };
  const t = await town(1, journalIo);
  try {
    const [client] = t.clients as [JournalClient];
    await client.append('s', [ev(0)], 'noStream');
    // The owner's own append to the stream is on its way to the disk when the front's is checked.
    const owners = (await hold(() => t.owner.append('s', [ev(1)], 0n))).written;
    const refused = watch(client.append('s', [ev(2)], 0n));
    await delay(100);
    assert.not.ok(refused.watched.answered, 'no answer while what beat it is not durable');
    release();
    const error = await refused.settled;
    assert.instance(error, WrongExpectedVersion);
    assert.is((error as WrongExpectedVersion).actual, 1n);
    await owners;
    assert.equal(is(await client.readStream('s')), [0, 1]);

    // Refused by a durable head, it still waits for the appends in flight (to any stream).
    const other = (await hold(() => t.owner.append('other', [ev(3)], 'noStream'))).written;
    const late = watch(client.append('s', [ev(4)], 7n));
    await delay(100);
    assert.not.ok(late.watched.answered, 'the refusal waits for the owner’s append in flight');
    release();
    assert.instance(await late.settled, WrongExpectedVersion);
    await other;
    assert.is(await client.streamRevision('other'), 0n);
  } finally {
    release();
    await closeTown(t);
  }
});

fronts('a connection dropped mid-append fails the call; the same append retried once the owner serves again is written once', async () => {
  let gate: (() => void) | undefined;
  let held = false;
  const journalIo: Partial<JournalIo> = {
    async writev(fd, buffers, position) {
      if (held) await new Promise<void>((resolve) => (gate = resolve));
      return fileIo.writev(fd, buffers, position);
    },
  };
  const t = await town(1, journalIo);
  try {
    const [client] = t.clients as [JournalClient];
    await client.append('drop', [ev(0)], 'noStream');
    held = true;
    const events = [ev(1), ev(2)];
    const call = client.append('drop', events, 0n).then(
      () => undefined,
      (error: unknown) => error,
    );
    while (!gate) await delay(2);
    await t.server.close();
    const error = await call;
    assert.instance(error, Error);
    assert.not.instance(error, WrongExpectedVersion);
    held = false;
    gate();
    t.server = await serveAppends(t.owner, appendSocketPath(t.dataDir));
    const again = await client.append('drop', events, 0n);
    assert.is(again.nextRevision, 2n);
    assert.equal(is(await client.readStream('drop')), [0, 1, 2]);
    // Retried once more: still recognised, still written once.
    assert.is((await client.append('drop', events, 0n)).nextRevision, 2n);
    assert.equal(is(await t.owner.readStream('drop')), [0, 1, 2]);
  } finally {
    held = false;
    gate?.();
    await closeTown(t);
  }
});

fronts('a bad request line is answered with an error, and the connection and the owner go on', async () => {
  const t = await town(1);
  try {
    const socket = net.createConnection(appendSocketPath(t.dataDir));
    await new Promise((resolve) => socket.once('connect', resolve));
    const answers: Array<{ id: unknown; ok?: unknown; error?: { name: string } }> = [];
    let partial = '';
    socket.on('data', (chunk) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop()!;
      for (const line of lines) answers.push(JSON.parse(line));
    });
    socket.write('not json at all\n');
    socket.write('{"id":1,"op":"nope"}\n');
    socket.write('{"id":2,"op":"append","stream":"bad","expected":"sometimes","events":[]}\n');
    socket.write('{"id":3,"op":"append","stream":"$bad","expected":"any","events":[{"id":"x","type":"E","data":{}}]}\n');
    socket.write(`{"id":4,"op":"append","stream":"good","expected":"noStream","events":[{"id":"${randomUUID()}","type":"E","data":{"i":7}}]}\n`);
    while (answers.length < 5) await delay(5);
    const byId = new Map(answers.map((a) => [a.id, a]));
    assert.is(byId.get(null)!.error!.name, 'TypeError');
    for (const id of [1, 2, 3]) assert.is(byId.get(id)!.error!.name, 'TypeError', `request ${id}`);
    assert.equal(byId.get(4)!.ok, { nextRevision: '0', position: '1' });
    socket.destroy();
    const [client] = t.clients as [JournalClient];
    assert.equal(is(await client.readStream('good')), [7]);
    await client.append('good', [ev(8)], 0n);
    assert.equal(is(await t.owner.readStream('good')), [7, 8]);
    // Data the caller encoded itself: laid out over lines it is still one request; text that is
    // not JSON is refused by the owner, and the call hears it.
    await client.append('good', [{ id: randomUUID(), type: 'E', data: { i: 9 }, json: JSON.stringify({ i: 9 }, null, 2) }], 1n);
    assert.equal(is(await client.readStream('good')), [7, 8, 9]);
    assert.instance(await client.append('good', [{ id: randomUUID(), type: 'E', data: {}, json: '{not json' }], 2n).catch((e: unknown) => e), TypeError);
    assert.is(await client.streamRevision('good'), 2n);
    assert.is((fs.statSync(appendSocketPath(t.dataDir)).mode & 0o777).toString(8), '600');
  } finally {
    await closeTown(t);
  }
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

fronts('a storage fault on the owner reaches the front as one (503 there), and an owner out of reach is hostUnavailable', async () => {
  let failNext = false;
  const t = await town(1, {
    writev(fd, buffers, position) {
      if (!failNext) return fileIo.writev(fd, buffers, position);
      failNext = false;
      return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    },
  });
  try {
    const [front] = t.clients;
    failNext = true;
    const full = await front!.append('s', [ev(1)], 'any').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.is(storageFault(full), 'ENOSPC', String(full));
    await t.server.close();
    const lost = await front!.append('s', [ev(2)], 'any').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(lost instanceof TownError && lost.cls === 'hostUnavailable', String(lost));
    assert.not.match((lost as Error).message, t.dataDir, 'the answer names no path of the box');
  } finally {
    await closeTown(t);
  }
});

fronts.run();

import fs from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { settingsFromEnv } from '../src/config.js';
import { createLimiters } from '../src/contract/rate-limit.js';
import { startServer } from '../src/http/server.js';
import { issueInvitation } from '../src/identity/operator.js';
import { IdentityService } from '../src/identity/service.js';
import { openTown, type Town } from '../src/town.js';
import { libraryPrograms } from '../src/cards/kernel/library.js';
import { openEventStore } from '../src/stores/open-event-store.js';
import { openReadStore } from '../src/stores/open-read-store.js';
import { allProjections } from '../src/projectors/registry.js';
import { rebuildProjections } from '../src/projections/rebuild.js';

import { blockDestination, townLog } from '../src/operations/log.js';
import { cpuUs, percentile, threadCpuUs, vmHwmMb } from './turns-figures.js';

/**
 * BENCH_REPOSITORY=off leaves the repository projection out (the repository bench measures turns
 * with it and without it, in one run).
 */
async function openBenchTown(dir: string, repository = process.env.BENCH_REPOSITORY !== 'off'): Promise<Town> {
  const clock = Date.now;
  return openTown({
    repository,
    // BENCH_PROJECTORS=workers: the server runs no projector (to see what folding costs a turn).
    settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: process.env.BENCH_PROJECTORS !== 'workers' },
    clock,
    origin: 'http://bench.test',
    limiters: createLimiters(clock, { credential: [10_000, 1], identity: [10_000, 1], page: [10_000, 1], xrpc: [10_000, 1] }),
    // A line per request, as `npm start` logs (to /dev/null, asynchronously, as to a pipe); BENCH_LOG=off: none.
    ...(process.env.BENCH_LOG !== 'off' ? { log: townLog({ destination: blockDestination('/dev/null') }) } : {}),
  });
}

async function admit(town: Town, names: string[]): Promise<string[]> {
  const service = new IdentityService({ store: town.events, config: town.config, clock: Date.now });
  const tokens: string[] = [];
  for (const name of names) {
    const { code } = await issueInvitation(town.events, Date.now, { guest: null, lifetimeMs: 86_400_000 });
    tokens.push((await service.accept(code, name)).credential);
  }
  return tokens;
}

/**
 * BENCH_ALLOC=<file>: a sampling profile of every allocation the main thread makes while it serves
 * (collected ones included, unlike --heap-prof's), written at exit: what makes the collector run.
 * BENCH_CPU=<file>: the main thread's CPU profile over the same span (not the start, as --cpu-prof).
 */
async function allocationProfile(): Promise<{ start(): Promise<void>; stop(): Promise<void> } | undefined> {
  const file = process.env.BENCH_ALLOC;
  const cpuFile = process.env.BENCH_CPU;
  if (!file && !cpuFile) return undefined;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  let started = false;
  return {
    // From the first figures asked for on: the bench asks after its warm-up loads.
    async start() {
      if (started) return;
      started = true;
      if (file)
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 4096,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
      if (cpuFile) {
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
      }
    },
    async stop() {
      if (!started) return;
      if (file) fs.writeFileSync(file, JSON.stringify((await session.post('HeapProfiler.stopSampling')).profile));
      if (cpuFile) fs.writeFileSync(cpuFile, JSON.stringify((await session.post('Profiler.stop')).profile));
    },
  };
}

/** A town server; measures projection lag and memory while it serves. */
async function serveTown(dir: string, guests: number): Promise<void> {
  const allocations = await allocationProfile();
  const town = await openBenchTown(dir);
  const server = await startServer(town.app, { port: 0, host: '127.0.0.1' });
  const tokens = guests
    ? await admit(
        town,
        Array.from({ length: guests }, (_, i) => `bench-${i}-${process.pid}`),
      )
    : [];
  const committed = new Map<bigint, number>();
  const lags: number[] = [];
  town.world.onCommit((_entries, position) => committed.set(position, performance.now()));
  town.projectors[0]?.onAdvance((position) => {
    const now = performance.now();
    for (const [p, at] of committed) {
      if (p > position) continue;
      lags.push(now - at);
      committed.delete(p);
    }
  });
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  process.on('message', async (m: { ask: string }) => {
    if (m.ask === 'live') {
      // What the server holds, not what it has yet to collect (the big town's children only:
      // a collection between loads would disturb the throughput figures).
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      gc?.();
      process.send!({ liveHeapMb: gc ? process.memoryUsage().heapUsed / 1048576 : NaN, liveRssMb: process.memoryUsage().rss / 1048576 });
    } else if (m.ask === 'stats') {
      await allocations?.start();
      process.send!({
        lagP50: percentile(lags, 50),
        lagP99: percentile(lags, 99),
        lagSamples: lags.length,
        peakRssMb: Math.max(peak / 1048576, vmHwmMb()),
        rssMb: process.memoryUsage().rss / 1048576,
        heapMb: process.memoryUsage().heapUsed / 1048576,
        cards: town.world.current.cards.size,
        height: town.world.height,
        batches: town.world.stats.batches,
        entries: town.world.stats.entries,
        startMs: town.startMs,
        startSteps: town.startSteps,
        appendP50: percentile(town.world.appendMs, 50),
        appendP99: percentile(town.world.appendMs, 99),
        cpuUs: cpuUs(),
        threads: threadCpuUs(),
        repositoryCheckpoint: Number(town.projectors.find((p) => p.names.includes('repository'))?.checkpoint ?? -1),
        head: Number((await town.events.headPosition()) ?? 0),
      });
      lags.length = 0;
      town.world.appendMs.length = 0;
    }
  });
  process.send!({ port: server.address.port, tokens });
  process.on('disconnect', () => {
    clearInterval(sampler);
    void server
      .close()
      .then(() => town.close())
      .then(() => allocations?.stop())
      .then(() => process.exit(0));
  });
}

/** Fills a journal: `cards` makes (each a new card) and the rest simple fills, pipelined. */
async function generate(dir: string, entries: number, cards: number): Promise<void> {
  // The journal is what is measured here; the repository folds it where a bench asks for it.
  const town = await openBenchTown(dir, false);
  const [token] = await admit(town, ['maker']);
  void token;
  const principal = `guest:${town.config.host}:maker`;
  const started = performance.now();
  const total = Math.max(0, entries - town.world.height - 8);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const make = i < cards;
      await town.world.submit(
        make
          ? { kind: 'turn', principal, intent: `g${i}`, object: 'notice-board', method: 'receive', spell: 'make kind=note' }
          : { kind: 'turn', principal, intent: `g${i}`, object: 'lamp', method: 'fill', fields: { measures: 0 } },
      );
    }
  };
  await Promise.all(Array.from({ length: 256 }, worker));
  const head = (await town.events.headPosition())!;
  await town.projectors[0]!.waitFor(head, 600_000);
  const seconds = (performance.now() - started) / 1000;
  const height = town.world.height;
  const cardsNow = town.world.current.cards.size;
  await town.close();
  process.send!({ seconds, height, cards: cardsNow, head: Number(head) });
}

async function rebuild(dir: string): Promise<void> {
  const events = await openEventStore({ dataDir: dir });
  const reads = await openReadStore({ dataDir: dir });
  // As `npm run rebuild` runs it: its default batch, and (from the parent) its node flags.
  // The read models a caller's reads wait for; the repository's own fold is the repository bench's.
  const all = allProjections(libraryPrograms());
  const r = await rebuildProjections(
    events,
    reads,
    Object.values(all).filter((p) => p.name !== 'repository'),
  );
  // The floor of any rebuild: reading and decoding the journal, folding and writing nothing.
  const started = performance.now();
  let read = 0;
  for await (const e of events.readAll()) if (e) read++;
  const readSeconds = (performance.now() - started) / 1000;
  await reads.close();
  await events.close();
  process.send!({ events: r.events, seconds: r.seconds, peakRssMb: vmHwmMb(), read, readSeconds });
}

async function serveBare(): Promise<void> {
  const bare = new Koa();
  bare.use(async (ctx) => {
    ctx.body = { status: 'ok' };
  });
  const s = http.createServer(bare.callback());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  process.on('message', (m: { ask: string }) => {
    if (m.ask === 'stats') process.send!({ cpuUs: cpuUs(), threads: threadCpuUs() });
  });
  process.send!({ port: (s.address() as { port: number }).port });
  process.on('disconnect', () => process.exit(0));
}

/**
 * The floor: what the fixed stack (koa, @koa/router, koa-body, the embedded stores) costs a
 * request before any of Town's own work. A durable POST parses a turn's body, appends an entry of
 * a real fill's size to the journal (group-committed like the world's appends) and answers a
 * turn reply of a real reply's size; a read finds a real lamp card document by id in the read
 * store and answers it. No credential, no kernel, no projection, no front: any real turn or read
 * costs at least this, so its ratio to bare koa bounds what the turn and read ratios can reach.
 */
async function serveFloor(dir: string): Promise<void> {
  const events = await openEventStore({ dataDir: dir });
  const reads = await openReadStore({ dataDir: dir });
  const cards = reads.collection('floor-cards');
  const lamp = {
    _id: 'town/lamp',
    id: 'lamp',
    kind: 'lamp',
    pin: 'bafyreiarrpqhhwm6b2qyoq6chzsrktxr45hiye5u3ohsvuvmnau5td62ty',
    pinSlug: 'iris-lily-fox',
    state: {
      tag: 'record',
      fields: [
        { name: 'lit', value: { tag: 'boolean', value: false } },
        { name: 'fuel', value: { tag: 'natural', value: 3 } },
      ],
    },
    version: 2,
    owner: 'town',
    maker: 'town',
    place: 'square',
    visibility: 'everyone',
    readers: ['*'],
    lent: [],
    lines: ['the lamp was lit', 'the lamp was doused'],
  };
  await cards.putMany([lamp]);
  const actions = { light: 'light', douse: 'douse', fill: 'fill measures=<natural 0..9>', give: 'give to=<object 1..128> note=<text 0..80>' };
  const router = new Router();
  let height = 0;
  router.post('/floor/turn/:object/:method', async (ctx) => {
    const body = ctx.request.body as { intent?: string; fields?: unknown };
    const h = ++height;
    const entry = {
      height: h,
      clock: Date.now(),
      kind: 'turn',
      principal: 'guest:bench.test:floor',
      intent: { intent: body.intent, fingerprint: 'PIYRlsUfcD7wDJhPwAazHKGCYTy3kceXSyfRZC5FxHo' },
      request: { object: ctx.params.object, method: ctx.params.method, fields: JSON.stringify(body.fields) },
      receipt: {
        status: 'done',
        line: 'floor.bench.test pours in 0 measures of oil',
        revealed: ['rule dark did not fire on lamp', `lamp stands at version ${h}`],
        offers: [],
        usage: { ticks: 29, heap: 101, bytes: 67 },
        object: 'lamp',
        method: 'fill',
        result: { tag: 'record', fields: [] },
      },
      writes: [{ id: 'lamp', version: h, say: ['floor.bench.test pours in 0 measures of oil'] }],
      cid: 'bafyreids6jbmdzq2eksh4ft54mwaj4gh3igqadhpclyiju7qszcg5awlfq',
      slug: 'hazel-holly-lemon',
    };
    await events.append('world-floor', [{ id: randomUUID(), type: 'WorldEntry', data: entry }], 'any');
    ctx.body = {
      status: 'done',
      line: entry.receipt.line,
      revealed: entry.receipt.revealed,
      offers: [],
      receipt: { slug: entry.slug, height: h },
      _links: {
        self: { href: ctx.path },
        api: { href: '/AGENTS.md/api' },
        receipt: { href: `/AGENTS.md/receipt/${entry.slug}` },
        card: { href: '/AGENTS.md/world/lamp/card' },
      },
    };
  });
  router.get('/floor/read/:object', async (ctx) => {
    const doc = (await cards.findOne({ _id: `town/${ctx.params.object}` })) as typeof lamp | null;
    if (!doc) return ctx.throw(404);
    ctx.body = {
      id: doc.id,
      kind: doc.kind,
      state: doc.state,
      version: doc.version,
      _actions: actions,
      _links: {
        self: { href: ctx.path },
        api: { href: '/AGENTS.md/api' },
        card: { href: `/AGENTS.md/world/${doc.id}/card` },
        source: { href: `/AGENTS.md/world/${doc.id}/source` },
      },
    };
  });
  const app = new Koa();
  app.use(koaBody({ jsonLimit: 65_536 }));
  app.use(router.routes());
  const s = http.createServer(app.callback());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  process.on('message', (m: { ask: string }) => {
    if (m.ask === 'stats') process.send!({ cpuUs: cpuUs(), threads: threadCpuUs() });
  });
  process.send!({ port: (s.address() as { port: number }).port });
  process.on(
    'disconnect',
    () =>
      void new Promise<void>((r) => s.close(() => r()))
        .then(() => reads.close())
        .then(() => events.close())
        .then(() => process.exit(0)),
  );
}

const [mode, a1, a2, a3] = process.argv.slice(2);
if (mode === '--serve') void serveTown(a1!, Number(a2));
else if (mode === '--generate') void generate(a1!, Number(a2), Number(a3));
else if (mode === '--rebuild') void rebuild(a1!);
else if (mode === '--bare') void serveBare();
else if (mode === '--floor') void serveFloor(a1!);

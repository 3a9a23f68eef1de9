/**
 * Turns and reads end to end, on the embedded stores, at 48 connections (autocannon), against a
 * bare koa route measured in the same run:
 *   - durable turns/s and p50/p99 latency of a simple spell (`lamp fill measures=0`, each
 *     request a fresh intent, 48 guests, one a connection);
 *   - GET world/lamp reads/s;
 *   - projection lag p50/p99 (append committed -> every read model folded it);
 *   - rebuild events/s of every read model over a journal of `--entries` (200,000) entries;
 *   - start to serving on that journal, from the snapshot and from the journal alone, and the
 *     server's peak memory with `--cards` (100,000) cards in the town.
 * Servers run in child processes so the load generator does not share their event loop.
 *
 *   npm run bench -- turns [--seconds=5] [--entries=200000] [--cards=100000] [--small]
 *
 * Rate limits are lifted in the bench (32 calls a minute per credential would measure the
 * limiter, not the turn).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { settingsFromEnv } from '../src/config.js';
import { createLimiters } from '../src/http/rate-limit.js';
import { startServer } from '../src/http/server.js';
import { issueInvitation } from '../src/identity/operator.js';
import { IdentityService } from '../src/identity/service.js';
import { openTown, type Town } from '../src/town.js';
import { libraryPrograms } from '../src/cards/kernel/library.js';
import { openEventStore } from '../src/stores/open-event-store.js';
import { openReadStore } from '../src/stores/open-read-store.js';
import { allProjections } from '../src/projections/index.js';
import { rebuildProjections } from '../src/projections/rebuild.js';

const self = fileURLToPath(import.meta.url);

function flag(args: string[], name: string, fallback: number): number {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : fallback;
}

const percentile = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

function vmHwmMb(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : process.memoryUsage().rss / 1048576;
}

// ---- children ---------------------------------------------------------------------------------

async function openBenchTown(dir: string): Promise<Town> {
  const clock = Date.now;
  return openTown({
    // BENCH_PROJECTORS=workers: the server runs no projector (to see what folding costs a turn).
    settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: process.env.BENCH_PROJECTORS !== 'workers' },
    clock,
    origin: 'http://bench.test',
    limiters: createLimiters(clock, { credential: [10_000, 1], identity: [10_000, 1], page: [10_000, 1], xrpc: [10_000, 1] }),
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

/** A town server; measures projection lag and memory while it serves. */
async function serveTown(dir: string, guests: number): Promise<void> {
  const town = await openBenchTown(dir);
  const server = await startServer(town.app, { port: 0, host: '127.0.0.1' });
  const tokens = guests ? await admit(town, Array.from({ length: guests }, (_, i) => `bench-${i}-${process.pid}`)) : [];
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
  process.on('message', (m: { ask: string }) => {
    if (m.ask === 'stats') {
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
        appendP50: percentile(town.world.appendMs, 50),
        appendP99: percentile(town.world.appendMs, 99),
      });
      lags.length = 0;
      town.world.appendMs.length = 0;
    }
  });
  process.send!({ port: server.address.port, tokens });
  process.on('disconnect', () => {
    clearInterval(sampler);
    void server.close().then(() => town.close()).then(() => process.exit(0));
  });
}

/** Fills a journal: `cards` makes (each a new card) and the rest simple fills, pipelined. */
async function generate(dir: string, entries: number, cards: number): Promise<void> {
  const town = await openBenchTown(dir);
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
      await town.world.submit(make
        ? { kind: 'turn', principal, intent: `g${i}`, object: 'notice-board', method: 'receive', spell: 'make kind=note' }
        : { kind: 'turn', principal, intent: `g${i}`, object: 'lamp', method: 'fill', fields: { measures: 0 } });
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
  const r = await rebuildProjections(events, reads, Object.values(allProjections(libraryPrograms())), { batch: 2000 });
  await reads.close();
  await events.close();
  process.send!({ events: r.events, seconds: r.seconds, peakRssMb: vmHwmMb() });
}

async function serveBare(): Promise<void> {
  const bare = new Koa();
  bare.use(async (ctx) => {
    ctx.body = { status: 'ok' };
  });
  const s = http.createServer(bare.callback());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  process.send!({ port: (s.address() as { port: number }).port });
  process.on('disconnect', () => process.exit(0));
}

// ---- parent -----------------------------------------------------------------------------------

function child(args: string[]): { proc: ChildProcess; first: Promise<any> } {
  // BENCH_PROF=<dir> writes a CPU profile of every child (for finding where the time goes).
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const proc = fork(self, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--max-old-space-size=4096', ...prof] });
  const first = new Promise<any>((resolve, reject) => {
    proc.once('message', resolve);
    proc.once('exit', (code) => reject(new Error(`bench child ${args[0]} exited (${code})`)));
  });
  return { proc, first };
}

const ask = (proc: ChildProcess) =>
  new Promise<any>((resolve) => {
    proc.once('message', resolve);
    proc.send({ ask: 'stats' });
  });

async function load(o: { url: string; seconds: number; method?: string; tokens?: string[]; body?: (n: number) => string }) {
  const name = 'autocannon';
  const autocannon = (await import(name)).default;
  let n = 0;
  let client = 0;
  const tokens = o.tokens ?? [];
  const r = await autocannon({
    url: o.url,
    connections: 48,
    duration: o.seconds,
    pipelining: 1,
    method: o.method ?? 'GET',
    headers: { 'content-type': 'application/json' },
    setupClient: (c: { setHeaders(h: Record<string, string>): void }) => {
      const token = tokens[client++ % Math.max(1, tokens.length)];
      if (token) c.setHeaders({ 'content-type': 'application/json', authorization: `Bearer ${token}` });
    },
    ...(o.body ? { requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: o.body!(n++) }) }] } : {}),
  });
  return { rps: r.requests.average as number, p50: r.latency.p50 as number, p99: r.latency.p99 as number, errors: (r.errors + r.timeouts) as number, non2xx: r.non2xx as number };
}

async function timeToServe(dir: string): Promise<{ ms: number; proc: ChildProcess; info: any }> {
  const started = performance.now();
  const c = child(['--serve', dir, '0']);
  const info = await c.first;
  return { ms: performance.now() - started, proc: c.proc, info };
}

export async function main(args: string[]): Promise<Record<string, number>> {
  const seconds = flag(args, 'seconds', 5);
  const small = args.includes('--small');
  const entries = flag(args, 'entries', small ? 20_000 : 200_000);
  const cards = flag(args, 'cards', small ? 10_000 : 100_000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'town-bench-'));
  const out: Record<string, number> = {};
  const children: ChildProcess[] = [];
  try {
    // 1. Bare koa, turns and reads, in one run.
    const bare = child(['--bare']);
    children.push(bare.proc);
    const { port: barePort } = await bare.first;
    const town = child(['--serve', path.join(root, 'small'), '48']);
    children.push(town.proc);
    const { port, tokens } = await town.first;
    const base = `http://127.0.0.1:${port}`;
    const bareRun = await load({ url: `http://127.0.0.1:${barePort}/`, seconds });
    await load({ url: `${base}/AGENTS.md/world/lamp/fill`, seconds: 1, method: 'POST', tokens, body: (n) => JSON.stringify({ intent: `warm-${n}`, fields: { measures: 0 } }) });
    await ask(town.proc);
    const turns = await load({ url: `${base}/AGENTS.md/world/lamp/fill`, seconds, method: 'POST', tokens, body: (n) => JSON.stringify({ intent: `t-${n}`, fields: { measures: 0 } }) });
    const afterTurns = await ask(town.proc);
    await new Promise((r) => setTimeout(r, 1000)); // let the turns still in flight finish
    const readsRun = await load({ url: `${base}/AGENTS.md/world/lamp`, seconds, tokens });
    const afterReads = await ask(town.proc);
    town.proc.disconnect();
    bare.proc.disconnect();
    Object.assign(out, {
      bareRps: bareRun.rps,
      turnsRps: turns.rps,
      turnsP50: turns.p50,
      turnsP99: turns.p99,
      turnsRatio: turns.rps / bareRun.rps,
      readsRps: readsRun.rps,
      readsRatio: readsRun.rps / bareRun.rps,
      readsP99: readsRun.p99,
      lagP50: afterTurns.lagP50,
      lagP99: afterTurns.lagP99,
      entriesPerBatch: afterTurns.entries / Math.max(1, afterTurns.batches),
      smallPeakRssMb: afterReads.peakRssMb,
    });
    console.log(`turns and reads, autocannon, 48 connections, ${seconds} s each (embedded stores, rate limits lifted)`);
    console.log(`  bare koa GET            ${Math.round(bareRun.rps).toLocaleString('en').padStart(8)} req/s   p50 ${bareRun.p50} ms  p99 ${bareRun.p99} ms`);
    console.log(`  turn POST lamp/fill     ${Math.round(turns.rps).toLocaleString('en').padStart(8)} turns/s p50 ${turns.p50} ms  p99 ${turns.p99} ms  (${(out.turnsRatio! * 100).toFixed(1)}% of bare; errors ${turns.errors}, non-2xx ${turns.non2xx}; ${out.entriesPerBatch!.toFixed(1)} entries per append)`);
    console.log(`  read GET world/lamp     ${Math.round(readsRun.rps).toLocaleString('en').padStart(8)} req/s   p50 ${readsRun.p50} ms  p99 ${readsRun.p99} ms  (${(out.readsRatio! * 100).toFixed(1)}% of bare; errors ${readsRun.errors}, non-2xx ${readsRun.non2xx})`);
    console.log(`  projection lag          p50 ${afterTurns.lagP50.toFixed(1)} ms  p99 ${afterTurns.lagP99.toFixed(1)} ms  (${afterTurns.lagSamples} appends)`);
    console.log(`  durable append          p50 ${afterTurns.appendP50.toFixed(1)} ms  p99 ${afterTurns.appendP99.toFixed(1)} ms  (issue to acknowledgement, inside the server)`);
    Object.assign(out, { appendP50: afterTurns.appendP50, appendP99: afterTurns.appendP99 });

    if (args.includes('--no-big')) return out;
    // 2. A big journal: generate, rebuild, start, memory.
    const big = path.join(root, 'big');
    const gen = child(['--generate', big, String(entries), String(cards)]);
    children.push(gen.proc);
    const g = await gen.first;
    console.log(`  journal of ${g.height.toLocaleString('en')} entries (${g.cards.toLocaleString('en')} cards) written in ${g.seconds.toFixed(1)} s through the world service (${Math.round(g.height / g.seconds).toLocaleString('en')} entries/s, read models kept up)`);
    const rb = child(['--rebuild', big]);
    children.push(rb.proc);
    const r = await rb.first;
    out.rebuildEps = r.events / r.seconds;
    console.log(`  rebuild of every read model: ${r.events.toLocaleString('en')} events in ${r.seconds.toFixed(1)} s = ${Math.round(out.rebuildEps).toLocaleString('en')} events/s (one pass, peak ${Math.round(r.peakRssMb)} MB)`);
    const warm = await timeToServe(big);
    children.push(warm.proc);
    const warmStats = await ask(warm.proc);
    warm.proc.disconnect();
    await new Promise((res) => warm.proc.once('exit', res));
    fs.rmSync(path.join(big, 'snapshots'), { recursive: true, force: true });
    const cold = await timeToServe(big);
    children.push(cold.proc);
    const bigBase = `http://127.0.0.1:${cold.info.port}`;
    const coldStats = await ask(cold.proc);
    // Some load on the big town, for the peak.
    const [bigToken] = cold.info.tokens as string[];
    void bigToken;
    const bigReads = await load({ url: `${bigBase}/health`, seconds: 1 });
    void bigReads;
    const bigPeak = await ask(cold.proc);
    cold.proc.disconnect();
    Object.assign(out, { startWarmMs: warm.ms, startColdMs: cold.ms, bigRssMb: coldStats.rssMb, bigPeakRssMb: Math.max(warmStats.peakRssMb, bigPeak.peakRssMb), bigCards: coldStats.cards });
    console.log(`  start to serving on ${g.height.toLocaleString('en')} entries: ${Math.round(warm.ms)} ms from the snapshot, ${Math.round(cold.ms)} ms from the journal alone (process spawn included; openTown ${Math.round(warmStats.startMs)} / ${Math.round(coldStats.startMs)} ms)`);
    console.log(`  server memory with ${coldStats.cards.toLocaleString('en')} cards: rss ${Math.round(coldStats.rssMb)} MB, heap ${Math.round(coldStats.heapMb)} MB, peak ${Math.round(out.bigPeakRssMb!)} MB`);
    return out;
  } finally {
    for (const c of children) if (c.connected) c.disconnect();
    await new Promise((r) => setTimeout(r, 500));
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const [mode, a1, a2, a3] = process.argv.slice(2);
if (mode === '--serve') void serveTown(a1!, Number(a2));
else if (mode === '--generate') void generate(a1!, Number(a2), Number(a3));
else if (mode === '--rebuild') void rebuild(a1!);
else if (mode === '--bare') void serveBare();
else if (process.argv[1] === self) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}

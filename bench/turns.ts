/**
 * Turns and reads end to end, on the embedded stores, at 48 connections (autocannon), against a
 * bare koa route measured in the same run:
 *   - durable turns/s and p50/p99 latency of a simple spell (`lamp fill measures=0`, each
 *     request a fresh intent, 48 guests, one a connection);
 *   - GET world/lamp reads/s;
 *   - projection lag p50/p99 (append committed -> every read model folded it);
 *   - rebuild events/s of every read model over a journal of `--entries` (200,000) entries;
 *   - start to serving on that journal, from the snapshot and from the journal alone, and the
 *     server's peak memory with `--cards` (100,000) cards in the town;
 *   - the stack's floor beside them: the same loads on a koa + router + koa-body app that does
 *     only a journal append or a read-store lookup (nothing of Town's), and the journal read
 *     alone beside the rebuild, so each goal can be set against what the stack itself allows.
 * Servers run in child processes so the load generator does not share their event loop. The
 * HTTP figures come from `--rounds` (3) interleaved rounds of bare / turns / reads, each round's
 * ratio against its own bare run, medians reported; beside the throughput ratio, the ratio of
 * server CPU per request (bare's over ours, every thread counted), which the machine's other load
 * disturbs far less.
 *
 *   npm run bench -- turns [--seconds=4] [--rounds=3] [--entries=200000] [--cards=100000] [--small] [--no-big]
 *
 * Rate limits are lifted in the bench (32 calls a minute per credential would measure the
 * limiter, not the turn).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { failedStatuses, flag, median } from './turns-figures.js';

/** The child processes measured (turns-servers.ts), compiled beside this file. */
const servers = fileURLToPath(new URL('./turns-servers.js', import.meta.url));
const self = fileURLToPath(import.meta.url);

function child(args: string[], flags: string[] = []): { proc: ChildProcess; first: Promise<any> } {
  // BENCH_PROF=<dir> writes a CPU profile of every child (for finding where the time goes).
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const proc = fork(servers, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--max-old-space-size=4096', ...flags, ...prof] });
  const first = new Promise<any>((resolve, reject) => {
    proc.once('message', resolve);
    proc.once('exit', (code) => reject(new Error(`bench child ${args[0]} exited (${code})`)));
  });
  return { proc, first };
}

const ask = (proc: ChildProcess, what: 'stats' | 'live' = 'stats') =>
  new Promise<any>((resolve) => {
    proc.once('message', resolve);
    proc.send({ ask: what });
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
  const codes = failedStatuses(r);
  return {
    rps: r.requests.average as number,
    total: r.requests.total as number,
    p50: r.latency.p50 as number,
    p99: r.latency.p99 as number,
    errors: (r.errors + r.timeouts) as number,
    non2xx: codes ? `${r.non2xx} (${codes})` : String(r.non2xx),
  };
}

/**
 * Loads a path in rounds of 2 s until the server's CPU per request settles (within 10 % of the
 * round before, after `atLeast` rounds, at most 12); returns the rounds' figures, first to last.
 */
async function warmUp(
  proc: ChildProcess,
  o: Omit<Parameters<typeof load>[0], 'seconds' | 'body'> & { body?: (round: number) => (n: number) => string },
  atLeast = 2,
): Promise<string> {
  const seen: number[] = [];
  for (let round = 0; round < 12; round++) {
    const before = (await ask(proc)).cpuUs;
    // Each round its own intents: a repeated intent is answered from the first receipt, not decided.
    const run = await load({ ...o, body: o.body?.(round), seconds: 2 });
    const per = ((await ask(proc)).cpuUs - before) / Math.max(1, run.total);
    seen.push(Math.round(per));
    const last = seen[seen.length - 2];
    if (round + 1 >= atLeast && last !== undefined && Math.abs(per - last) <= last * 0.1) break;
  }
  return seen.join(' → ');
}

async function timeToServe(dir: string): Promise<{ ms: number; proc: ChildProcess; info: any }> {
  const started = performance.now();
  const c = child(['--serve', dir, '0'], ['--expose-gc']);
  const info = await c.first;
  return { ms: performance.now() - started, proc: c.proc, info };
}

/** `a` → `b` of the threads' CPU, per request, the busiest first: `main 210+40, pool 30+60`. */
function perThread(a: Record<string, { user: number; system: number }>, b: Record<string, { user: number; system: number }>, requests: number): string {
  const rows = Object.entries(b).map(([name, t]) => {
    const was = a[name] ?? { user: 0, system: 0 };
    return { name, user: (t.user - was.user) / Math.max(1, requests), system: (t.system - was.system) / Math.max(1, requests) };
  });
  return rows
    .filter((r) => r.user + r.system >= 1)
    .sort((x, y) => y.user + y.system - (x.user + x.system))
    .map((r) => `${r.name} ${r.user.toFixed(0)}+${r.system.toFixed(0)}`)
    .join(', ');
}

/**
 * The figures under the names the performance goals give them, as the last line, so runs can be compared by a
 * program (`BENCH_JSON {...}`); a figure the run did not measure (`--no-big`) is absent.
 */
function benchJson(out: Record<string, number>): Record<string, number> {
  const named: Record<string, number | undefined> = {
    turnsPerSec: out.turnsRps,
    turnCpuUs: out.turnCpuUs,
    turnP99Ms: out.turnsP99,
    floorPostPerSec: out.floorPostPerSec,
    floorPostCpuUs: out.floorPostCpuUs,
    readsPerSec: out.readsRps,
    readCpuUs: out.readCpuUs,
    floorReadPerSec: out.floorReadPerSec,
    floorReadCpuUs: out.floorReadCpuUs,
    turnCpuToFloor: out.turnCpuUs! / out.floorPostCpuUs!,
    readCpuToFloor: out.readCpuUs! / out.floorReadCpuUs!,
    rebuildEventsPerSec: out.rebuildEps,
    journalReadEventsPerSec: out.journalReadEps,
    startSnapshotMs: out.startWarmMs,
    startJournalMs: out.startColdMs,
    rssMb: out.bigRssMb ?? out.smallPeakRssMb,
  };
  const json = Object.fromEntries(
    Object.entries(named)
      .filter(([, v]) => v !== undefined && Number.isFinite(v))
      .map(([k, v]) => [k, Math.round(v! * 100) / 100]),
  );
  console.log(`BENCH_JSON ${JSON.stringify(json)}`);
  return out;
}

export async function main(args: string[]): Promise<Record<string, number>> {
  const seconds = flag(args, 'seconds', 4);
  const rounds = Math.max(1, flag(args, 'rounds', 3));
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
    // BENCH_TOWN_FLAGS: Node flags for the measured town alone (to compare V8 settings against the floor).
    const town = child(['--serve', path.join(root, 'small'), '48'], (process.env.BENCH_TOWN_FLAGS ?? '').split(' ').filter(Boolean));
    children.push(town.proc);
    const { port, tokens } = await town.first;
    const base = `http://127.0.0.1:${port}`;
    const floor = child(['--floor', path.join(root, 'floor')]);
    children.push(floor.proc);
    const floorBase = `http://127.0.0.1:${(await floor.first).port}/floor`;
    const turnBody = (prefix: string) => (n: number) => JSON.stringify({ intent: `${prefix}-${n}`, fields: { measures: 0 } });
    // Requests a finished load left in flight (a turn waits for its append) must not meet the
    // next load's: 48 connections are the spec's 48 workers, and more at once is `busy`.
    const settle = () => new Promise((r) => setTimeout(r, 1000));
    // Warm every path until V8 has compiled it: Town's turn path is far more code than the
    // floor's, and its optimising compiler keeps the helper threads busy for ~10 s of load (on
    // 2 shared cores). Measured before that, a turn's CPU is mostly the JIT's, not Town's.
    const warmTurns = await warmUp(
      town.proc,
      { url: `${base}/AGENTS.md/world/lamp/fill`, method: 'POST', tokens, body: (round) => turnBody(`warm${round}`) },
      5,
    );
    await settle();
    const warmReads = await warmUp(town.proc, { url: `${base}/AGENTS.md/world/lamp`, tokens });
    await warmUp(bare.proc, { url: `http://127.0.0.1:${barePort}/` });
    await warmUp(floor.proc, { url: `${floorBase}/turn/lamp/fill`, method: 'POST', body: (round) => turnBody(`fwarm${round}`) });
    await settle();
    await warmUp(floor.proc, { url: `${floorBase}/read/lamp` });
    console.log(`  warm-up: turns ${warmTurns}, reads ${warmReads} (µs of CPU per request, each 2 s of load, until it settles)`);
    await settle();
    await ask(town.proc);
    // Interleaved rounds: the machine's load drifts within a minute, so each round's ratio is
    // taken against the bare route measured beside it, and the medians are reported.
    type Run = Awaited<ReturnType<typeof load>>;
    const rows: {
      bare: Run;
      turns: Run;
      reads: Run;
      floorTurns: Run;
      floorReads: Run;
      bareCpu: number;
      turnCpu: number;
      readCpu: number;
      floorTurnCpu: number;
      floorReadCpu: number;
      turnThreads: string;
      readThreads: string;
      floorTurnThreads: string;
    }[] = [];
    let afterTurns: any;
    let afterReads: any;
    for (let round = 0; round < rounds; round++) {
      const b0 = (await ask(bare.proc)).cpuUs;
      const bareRun = await load({ url: `http://127.0.0.1:${barePort}/`, seconds });
      const b1 = (await ask(bare.proc)).cpuUs;
      const t0s = await ask(town.proc);
      const t0 = t0s.cpuUs;
      const turns = await load({ url: `${base}/AGENTS.md/world/lamp/fill`, seconds, method: 'POST', tokens, body: turnBody(`t${round}`) });
      await settle();
      afterTurns = await ask(town.proc);
      const readsRun = await load({ url: `${base}/AGENTS.md/world/lamp`, seconds, tokens });
      afterReads = await ask(town.proc);
      const f0s = await ask(floor.proc);
      const f0 = f0s.cpuUs;
      const floorTurns = await load({ url: `${floorBase}/turn/lamp/fill`, seconds, method: 'POST', body: turnBody(`f${round}`) });
      await settle();
      const f1s = await ask(floor.proc);
      const f1 = f1s.cpuUs;
      const floorReads = await load({ url: `${floorBase}/read/lamp`, seconds });
      const f2 = (await ask(floor.proc)).cpuUs;
      rows.push({
        bare: bareRun,
        turns,
        reads: readsRun,
        floorTurns,
        floorReads,
        bareCpu: (b1 - b0) / Math.max(1, bareRun.total),
        turnCpu: (afterTurns.cpuUs - t0) / Math.max(1, turns.total),
        readCpu: (afterReads.cpuUs - afterTurns.cpuUs) / Math.max(1, readsRun.total),
        floorTurnCpu: (f1 - f0) / Math.max(1, floorTurns.total),
        floorReadCpu: (f2 - f1) / Math.max(1, floorReads.total),
        turnThreads: perThread(t0s.threads, afterTurns.threads, turns.total),
        readThreads: perThread(afterTurns.threads, afterReads.threads, readsRun.total),
        floorTurnThreads: perThread(f0s.threads, f1s.threads, floorTurns.total),
      });
      if (round < rounds - 1) await settle();
    }
    town.proc.disconnect();
    bare.proc.disconnect();
    floor.proc.disconnect();
    const m = (f: (r: (typeof rows)[number]) => number) => median(rows.map(f));
    const range = (f: (r: (typeof rows)[number]) => number, scale = 1, digits = 0) => {
      const xs = rows.map(f).map((x) => x * scale);
      return `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
    };
    const non2xx = (f: (r: (typeof rows)[number]) => Run) => rows.map((r) => f(r).non2xx).join(', ');
    Object.assign(out, {
      bareRps: m((r) => r.bare.rps),
      turnsRps: m((r) => r.turns.rps),
      turnsP50: m((r) => r.turns.p50),
      turnsP99: m((r) => r.turns.p99),
      turnsRatio: m((r) => r.turns.rps / r.bare.rps),
      readsRps: m((r) => r.reads.rps),
      readsRatio: m((r) => r.reads.rps / r.bare.rps),
      readsP99: m((r) => r.reads.p99),
      turnCpuRatio: m((r) => r.bareCpu / r.turnCpu),
      readCpuRatio: m((r) => r.bareCpu / r.readCpu),
      floorTurnsRatio: m((r) => r.floorTurns.rps / r.bare.rps),
      floorReadsRatio: m((r) => r.floorReads.rps / r.bare.rps),
      lagP50: afterTurns.lagP50,
      lagP99: afterTurns.lagP99,
      entriesPerBatch: afterTurns.entries / Math.max(1, afterTurns.batches),
      smallPeakRssMb: afterReads.peakRssMb,
    });
    console.log(
      `turns and reads, autocannon, 48 connections, ${rounds} interleaved rounds of ${seconds} s each, medians (ranges) (embedded stores, rate limits lifted)`,
    );
    console.log(
      `  bare koa GET            ${Math.round(out.bareRps!).toLocaleString('en').padStart(8)} req/s   (${range((r) => r.bare.rps)})  p99 ${m((r) => r.bare.p99)} ms  cpu ${m((r) => r.bareCpu).toFixed(0)} µs/req`,
    );
    console.log(
      `  turn POST lamp/fill     ${Math.round(out.turnsRps!).toLocaleString('en').padStart(8)} turns/s (${range((r) => r.turns.rps)})  p50 ${out.turnsP50} ms  p99 ${out.turnsP99} ms (${range((r) => r.turns.p99)})  cpu ${m((r) => r.turnCpu).toFixed(0)} µs/turn`,
    );
    console.log(
      `                          ${(out.turnsRatio! * 100).toFixed(1)}% of bare (${range((r) => r.turns.rps / r.bare.rps, 100, 1)}); by CPU per request ${(out.turnCpuRatio! * 100).toFixed(1)}%; errors ${rows.map((r) => r.turns.errors).join(', ')}, non-2xx ${non2xx((r) => r.turns)}; ${out.entriesPerBatch!.toFixed(1)} entries per append`,
    );
    console.log(
      `  read GET world/lamp     ${Math.round(out.readsRps!).toLocaleString('en').padStart(8)} req/s   (${range((r) => r.reads.rps)})  p50 ${m((r) => r.reads.p50)} ms  p99 ${out.readsP99} ms  cpu ${m((r) => r.readCpu).toFixed(0)} µs/req`,
    );
    console.log(
      `                          ${(out.readsRatio! * 100).toFixed(1)}% of bare (${range((r) => r.reads.rps / r.bare.rps, 100, 1)}); by CPU per request ${(out.readCpuRatio! * 100).toFixed(1)}%; errors ${rows.map((r) => r.reads.errors).join(', ')}, non-2xx ${non2xx((r) => r.reads)}`,
    );
    console.log(
      `  floor: durable POST     ${Math.round(m((r) => r.floorTurns.rps))
        .toLocaleString('en')
        .padStart(
          8,
        )} req/s   ${(out.floorTurnsRatio! * 100).toFixed(1)}% of bare (${range((r) => r.floorTurns.rps / r.bare.rps, 100, 1)})  p99 ${m((r) => r.floorTurns.p99)} ms  cpu ${m((r) => r.floorTurnCpu).toFixed(0)} µs/req  (koa + router + koa-body + a journal append, nothing of Town's; non-2xx ${non2xx((r) => r.floorTurns)})`,
    );
    console.log(
      `  floor: store read       ${Math.round(m((r) => r.floorReads.rps))
        .toLocaleString('en')
        .padStart(
          8,
        )} req/s   ${(out.floorReadsRatio! * 100).toFixed(1)}% of bare (${range((r) => r.floorReads.rps / r.bare.rps, 100, 1)})  p99 ${m((r) => r.floorReads.p99)} ms  cpu ${m((r) => r.floorReadCpu).toFixed(0)} µs/req  (koa + router + a read-store findOne; non-2xx ${non2xx((r) => r.floorReads)})`,
    );
    console.log(
      `  projection lag          p50 ${afterTurns.lagP50.toFixed(1)} ms  p99 ${afterTurns.lagP99.toFixed(1)} ms  (${afterTurns.lagSamples} appends, last round)`,
    );
    console.log(
      `  durable append          p50 ${afterTurns.appendP50.toFixed(1)} ms  p99 ${afterTurns.appendP99.toFixed(1)} ms  (issue to acknowledgement, inside the server, last round)`,
    );
    Object.assign(out, { appendP50: afterTurns.appendP50, appendP99: afterTurns.appendP99 });
    const last = rows[rows.length - 1]!;
    console.log(`  CPU by thread, µs per request (user+system, last round): turn ${last.turnThreads}`);
    console.log(`                                                     read ${last.readThreads}`);
    console.log(`                                              floor POST ${last.floorTurnThreads}`);
    Object.assign(out, {
      turnCpuUs: m((r) => r.turnCpu),
      readCpuUs: m((r) => r.readCpu),
      floorPostPerSec: m((r) => r.floorTurns.rps),
      floorPostCpuUs: m((r) => r.floorTurnCpu),
      floorReadPerSec: m((r) => r.floorReads.rps),
      floorReadCpuUs: m((r) => r.floorReadCpu),
    });

    if (args.includes('--no-big')) return benchJson(out);
    // 2. A big journal: generate, rebuild, start, memory.
    const big = path.join(root, 'big');
    const gen = child(['--generate', big, String(entries), String(cards)]);
    children.push(gen.proc);
    const g = await gen.first;
    console.log(
      `  journal of ${g.height.toLocaleString('en')} entries (${g.cards.toLocaleString('en')} cards) written in ${g.seconds.toFixed(1)} s through the world service (${Math.round(g.height / g.seconds).toLocaleString('en')} entries/s, read models kept up)`,
    );
    const rb = child(['--rebuild', big], ['--max-semi-space-size=64']);
    children.push(rb.proc);
    const r = await rb.first;
    out.rebuildEps = r.events / r.seconds;
    console.log(
      `  rebuild of every read model: ${r.events.toLocaleString('en')} events in ${r.seconds.toFixed(1)} s = ${Math.round(out.rebuildEps).toLocaleString('en')} events/s (one pass, peak ${Math.round(r.peakRssMb)} MB)`,
    );
    out.journalReadEps = r.read / r.readSeconds;
    console.log(
      `  floor: reading the journal alone (decode, no fold, no write): ${r.read.toLocaleString('en')} events in ${r.readSeconds.toFixed(1)} s = ${Math.round(out.journalReadEps).toLocaleString('en')} events/s`,
    );
    const warm = await timeToServe(big);
    children.push(warm.proc);
    const warmStats = await ask(warm.proc);
    const warmLive = await ask(warm.proc, 'live');
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
    const coldLive = await ask(cold.proc, 'live');
    cold.proc.disconnect();
    Object.assign(out, {
      startWarmMs: warm.ms,
      startColdMs: cold.ms,
      bigRssMb: coldStats.rssMb,
      bigPeakRssMb: Math.max(warmStats.peakRssMb, bigPeak.peakRssMb),
      bigCards: coldStats.cards,
    });
    console.log(
      `  start to serving on ${g.height.toLocaleString('en')} entries: ${Math.round(warm.ms)} ms from the snapshot, ${Math.round(cold.ms)} ms from the journal alone (process spawn included; openTown ${Math.round(warmStats.startMs)} / ${Math.round(coldStats.startMs)} ms)`,
    );
    const steps = (s: Record<string, number>) =>
      Object.entries(s ?? {})
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
    console.log(`  openTown's steps (ms): from the snapshot ${steps(warmStats.startSteps)}; from the journal alone ${steps(coldStats.startSteps)}`);
    console.log(
      `  server memory with ${coldStats.cards.toLocaleString('en')} cards: rss ${Math.round(coldStats.rssMb)} MB, heap ${Math.round(coldStats.heapMb)} MB, peak ${Math.round(out.bigPeakRssMb!)} MB (started from the journal alone: everything decoded, as after a long run); from the snapshot: rss ${Math.round(warmStats.rssMb)} MB, heap ${Math.round(warmStats.heapMb)} MB`,
    );
    console.log(
      `  live after a full collection: ${Math.round(coldLive.liveHeapMb)} MB of heap (rss ${Math.round(coldLive.liveRssMb)} MB) started from the journal alone; ${Math.round(warmLive.liveHeapMb)} MB (rss ${Math.round(warmLive.liveRssMb)} MB) from the snapshot`,
    );
    Object.assign(out, { bigLiveHeapMb: coldLive.liveHeapMb, warmLiveHeapMb: warmLive.liveHeapMb });
    return benchJson(out);
  } finally {
    for (const c of children) if (c.connected) c.disconnect();
    // A town closing writes to its data directory until it exits: remove it only then.
    const exited = (c: ChildProcess) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)));
    await Promise.race([Promise.all(children.map(exited)), new Promise((r) => setTimeout(r, 30_000))]);
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === self) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}

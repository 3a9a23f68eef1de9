/**
 * What the repository costs, in one run:
 *   - durable turns/s and p50/p99 of a simple spell (`lamp fill`, 48 connections) on a town with
 *     the repository projection and on one without it, in interleaved rounds (each round's ratio
 *     taken against the other town measured beside it; medians reported), and how long the
 *     repository took after each load to sign what the load journaled;
 *   - commit signing throughput: the repository folded (records, tree, signed commits of at most
 *     200 operations, frames) over a journal of `--entries` (20,000) entries, in units of 1,000
 *     (a projector catching up) and of 50 (a live town's units), beside the bare signature rates.
 *
 *   npm run bench -- repository [--seconds=4] [--rounds=3] [--warm=1] [--entries=20000] [--aa]
 *
 * `--aa` runs both towns without the repository: the ratios an A/A run gives are the machine's
 * spread, against which an on/off ratio is read.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign as nodeSign, generateKeyPairSync } from 'node:crypto';
import { Secp256k1Keypair } from '@atproto/crypto';
import nacl from 'tweetnacl';
import { libraryPrograms } from '../src/cards/kernel/library.js';
import { allProjections } from '../src/projectors/registry.js';
import { rebuildProjections } from '../src/projections/rebuild.js';
import { loadRepositoryKeys } from '../src/repository/keys.js';
import { firehoseCollection, type FrameDoc } from '../src/repository/projection.js';
import { openEmbeddedEventStore } from '../src/stores/embedded/event-store.js';
import { openEmbeddedReadStore } from '../src/stores/embedded/read-store.js';
import { flag, median } from './turns-figures.js';

const servers = fileURLToPath(new URL('./turns-servers.js', import.meta.url));

function child(args: string[], env: NodeJS.ProcessEnv = {}): { proc: ChildProcess; first: Promise<any> } {
  const proc = fork(servers, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
    // BENCH_PROF=<dir>: a CPU profile of every child and thread (the repository's thread among them).
    execArgv: ['--max-old-space-size=4096', ...(process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [])],
  });
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

async function load(url: string, seconds: number, tokens: string[], prefix: string) {
  const name = 'autocannon';
  const autocannon = (await import(name)).default;
  let n = 0;
  let client = 0;
  const r = await autocannon({
    url,
    connections: 48,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupClient: (c: { setHeaders(h: Record<string, string>): void }) => {
      c.setHeaders({ 'content-type': 'application/json', authorization: `Bearer ${tokens[client++ % tokens.length]}` });
    },
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify({ intent: `${prefix}-${n++}`, fields: { measures: 0 } }) }) }],
  });
  return {
    rps: r.requests.average as number,
    p50: r.latency.p50 as number,
    p99: r.latency.p99 as number,
    non2xx: r.non2xx as number,
    errors: (r.errors + r.timeouts) as number,
  };
}

/** CPU of the threads with a nice value of their own (the repository's projector), µs. */
const niceCpu = (stats: { threads: Record<string, { user: number; system: number }> }) =>
  Object.entries(stats.threads)
    .filter(([name]) => name.startsWith('nice'))
    .reduce((sum, [, t]) => sum + t.user + t.system, 0);

type Threads = { threads: Record<string, { user: number; system: number }>; height: number };
/** Each thread's CPU from `a` to `b`, µs per turn (of those between them, or `turns`). */
const byThread = (a: Threads, b: Threads, turns = b.height - a.height) =>
  Object.entries(b.threads)
    .map(([name, t]) => [name, (t.user + t.system - ((a.threads[name]?.user ?? 0) + (a.threads[name]?.system ?? 0))) / Math.max(1, turns)] as const)
    .filter(([, us]) => us >= 1)
    .sort((x, y) => y[1] - x[1])
    .map(([name, us]) => `${name} ${Math.round(us)}`)
    .join(', ');

/** Waits until the repository has folded the town's journal; the seconds it took. */
async function drained(proc: ChildProcess, none = false): Promise<number> {
  if (none) return 0;
  const started = performance.now();
  for (;;) {
    const s = await ask(proc);
    if (s.repositoryCheckpoint >= s.head) return (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function signRates(): Record<string, number> {
  const msg = new Uint8Array(120).fill(7);
  const rate = (n: number, f: () => unknown) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) f();
    return Math.round(n / ((performance.now() - t) / 1000));
  };
  const seed = new Uint8Array(32).fill(3);
  const pair = nacl.sign.keyPair.fromSeed(seed);
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    ed25519NodeSignsPerS: rate(5000, () => nodeSign(null, msg, privateKey)),
    ed25519TweetnaclSignsPerS: rate(200, () => nacl.sign.detached(msg, pair.secretKey)),
  };
}

export async function main(args: string[]): Promise<Record<string, number>> {
  const seconds = flag(args, 'seconds', 4);
  const rounds = Math.max(1, flag(args, 'rounds', 3));
  const entries = flag(args, 'entries', 20_000);
  const warm = flag(args, 'warm', 1);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'town-bench-repo-'));
  const out: Record<string, number> = {};
  const children: ChildProcess[] = [];
  try {
    // 1. Turns with the repository and without it, interleaved.
    // --aa: both towns without the repository (an A/A run: how far two identical towns differ on this machine).
    const aa = args.includes('--aa');
    const on = child(['--serve', path.join(root, 'on'), '48'], aa ? { BENCH_REPOSITORY: 'off' } : {});
    const off = child(['--serve', path.join(root, 'off'), '48'], { BENCH_REPOSITORY: 'off' });
    children.push(on.proc, off.proc);
    const towns = { on: await on.first, off: await off.first };
    const url = (port: number) => `http://127.0.0.1:${port}/AGENTS.md/world/lamp/fill`;
    // Warm both (the JIT takes seconds of load to compile a turn's path: docs/performance.md).
    await load(url(towns.on.port), warm, towns.on.tokens, 'warm');
    await load(url(towns.off.port), warm, towns.off.tokens, 'warm');
    await drained(on.proc, aa);
    const rows: {
      on: Awaited<ReturnType<typeof load>>;
      off: Awaited<ReturnType<typeof load>>;
      drain: number;
      onCpu: number;
      offCpu: number;
      onLoadCpu: number;
      offLoadCpu: number;
      repoLoadCpu: number;
    }[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so neither always meets the machine as the other left it.
      const first = round % 2 === 0 ? 'on' : 'off';
      const runs: Partial<Record<'on' | 'off', Awaited<ReturnType<typeof load>>>> = {};
      let drain = 0;
      const cpu: Partial<Record<'on' | 'off', number>> = {};
      const during: Partial<Record<'on' | 'off', number>> = {};
      let repoDuring = 0;
      for (const which of first === 'on' ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
        const proc = which === 'on' ? on.proc : off.proc;
        const before = await ask(proc);
        runs[which] = await load(url(towns[which].port), seconds, towns[which].tokens, `r${round}`);
        // CPU per turn while the load ran (the repository gives way to turns: it folds after).
        const loaded = await ask(proc);
        during[which] = (loaded.cpuUs - before.cpuUs) / Math.max(1, loaded.height - before.height);
        if (which === 'on') repoDuring = (niceCpu(loaded) - niceCpu(before)) / Math.max(1, loaded.height - before.height);
        // BENCH_THREADS=1: each thread's CPU per turn during the load.
        if (process.env.BENCH_THREADS) console.log(`  ${which} during the load, µs a turn by thread: ${byThread(before, loaded)}`);
        // The repository signs what the load journaled before the next load starts.
        if (which === 'on') drain = await drained(on.proc, aa);
        // CPU per turn, every thread, the repository's signing of the load's entries included.
        const after = await ask(proc);
        if (process.env.BENCH_THREADS && which === 'on') {
          console.log(`  on while the repository caught up, µs a turn of the load by thread: ${byThread(loaded, after, loaded.height - before.height)}`);
        }
        cpu[which] = (after.cpuUs - before.cpuUs) / Math.max(1, after.height - before.height);
        await new Promise((r) => setTimeout(r, 1000));
      }
      rows.push({
        on: runs.on!,
        off: runs.off!,
        drain,
        onCpu: cpu.on!,
        offCpu: cpu.off!,
        onLoadCpu: during.on!,
        offLoadCpu: during.off!,
        repoLoadCpu: repoDuring,
      });
      console.log(
        `round ${round + 1}: on ${Math.round(runs.on!.rps)} turns/s p99 ${runs.on!.p99} ms ${Math.round(cpu.on!)} µs CPU/turn (${Math.round(during.on!)} during the load, of which the repository's thread ${Math.round(repoDuring)}; repository caught up ${drain.toFixed(1)} s after) | off ${Math.round(runs.off!.rps)} turns/s p99 ${runs.off!.p99} ms ${Math.round(cpu.off!)} µs CPU/turn | non-2xx ${runs.on!.non2xx}/${runs.off!.non2xx}`,
      );
    }
    const m = (f: (r: (typeof rows)[number]) => number) => median(rows.map(f));
    Object.assign(out, {
      onTurnsPerS: m((r) => r.on.rps),
      offTurnsPerS: m((r) => r.off.rps),
      onOffRatio: m((r) => r.on.rps / r.off.rps),
      onP50: m((r) => r.on.p50),
      offP50: m((r) => r.off.p50),
      onP99: m((r) => r.on.p99),
      offP99: m((r) => r.off.p99),
      drainSeconds: m((r) => r.drain),
      onCpuUsPerTurn: m((r) => r.onCpu),
      offCpuUsPerTurn: m((r) => r.offCpu),
      repositoryCpuUsPerEntry: m((r) => r.onCpu - r.offCpu),
      onLoadCpuUsPerTurn: m((r) => r.onLoadCpu),
      repositoryThreadLoadCpuUsPerTurn: m((r) => r.repoLoadCpu),
      loadCpuRatio: m((r) => r.onLoadCpu / r.offLoadCpu),
      p99Ratio: m((r) => r.on.p99 / r.off.p99),
    });
    console.log(
      `turns with the repository ${Math.round(out.onTurnsPerS!)}/s (p99 ${out.onP99} ms) against ${Math.round(out.offTurnsPerS!)}/s (p99 ${out.offP99} ms) without: ratio ${(out.onOffRatio! * 100).toFixed(1)} % (median of ${rounds} rounds); CPU per turn ${Math.round(out.onCpuUsPerTurn!)} µs against ${Math.round(out.offCpuUsPerTurn!)} µs (the repository ~${Math.round(out.repositoryCpuUsPerEntry!)} µs an entry); during the load ${Math.round(out.onLoadCpuUsPerTurn!)} µs, the repository's thread ${Math.round(out.repositoryThreadLoadCpuUsPerTurn!)} µs (${(out.loadCpuRatio! * 100).toFixed(1)} % of without's, median of the rounds' ratios); p99 ratio ${(out.p99Ratio! * 100).toFixed(1)} %`,
    );
    on.proc.disconnect();
    off.proc.disconnect();

    // 2. Signing throughput over a journal (--entries=0: not measured).
    if (entries <= 0) return out;
    const dir = path.join(root, 'journal');
    const gen = child(['--generate', dir, String(entries), '0']);
    children.push(gen.proc);
    const made = await gen.first;
    for (const unit of [1000, 50]) {
      const events = await openEmbeddedEventStore({ dataDir: dir });
      const reads = await openEmbeddedReadStore({ dataDir: path.join(root, `fold-${unit}`) });
      const repository = allProjections(libraryPrograms(), { keys: () => loadRepositoryKeys(dir) }).repository;
      const r = await rebuildProjections(events, reads, [repository], { batch: unit });
      const frames = (await reads.collection(firehoseCollection).find({}, { sort: { _id: -1 }, limit: 1 })) as FrameDoc[];
      const commits = frames[0]?.seq ?? 0;
      out[`unit${unit}EntriesPerS`] = r.events / r.seconds;
      out[`unit${unit}CommitsPerS`] = commits / r.seconds;
      console.log(
        `repository over ${made.height} entries in units of ${unit}: ${Math.round(r.events / r.seconds)} entries/s, ${commits} signed commits (${(commits / r.seconds).toFixed(1)}/s) in ${r.seconds.toFixed(1)} s`,
      );
      await reads.close();
      await events.close();
    }
    const k256 = await Secp256k1Keypair.create();
    const msg = new Uint8Array(120).fill(7);
    const t = performance.now();
    for (let i = 0; i < 300; i++) await k256.sign(msg);
    out.k256SignsPerS = Math.round(300 / ((performance.now() - t) / 1000));
    Object.assign(out, signRates());
    console.log(
      `signatures alone: K-256 ${out.k256SignsPerS}/s (a commit), ed25519 ${out.ed25519NodeSignsPerS}/s by node:crypto (a receipt), ${out.ed25519TweetnaclSignsPerS}/s by tweetnacl`,
    );
    return out;
  } finally {
    for (const c of children) if (c.connected) c.disconnect();
    // Each town writes its stores' state as it exits: remove their directories after.
    await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

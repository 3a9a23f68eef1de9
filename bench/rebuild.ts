/**
 * A rebuild of every read model against its floor, the journal read alone, in the same process
 * and the same run (the goal: a rebuild at >= 35 % of the journal-read-alone rate, with
 * the digests of the live read models):
 *
 *   npm run bench -- rebuild [--dir=<town>] [--entries=200000] [--cards=100000] [--rounds=2] [--batch=10000] [--repository]
 *
 * `--dir` names a town made by `bench/turns-servers.ts --generate` (made there first when the
 * directory does not exist, and kept, since generating 200,000 entries takes minutes); the bench
 * works on a copy of it. Each round reads the journal alone (decode, no fold, no write) and then
 * rebuilds every read model but the repository's; after each rebuild the digests are compared
 * with those of the live read models the town folded. `--repository` adds a last rebuild with
 * the repository's projection too (unsigned: no keys), the figure its own thread's owner cares
 * about. Wall-clock rates and CPU per event are both printed: on a shared machine the CPU per
 * event moves far less. BENCH_CPU=<file>: a CPU profile of the rebuilds alone (not the reads,
 * the digests or the start); BENCH_NODE_FLAGS: node flags for the measuring process
 * (`--trace-gc`, say).
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { flag, median } from './turns-figures.js';

const self = fileURLToPath(import.meta.url);
const servers = fileURLToPath(new URL('./turns-servers.js', import.meta.url));

interface Round {
  read: number;
  readSeconds: number;
  readCpuUs: number;
  events: number;
  seconds: number;
  cpuUs: number;
  same: boolean;
  digests: string[];
}

function run(file: string, args: string[], flags: string[] = []): Promise<any> {
  const proc = fork(file, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--max-old-space-size=4096', ...flags] });
  return new Promise((resolve, reject) => {
    let answer: unknown;
    proc.on('message', (m) => (answer = m));
    proc.once('exit', (code) => (code === 0 && answer !== undefined ? resolve(answer) : reject(new Error(`bench child ${args[0]} exited (${code})`))));
  });
}

export async function main(args: string[]): Promise<void> {
  const rounds = flag(args, 'rounds', 2);
  const entries = flag(args, 'entries', 200_000);
  const cards = flag(args, 'cards', 100_000);
  const named = args.find((a) => a.startsWith('--dir='))?.slice('--dir='.length);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'town-bench-rebuild-'));
  try {
    const town = named ?? path.join(root, 'town');
    if (!fs.existsSync(town)) {
      const g = await run(servers, ['--generate', town, String(entries), String(cards)]);
      console.log(`  journal of ${g.height.toLocaleString('en')} entries (${g.cards.toLocaleString('en')} cards) written in ${g.seconds.toFixed(1)} s`);
    }
    const copy = path.join(root, 'copy');
    fs.cpSync(town, copy, { recursive: true });
    // As `npm run rebuild` runs it (package.json): its node flags.
    const batch = flag(args, 'batch', 10_000);
    const r = await run(
      self,
      ['--measure', copy, String(rounds), args.includes('--repository') ? 'repository' : '', String(batch)],
      ['--max-semi-space-size=64', ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])],
    );
    const rows = r.rounds as Round[];
    for (const [i, x] of rows.entries()) {
      const readEps = x.read / x.readSeconds;
      const eps = x.events / x.seconds;
      console.log(
        `  round ${i + 1}: journal read alone ${Math.round(readEps).toLocaleString('en')} events/s (${(x.readCpuUs / x.read).toFixed(1)} µs CPU each); rebuild ${Math.round(eps).toLocaleString('en')} events/s (${(x.cpuUs / x.events).toFixed(1)} µs CPU each) = ${((100 * eps) / readEps).toFixed(1)} % of the read (by CPU ${((100 * x.readCpuUs) / x.read / (x.cpuUs / x.events)).toFixed(1)} %); digests ${x.same ? 'equal to the live ones' : 'DIFFER'}`,
      );
    }
    if (rows.some((x) => !x.same)) {
      console.log(`  live digests:    ${(r.live as string[]).join(' ')}`);
      for (const x of rows) console.log(`  rebuilt digests: ${x.digests.join(' ')}`);
      process.exitCode = 1;
    }
    const readEps = median(rows.map((x) => x.read / x.readSeconds));
    const eps = median(rows.map((x) => x.events / x.seconds));
    console.log(`  rebuild of every read model (repository aside): ${((100 * eps) / readEps).toFixed(1)} % of the journal read alone (medians, goal >= 35 %)`);
    if (r.repository) {
      const x = r.repository as { events: number; seconds: number; cpuUs: number };
      console.log(
        `  with the repository's projection too (unsigned): ${Math.round(x.events / x.seconds).toLocaleString('en')} events/s (${(x.cpuUs / x.events).toFixed(1)} µs CPU each) = ${((100 * x.events) / x.seconds / readEps).toFixed(1)} % of the read`,
      );
    }
    const json: Record<string, number> = { rebuildEventsPerSec: eps, journalReadEventsPerSec: readEps, rebuildShareOfRead: eps / readEps };
    if (r.repository) json.rebuildWithRepositoryEventsPerSec = r.repository.events / r.repository.seconds;
    console.log(`BENCH_JSON ${JSON.stringify(json)}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** The measuring child: reads, rebuilds and digests in one process, on the copy. */
async function measure(dir: string, rounds: number, repository: boolean, batch: number): Promise<void> {
  const { openEventStore } = await import('../src/stores/open-event-store.js');
  const { openReadStore } = await import('../src/stores/open-read-store.js');
  const { allProjections } = await import('../src/projectors/registry.js');
  const { libraryPrograms } = await import('../src/cards/kernel/library.js');
  const { rebuildProjections } = await import('../src/projections/rebuild.js');
  const { digestProjection } = await import('../src/projections/digest.js');
  const events = await openEventStore({ dataDir: dir });
  const reads = await openReadStore({ dataDir: dir });
  const programs = libraryPrograms();
  // Fresh projection objects for every rebuild, as `npm run rebuild` makes them.
  const fresh = () => Object.values(allProjections(programs));
  const chosen = fresh().filter((p) => p.name !== 'repository');
  const digests = async () => {
    const out: string[] = [];
    for (const p of chosen) {
      const d = await digestProjection(reads, p);
      out.push(`${d.projection}:${d.documents}:${d.sha256.slice(0, 12)}`);
    }
    return out;
  };
  const profile = await profiler();
  const live = await digests();
  const out: Round[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    let cpuBefore = cpu();
    let read = 0;
    for await (const e of events.readAll()) if (e) read++;
    const readSeconds = (performance.now() - started) / 1000;
    const readCpuUs = cpu() - cpuBefore;
    cpuBefore = cpu();
    await profile?.start();
    const r = await rebuildProjections(
      events,
      reads,
      fresh().filter((p) => p.name !== 'repository'),
      { batch },
    );
    await profile?.pause();
    const cpuUs = cpu() - cpuBefore;
    const got = await digests();
    out.push({ read, readSeconds, readCpuUs, events: r.events, seconds: r.seconds, cpuUs, same: got.join() === live.join(), digests: got });
  }
  let withRepository: { events: number; seconds: number; cpuUs: number } | undefined;
  if (repository) {
    const before = cpu();
    const r = await rebuildProjections(events, reads, fresh(), { batch });
    withRepository = { ...r, cpuUs: cpu() - before };
  }
  await profile?.stop();
  await reads.close();
  await events.close();
  process.send!({ live, rounds: out, repository: withRepository });
}

/** BENCH_CPU=<file>: the rebuilds' CPU profile (the spans between start and pause, written at stop). */
async function profiler(): Promise<{ start(): Promise<void>; pause(): Promise<void>; stop(): Promise<void> } | undefined> {
  const file = process.env.BENCH_CPU;
  if (!file) return undefined;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  let profiled = false;
  return {
    async start() {
      // The first rebuild only: one span, so the profile's time is the rebuild's.
      if (profiled) return;
      await session.post('Profiler.start');
    },
    async pause() {
      if (profiled) return;
      profiled = true;
      fs.writeFileSync(file, JSON.stringify((await session.post('Profiler.stop')).profile));
    },
    async stop() {
      session.disconnect();
    },
  };
}

if (process.argv[1] === self && process.argv[2] === '--measure') {
  const [, , , dir, rounds, repository, batch] = process.argv;
  measure(dir!, Number(rounds), repository === 'repository', Number(batch)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

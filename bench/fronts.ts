/**
 * Several fronts on one TOWN_DATA (docs/decisions/embedded-fronts.md), measured on this
 * machine in one run: the town that keeps the journal alone, then with more fronts beside it
 * (`--fronts=<n>`, the town's included; default 2), under the same load (autocannon, 48
 * connections spread evenly over the fronts), with one projector worker folding
 * (`npm run projector`).
 * - reads: GET /AGENTS.md/world/lamp with a guest's credential; reads/s and the fronts' CPU per
 *   read (the servers' user + system time over the requests answered);
 * - turns: POST /AGENTS.md/world/lamp/fill, each with its own intent; turns/s and CPU per turn;
 * - rebuild: then, with the town stopped, `npm run rebuild` of the journal the loads wrote, in one
 *   process and with `--workers=2`, timed from start to exit;
 * - what the box shares, timed in a loop of 20,000 calls: a rate-limit take in the fronts' shared
 *   store against one in memory, a read-your-writes note and a read of one, and the owner's
 *   durable mark (src/stores/embedded/shared-fronts.ts, durable-mark.ts).
 * The load generator shares the cores, so the ratios are what this box shows, not what a larger
 * one would (docs/scaling.md has the model for more cores).
 *
 *   npm run bench -- fronts [--seconds=5] [--fronts=2]
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { settingsFromEnv } from '../src/config.js';
import { IdentityService } from '../src/identity/service.js';
import { issueInvitation } from '../src/identity/operator.js';
import { openTown } from '../src/town.js';
import { flag } from './turns-figures.js';
import { createLimiter } from '../src/contract/rate-limit.js';
import { SharedFronts } from '../src/stores/embedded/shared-fronts.js';
import { DurableMarkWriter } from '../src/stores/embedded/durable-mark.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const guestCount = 48;

interface Server {
  proc: ChildProcess;
  port: number;
  ask<T>(what: string): Promise<T>;
}

function startServerProcess(role: 'owner' | 'front', dir: string): Promise<Server> {
  const proc = fork(path.join(here, 'fronts-server.js'), [role, dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const early = (code: number | null) => reject(new Error(`${role} exited ${code} before it listened`));
    proc.once('exit', early);
    proc.once('message', (m: { port: number }) => {
      proc.off('exit', early);
      resolve({
        proc,
        port: m.port,
        ask: <T>(what: string) =>
          new Promise<T>((answer) => {
            proc.once('message', (reply) => answer(reply as T));
            proc.send({ ask: what });
          }),
      });
    });
  });
}

interface Figures {
  perSecond: number;
  cpuUsPerRequest: number;
  non2xx: number;
}

async function load(servers: Server[], seconds: number, tokens: string[], turns: boolean): Promise<Figures> {
  const name = 'autocannon';
  const autocannon = (await import(name)).default;
  const before = await Promise.all(servers.map((s) => s.ask<{ cpuUs: number }>('cpu')));
  // One autocannon per front, the connections split evenly: a load balancer's even spread.
  const runs = await Promise.all(
    servers.map((s, i) =>
      autocannon({
        url: `http://127.0.0.1:${s.port}`,
        connections: Math.round(48 / servers.length),
        duration: seconds,
        requests: [
          {
            setupRequest: (req: Record<string, unknown>) => {
              const token = tokens[Math.floor(Math.random() * tokens.length)]!;
              const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
              return turns
                ? {
                    ...req,
                    method: 'POST',
                    path: '/AGENTS.md/world/lamp/fill',
                    headers,
                    body: JSON.stringify({ intent: `b${i}-${randomUUID()}`, fields: { measures: 1 } }),
                  }
                : { ...req, method: 'GET', path: '/AGENTS.md/world/lamp', headers };
            },
          },
        ],
      }),
    ),
  );
  const after = await Promise.all(servers.map((s) => s.ask<{ cpuUs: number }>('cpu')));
  const ok = runs.reduce((n: number, r: { '2xx': number }) => n + r['2xx'], 0);
  const non2xx = runs.reduce((n: number, r: { non2xx: number }) => n + r.non2xx, 0);
  const cpu = after.reduce((n, a, i) => n + a.cpuUs - before[i]!.cpuUs, 0);
  return { perSecond: ok / seconds, cpuUsPerRequest: cpu / Math.max(1, ok), non2xx };
}

/** CPU µs a call of what the fronts share, over 20,000 calls each, after a warm-up. */
async function sharedCosts(dir: string): Promise<{ take: number; takeInMemory: number; note: number; get: number; mark: number }> {
  fs.mkdirSync(dir, { recursive: true });
  const shared = SharedFronts.open(dir);
  const mark = new DurableMarkWriter(dir);
  const budget = { limit: 32, windowSeconds: 60 };
  const limiter = shared.limiter('credential', budget, Date.now);
  const memory = createLimiter(budget, Date.now);
  const per = (work: (i: number) => void): number => {
    for (let i = 0; i < 2000; i++) work(i);
    const n = 20_000;
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) work(i);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  try {
    return {
      take: per((i) => limiter.take(`k${i % 48}`)),
      takeInMemory: per((i) => memory.take(`k${i % 48}`)),
      note: per((i) => shared.note(`guest:bench:${i % 48}`, BigInt(i))),
      get: per((i) => shared.get(`guest:bench:${i % 48}`)),
      mark: per((i) => mark.publish({ position: i, offset: i * 300 })),
    };
  } finally {
    mark.close();
    await shared.close();
  }
}

/** A town with guests, made in this process and closed: the servers open it after. */
async function foundTown(dir: string): Promise<string[]> {
  const town = await openTown({ settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: true }, origin: 'http://bench.test' });
  const service = new IdentityService({ store: town.events, config: town.config, clock: Date.now });
  const tokens: string[] = [];
  for (let i = 0; i < guestCount; i++) {
    const { code } = await issueInvitation(town.events, Date.now, { guest: null, lifetimeMs: 86_400_000 });
    tokens.push((await service.accept(code, `bench${i}`)).credential);
  }
  await town.close();
  return tokens;
}

export async function main(args: string[]): Promise<Record<string, number>> {
  const seconds = flag(args, 'seconds', 5);
  const fronts = flag(args, 'fronts', 2);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-bench-fronts-'));
  const children: ChildProcess[] = [];
  try {
    const tokens = await foundTown(dir);
    const owner = await startServerProcess('owner', dir);
    children.push(owner.proc);
    const env = { ...process.env, TOWN_DATA: dir, TOWN_PROJECTORS: 'workers', EVENTSTORE_URL: '', MONGO_URL: '', LOG_LEVEL: 'warn' };
    const worker = spawn(process.execPath, [path.join(here, '../src/cli/projector.js')], { env, stdio: 'ignore' });
    children.push(worker);
    const others: Server[] = [];
    for (let i = 1; i < fronts; i++) {
      const front = await startServerProcess('front', dir);
      children.push(front.proc);
      others.push(front);
    }
    const all = [owner, ...others];
    // Warm them up (JIT, caches) before measuring.
    await load(all, 1, tokens, false);
    const reads1 = await load([owner], seconds, tokens, false);
    const reads2 = await load(all, seconds, tokens, false);
    const turns1 = await load([owner], seconds, tokens, true);
    const turns2 = await load(all, seconds, tokens, true);
    // Closed in turn: the fronts first, then the town that keeps the journal; then the worker.
    for (const s of [...others, owner]) {
      const exited = new Promise((resolve) => s.proc.once('exit', resolve));
      s.proc.send({ ask: 'close' });
      await exited;
    }
    worker.kill('SIGTERM');
    await new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(undefined)));
    const rebuild = async (extra: string[]) => {
      const started = performance.now();
      const child = spawn(process.execPath, [path.join(here, '../src/cli/rebuild.js'), ...extra], { env, stdio: 'ignore' });
      const code = await new Promise((resolve) => child.once('exit', resolve));
      if (code !== 0) throw new Error(`rebuild ${extra.join(' ')} exited ${code}`);
      return (performance.now() - started) / 1000;
    };
    const rebuildOne = await rebuild([]);
    const rebuildTwo = await rebuild(['--workers=2']);
    const shared = await sharedCosts(path.join(dir, 'bench-shared'));
    const row = (what: string, one: Figures, two: Figures) =>
      console.log(
        `  ${what.padEnd(6)} one front ${Math.round(one.perSecond).toLocaleString('en').padStart(6)}/s ${Math.round(one.cpuUsPerRequest)} µs CPU each` +
          ` | ${fronts} fronts ${Math.round(two.perSecond).toLocaleString('en').padStart(6)}/s ${Math.round(two.cpuUsPerRequest)} µs CPU each` +
          ` | ratio ${(two.perSecond / one.perSecond).toFixed(2)}x${one.non2xx + two.non2xx ? ` (${one.non2xx + two.non2xx} not 2xx)` : ''}`,
      );
    console.log(`fronts on one TOWN_DATA, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}, autocannon 48 connections, ${seconds} s each`);
    row('reads', reads1, reads2);
    row('turns', turns1, turns2);
    console.log(
      `  shared: a rate-limit take ${shared.take.toFixed(1)} µs (in memory ${shared.takeInMemory.toFixed(1)}), a note ${shared.note.toFixed(1)} µs, reading one ${shared.get.toFixed(1)} µs; the durable mark ${shared.mark.toFixed(1)} µs a group`,
    );
    console.log(
      `  rebuild one process ${rebuildOne.toFixed(1)} s | --workers=2 ${rebuildTwo.toFixed(1)} s | ratio ${(rebuildOne / rebuildTwo).toFixed(2)}x faster`,
    );
    const json = {
      readsPerSecondOne: reads1.perSecond,
      fronts,
      readsPerSecondMore: reads2.perSecond,
      readCpuUsOne: reads1.cpuUsPerRequest,
      readCpuUsMore: reads2.cpuUsPerRequest,
      turnsPerSecondOne: turns1.perSecond,
      turnsPerSecondMore: turns2.perSecond,
      turnCpuUsOne: turns1.cpuUsPerRequest,
      turnCpuUsMore: turns2.cpuUsPerRequest,
      rebuildSecondsOne: rebuildOne,
      rebuildSecondsTwo: rebuildTwo,
      sharedTakeUs: shared.take,
      memoryTakeUs: shared.takeInMemory,
      sharedNoteUs: shared.note,
      sharedGetUs: shared.get,
      durableMarkUs: shared.mark,
      load: os.loadavg()[0]!,
    };
    console.log(`BENCH_JSON ${JSON.stringify(json)}`);
    return json;
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

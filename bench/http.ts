/**
 * The HTTP front against bare koa, measured in one run with autocannon at 48 connections (the
 * spec's worker count): a bare koa JSON route, then our front's GET /health (a small JSON reply
 * through every layer: wire guard, envelope, in-flight limit, router, auth, _links), GET
 * /AGENTS.md/api (the catalogue, ~30 KB) and GET /AGENTS.md/world/lamp (a read as agents make
 * it: a Bearer credential through a trivial authenticator, the rate limit, a trivial handler);
 * and /health once more on a plain Node server without the wire guard, to show what the guard
 * costs. The servers run in a child process so the load generator does not share their event
 * loop.
 *
 * These machines are shared and their load swings within seconds, so the targets are measured
 * in turn, `--rounds` times, and each figure is the median over the rounds (a ratio: the median
 * of the same round's ratios). `cpu` is the server process's CPU time per request (user +
 * system), which load from other processes disturbs far less than req/s does.
 *
 *   npm run bench -- http [--seconds=2] [--rounds=3]
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { createApp } from '../src/http/app.js';
import { createLimiters } from '../src/contract/rate-limit.js';
import { startServer } from '../src/http/server.js';

interface Ports {
  bare: number;
  front: number;
  /** The same app on a plain Node server, without the wire guard: what the guard costs. */
  unguarded: number;
}

const benchToken = 'bench-credential';
const benchCaller = {
  principal: 'guest:bench:ada',
  name: 'ada',
  handle: 'ada.bench',
  did: 'did:web:bench:ada',
  credentialHash: 'bench-hash',
  via: 'bearer' as const,
};

/** The child: both servers, ports sent to the parent. */
async function serve() {
  const bare = new Koa();
  bare.use(async (ctx) => {
    ctx.body = { status: 'ok' };
  });
  const bareServer = http.createServer(bare.callback());
  await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', r));

  const clock = Date.now;
  const app = createApp({
    config: { host: 'bench', origin: 'http://bench', open: true, secret: new Uint8Array(32), secure: false },
    // The front's own cost: the authenticator and the handler do nothing worth measuring.
    handlers: { object: async (ctx) => ({ id: (ctx.params as { object: string }).object, state: { lit: true }, version: 3 }) },
    authenticator: { bearer: async (token) => (token === benchToken ? benchCaller : undefined), session: async () => undefined },
    clock,
    limiters: createLimiters(clock, { credential: [1e9, 60], identity: [1e9, 60], page: [1e9, 60], xrpc: [1e9, 60] }),
  });
  const front = await startServer(app, { port: 0, host: '127.0.0.1' });
  const unguarded = http.createServer(app.callback());
  await new Promise<void>((r) => unguarded.listen(0, '127.0.0.1', r));
  const port = (s: http.Server) => (s.address() as { port: number }).port;
  const ports: Ports = { bare: port(bareServer), front: front.address.port, unguarded: port(unguarded) };
  process.send?.(ports);
  // The parent asks for the CPU time spent between two of its messages.
  let since = process.cpuUsage();
  process.on('message', (m) => {
    if (m === 'start') since = process.cpuUsage();
    if (m === 'stop') {
      const used = process.cpuUsage(since);
      process.send?.({ cpuMicros: used.user + used.system });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

interface Figures {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Server CPU µs per request. */
  cpu: number;
}

async function load(url: string, seconds: number, headers: Record<string, string> = {}): Promise<Omit<Figures, 'cpu'> & { total: number }> {
  const name = 'autocannon';
  const autocannon = (await import(name)).default;
  const r = await autocannon({ url, connections: 48, duration: seconds, pipelining: 1, headers });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx, total: r.requests.total };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function main(args: string[]): Promise<Record<string, number>> {
  // `--seconds=2` (as `npm run bench` passes flags) or `--seconds 2`.
  const arg = (name: string, fallback: number) => {
    const eq = args.find((a) => a.startsWith(`--${name}=`));
    if (eq) return Number(eq.slice(name.length + 3));
    const i = args.indexOf(`--${name}`);
    return i >= 0 && i + 1 < args.length ? Number(args[i + 1]) : fallback;
  };
  const seconds = arg('seconds', 2);
  const rounds = arg('rounds', 3);
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ports = await new Promise<Ports>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ports));
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  const cpuOfChild = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => resolve((m as { cpuMicros: number }).cpuMicros));
      child.send('stop');
    });
  try {
    const auth = { authorization: `Bearer ${benchToken}` };
    const targets: [string, string, Record<string, string>][] = [
      ['bare koa JSON', `http://127.0.0.1:${ports.bare}/`, {}],
      ['front GET /health', `http://127.0.0.1:${ports.front}/health`, {}],
      ['front GET /AGENTS.md/api', `http://127.0.0.1:${ports.front}/AGENTS.md/api`, {}],
      ['front GET world/lamp+Bearer', `http://127.0.0.1:${ports.front}/AGENTS.md/world/lamp`, auth],
      ['/health without wire guard', `http://127.0.0.1:${ports.unguarded}/health`, {}],
    ];
    // Warm every path up first, so that no figure includes the JIT's first compilations.
    for (const [, url, headers] of targets) await load(url, 1, headers);
    const runs: Figures[][] = targets.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, [, url, headers]] of targets.entries()) {
        child.send('start');
        const r = await load(url, seconds, headers);
        const cpu = await cpuOfChild();
        runs[i].push({ ...r, cpu: r.total ? cpu / r.total : 0 });
      }
    }
    const med = (i: number, f: keyof Figures) => median(runs[i].map((r) => r[f]));
    const ratio = (i: number, j: number) => median(runs[i].map((r, k) => r.rps / runs[j][k].rps));
    console.log(`HTTP front, autocannon, 48 connections, ${seconds} s each, median of ${rounds} rounds`);
    for (const [i, [label]] of targets.entries()) {
      const errors = runs[i].reduce((n, r) => n + r.errors, 0);
      const non2xx = runs[i].reduce((n, r) => n + r.non2xx, 0);
      console.log(
        `${label.padEnd(26)} ${Math.round(med(i, 'rps')).toString().padStart(7)} req/s  p99 ${med(i, 'p99')} ms  errors ${errors}  non-2xx ${non2xx}  cpu ${med(i, 'cpu').toFixed(1)} µs/req`,
      );
    }
    console.log(`ratio front /health : bare  ${ratio(1, 0).toFixed(2)}`);
    console.log(`ratio front /api    : bare  ${ratio(2, 0).toFixed(2)}`);
    console.log(`ratio front read    : bare  ${ratio(3, 0).toFixed(2)}`);
    console.log(`wire guard keeps    ${ratio(1, 4).toFixed(2)} of the unguarded rate`);
    console.log(`cpu per request, bare : front read  ${(med(0, 'cpu') / med(3, 'cpu')).toFixed(2)}`);
    return { bare: med(0, 'rps'), health: med(1, 'rps'), api: med(2, 'rps'), read: med(3, 'rps'), unguarded: med(4, 'rps') };
  } finally {
    child.disconnect();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--serve')) void serve();
  else void main(process.argv.slice(2));
}

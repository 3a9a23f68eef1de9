/**
 * The HTTP front against bare koa, measured in one run with autocannon at 48 connections (the
 * spec's worker count): a bare koa JSON route, then our front's GET /health (a small JSON reply
 * through every layer: wire guard, envelope, in-flight limit, router, auth, _links) and GET
 * /AGENTS.md/api (the catalogue, ~30 KB); and /health once more on a plain Node server without
 * the wire guard, to show what the guard costs. The servers run in a child process so the load
 * generator does not share their event loop.
 *
 *   node dist/bench/http.js [--seconds 3]
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { createApp } from '../src/http/app.js';
import { createLimiters } from '../src/http/rate-limit.js';
import { startServer } from '../src/http/server.js';

interface Ports {
  bare: number;
  front: number;
  /** The same app on a plain Node server, without the wire guard: what the guard costs. */
  unguarded: number;
}

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
    handlers: {},
    authenticator: { bearer: async () => undefined, session: async () => undefined },
    clock,
    limiters: createLimiters(clock, { credential: [1e9, 60], identity: [1e9, 60], page: [1e9, 60], xrpc: [1e9, 60] }),
  });
  const front = await startServer(app, { port: 0, host: '127.0.0.1' });
  const unguarded = http.createServer(app.callback());
  await new Promise<void>((r) => unguarded.listen(0, '127.0.0.1', r));
  const port = (s: http.Server) => (s.address() as { port: number }).port;
  const ports: Ports = { bare: port(bareServer), front: front.address.port, unguarded: port(unguarded) };
  process.send?.(ports);
  process.on('disconnect', () => process.exit(0));
}

async function load(url: string, seconds: number): Promise<{ rps: number; p99: number; errors: number; non2xx: number }> {
  const name = 'autocannon';
  const autocannon = (await import(name)).default;
  const r = await autocannon({ url, connections: 48, duration: seconds, pipelining: 1 });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}

export async function main(args: string[]): Promise<Record<string, number>> {
  const i = args.indexOf('--seconds');
  const seconds = i >= 0 ? Number(args[i + 1]) : 3;
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ports = await new Promise<Ports>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ports));
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  try {
    // Warm every path up first, so that no figure includes the JIT's first compilations.
    for (const url of [`http://127.0.0.1:${ports.bare}/`, `http://127.0.0.1:${ports.front}/health`, `http://127.0.0.1:${ports.front}/AGENTS.md/api`, `http://127.0.0.1:${ports.unguarded}/health`]) {
      await load(url, 1);
    }
    const bare = await load(`http://127.0.0.1:${ports.bare}/`, seconds);
    const health = await load(`http://127.0.0.1:${ports.front}/health`, seconds);
    const api = await load(`http://127.0.0.1:${ports.front}/AGENTS.md/api`, seconds);
    const unguarded = await load(`http://127.0.0.1:${ports.unguarded}/health`, seconds);
    const rows: [string, typeof bare][] = [['bare koa JSON', bare], ['front GET /health', health], ['front GET /AGENTS.md/api', api], ['/health without wire guard', unguarded]];
    console.log(`HTTP front, autocannon, 48 connections, ${seconds} s each`);
    for (const [label, r] of rows) {
      console.log(`${label.padEnd(26)} ${Math.round(r.rps).toString().padStart(7)} req/s  p99 ${r.p99} ms  errors ${r.errors}  non-2xx ${r.non2xx}`);
    }
    console.log(`ratio front /health : bare  ${(health.rps / bare.rps).toFixed(2)}`);
    console.log(`ratio front /api    : bare  ${(api.rps / bare.rps).toFixed(2)}`);
    console.log(`wire guard keeps    ${(health.rps / unguarded.rps).toFixed(2)} of the unguarded rate`);
    return { bare: bare.rps, health: health.rps, api: api.rps, unguarded: unguarded.rps };
  } finally {
    child.disconnect();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--serve')) void serve();
  else void main(process.argv.slice(2));
}

/**
 * A soak: a steady mixed load held for `--minutes` (60) on a town in a child process (embedded
 * stores, the firehose on), at about half the turn rate measured at the start, with every row
 * of the load at once:
 *   - turns (`lamp fill measures=0`, a fresh intent each) from 48 guests in turn;
 *   - as many reads (`GET /AGENTS.md/world/lamp`);
 *   - a feed post a second;
 *   - 16 live viewers (`GET /live` with a session cookie each, reconnecting when held out);
 *   - one firehose subscriber reading every frame.
 * Each `--sample` (60) seconds it samples the server's RSS, its heap after a forced collection
 * (`--expose-gc`), the journal's size on disk, p50/p99 per route over the minute, and the
 * projection lag (a commit to every read model folding it), then prints a table and writes an
 * SVG plot of heap, RSS and p99 beside (in the system's temporary directory; the path is printed).
 *
 * The goal it checks: the heap after a collection grows no faster than the world's own data (the
 * journal on disk), and each route's p99 stays within 1.5x of the first minute's.
 *
 *   npm run bench -- soak [--minutes=60] [--sample=60] [--rate=<turns/s>] [--warm=30]
 *
 * `--rate` skips the 10 s calibration (48 turn loops as fast as they are answered); `--warm`
 * seconds at the soak's rate come before the first sample and are not counted. Rate limits
 * are lifted as in the turns bench. A short look: `npm run bench -- soak --minutes=2 --sample=20`.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { settingsFromEnv } from '../src/config.js';
import { createLimiters } from '../src/contract/rate-limit.js';
import { startServer } from '../src/http/server.js';
import { issueInvitation } from '../src/identity/operator.js';
import { IdentityService } from '../src/identity/service.js';
import { openTown } from '../src/town.js';
import { flag, percentile } from './turns-figures.js';

const self = fileURLToPath(import.meta.url);
const guests = 48;
const viewers = 16;

interface Ready {
  port: number;
  firehosePort: number;
  tokens: string[];
}

interface Sample {
  rssMb: number;
  heapMb: number;
  journalMb: number;
  height: number;
  lagP50: number;
  lagP99: number;
}

/** The server: a town with the firehose, its guests admitted; answers samples over IPC. */
async function serve(dir: string): Promise<void> {
  const clock = Date.now;
  const lifted: [number, number] = [1_000_000, 1];
  const town = await openTown({
    settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: true, firehosePort: 0, listenHost: '127.0.0.1' },
    clock,
    origin: 'http://bench.test',
    limiters: createLimiters(clock, { credential: lifted, identity: lifted, page: lifted, xrpc: lifted, session: lifted, signedIn: lifted }),
  });
  const server = await startServer(town.app, { port: 0, host: '127.0.0.1' });
  const service = new IdentityService({ store: town.events, config: town.config, clock });
  const tokens: string[] = [];
  for (let i = 0; i < guests; i++) {
    const { code } = await issueInvitation(town.events, clock, { guest: null, lifetimeMs: 86_400_000 });
    tokens.push((await service.accept(code, `soak-${i}`)).credential);
  }
  // Projection lag: a commit's time to the last projector's advance past it.
  const committed = new Map<bigint, number>();
  let lags: number[] = [];
  town.world.onCommit((_e, position) => committed.set(position, performance.now()));
  const folded = new Map<object, bigint>();
  for (const p of town.projectors)
    p.onAdvance((position) => {
      folded.set(p, position);
      if (folded.size < town.projectors.length) return;
      let low = position;
      for (const at of folded.values()) if (at < low) low = at;
      const now = performance.now();
      for (const [at, t] of committed) {
        if (at > low) continue;
        lags.push(now - t);
        committed.delete(at);
      }
    });
  const journal = path.join(dir, 'events', 'journal');
  process.on('message', (m: { ask: string }) => {
    if (m.ask !== 'sample') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const mem = process.memoryUsage();
    const sample: Sample = {
      rssMb: mem.rss / 1048576,
      heapMb: mem.heapUsed / 1048576,
      journalMb: fs.existsSync(journal) ? fs.statSync(journal).size / 1048576 : 0,
      height: town.world.height,
      lagP50: lags.length ? percentile(lags, 50) : 0,
      lagP99: lags.length ? percentile(lags, 99) : 0,
    };
    lags = [];
    process.send!(sample);
  });
  const ready: Ready = { port: server.address.port, firehosePort: town.firehose!.port, tokens };
  process.send!(ready);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function call(
  port: number,
  method: string,
  p: string,
  o: { token?: string; json?: unknown; cookie?: string } = {},
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const body = o.json === undefined ? undefined : JSON.stringify(o.json);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: p,
        agent,
        headers: {
          accept: 'application/json',
          host: 'bench.test',
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
          ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
          ...(o.cookie ? { cookie: o.cookie } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Latencies and statuses of one route over one sample. */
class Route {
  ms: number[] = [];
  failed = 0;
  /** Failed answers by status over the whole run (0: no answer). */
  readonly statuses = new Map<number, number>();
  take(): { n: number; p50: number; p99: number; failed: number } {
    const out = { n: this.ms.length, p50: percentile(this.ms, 50), p99: percentile(this.ms, 99), failed: this.failed };
    this.ms = [];
    this.failed = 0;
    return out;
  }
}

async function timed(route: Route, work: () => Promise<{ status: number }>): Promise<void> {
  const t = performance.now();
  try {
    const r = await work();
    if (r.status === 200) route.ms.push(performance.now() - t);
    else {
      route.failed++;
      route.statuses.set(r.status, (route.statuses.get(r.status) ?? 0) + 1);
    }
  } catch {
    route.failed++;
    route.statuses.set(0, (route.statuses.get(0) ?? 0) + 1);
  }
}

/** Turns/s answered by 48 loops as fast as the town answers them, over `seconds`. */
async function calibrate(port: number, tokens: string[], seconds: number): Promise<number> {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    tokens.map(async (token, g) => {
      for (let i = 0; performance.now() < until; i++) {
        const r = await call(port, 'POST', '/AGENTS.md/world/lamp/fill', { token, json: { intent: `calibrate-${g}-${i}`, fields: { measures: 0 } } });
        if (r.status === 200) done++;
      }
    }),
  );
  return done / seconds;
}

function svg(rows: { minute: number; heapMb: number; rssMb: number; p99: number }[]): string {
  const w = 640;
  const h = 320;
  const pad = 40;
  const maxX = Math.max(1, ...rows.map((r) => r.minute));
  const line = (ys: number[], color: string, label: string, at: number) => {
    const max = Math.max(1e-9, ...ys) * 1.1;
    const pts = ys.map((y, i) => `${(pad + (rows[i]!.minute / maxX) * (w - 2 * pad)).toFixed(1)},${(h - pad - (y / max) * (h - 2 * pad)).toFixed(1)}`);
    return `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(' ')}"/><text x="${pad + at}" y="16" fill="${color}" font-size="12">${label} (max ${max.toFixed(1)})</text>`;
  };
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">`,
    `<rect width="${w}" height="${h}" fill="white"/>`,
    `<line x1="${pad}" y1="${h - pad}" x2="${w - pad}" y2="${h - pad}" stroke="#888"/><text x="${w / 2}" y="${h - 10}" font-size="12">minutes</text>`,
    line(
      rows.map((r) => r.heapMb),
      '#1f77b4',
      'heap after GC, MB',
      0,
    ),
    line(
      rows.map((r) => r.rssMb),
      '#2ca02c',
      'RSS, MB',
      200,
    ),
    line(
      rows.map((r) => r.p99),
      '#d62728',
      'turn p99, ms',
      380,
    ),
    '</svg>',
  ].join('\n');
}

export async function main(args: string[]): Promise<void> {
  const minutes = flag(args, 'minutes', 60);
  const sampleSeconds = flag(args, 'sample', 60);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-soak-'));
  const proc = fork(self, ['--serve', dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--expose-gc'] });
  const ready = await new Promise<Ready>((resolve, reject) => {
    proc.once('message', (m) => resolve(m as Ready));
    proc.once('exit', (code) => reject(new Error(`soak server exited (${code})`)));
  });
  const sample = () =>
    new Promise<Sample>((resolve) => {
      proc.once('message', (m) => resolve(m as Sample));
      proc.send({ ask: 'sample' });
    });
  const { port, tokens } = ready;
  console.log(
    `load average before: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (${os.cpus().length} cores)`,
  );
  const given = flag(args, 'rate', 0);
  const measured = given || (await calibrate(port, tokens, 10));
  const rate = given || measured / 2;
  console.log(
    given
      ? `turn rate given: ${rate.toFixed(0)}/s`
      : `turn rate measured: ${measured.toFixed(0)}/s; the soak runs turns and reads at ${rate.toFixed(0)}/s each`,
  );

  // The viewers: signed in, each holding /live open and reconnecting when it ends.
  const cookies: string[] = [];
  for (const token of tokens.slice(0, viewers)) {
    const r = await call(port, 'POST', '/enter', { json: { credential: token } });
    const cookie = ([] as string[])
      .concat(r.headers['set-cookie'] ?? [])
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('town_session='));
    if (!cookie) throw new Error(`enter: ${r.status} ${r.text.slice(0, 200)}`);
    cookies.push(cookie);
  }
  let stopping = false;
  let liveEvents = 0;
  let liveRefused = 0;
  // Each viewer from an address of its own (127.0.0.2, …): the town gives one address 8 streams.
  const view = (cookie: string, from: string): void => {
    if (stopping) return;
    const req = http.get(
      { host: '127.0.0.1', port, localAddress: from, path: '/live', headers: { accept: 'text/event-stream', cookie, host: 'bench.test' }, agent: false },
      (res) => {
        if (res.statusCode !== 200) liveRefused++;
        res.on('data', (c: Buffer) => (liveEvents += c.toString().split('event: moved').length - 1));
        res.on('end', () => setTimeout(() => view(cookie, from), res.statusCode === 200 ? 0 : 1000));
        res.on('error', () => {});
      },
    );
    req.on('error', () => setTimeout(() => view(cookie, from), 1000));
  };
  cookies.forEach((c, i) => view(c, `127.0.0.${i + 2}`));
  let frames = 0;
  const hose = new WebSocket(`ws://127.0.0.1:${ready.firehosePort}/xrpc/com.atproto.sync.subscribeRepos`);
  hose.on('message', () => frames++);
  hose.on('error', () => {});

  const routes = { turn: new Route(), read: new Route(), feed: new Route() };
  let n = 0;
  let owed = 0;
  let last = performance.now();
  const pace = setInterval(() => {
    const now = performance.now();
    owed += ((now - last) / 1000) * rate;
    last = now;
    for (; owed >= 1; owed--) {
      const i = n++;
      const token = tokens[i % tokens.length]!;
      void timed(routes.turn, () => call(port, 'POST', '/AGENTS.md/world/lamp/fill', { token, json: { intent: `soak-${i}`, fields: { measures: 0 } } }));
      void timed(routes.read, () => call(port, 'GET', '/AGENTS.md/world/lamp', { token }));
    }
  }, 10);
  let posts = 0;
  const feed = setInterval(() => {
    const token = tokens[posts % tokens.length]!;
    void timed(routes.feed, () => call(port, 'POST', '/AGENTS.md/feed', { token, json: { text: `soak post ${posts++}` } }));
  }, 1000);

  interface Row {
    minute: number;
    s: Sample;
    turn: ReturnType<Route['take']>;
    read: ReturnType<Route['take']>;
    feed: ReturnType<Route['take']>;
    frames: number;
    live: number;
    load: number;
  }
  // A warm-up at the soak's rate, not counted: the calibration's backlog is folded meanwhile.
  const warm = flag(args, 'warm', 30);
  await new Promise((r) => setTimeout(r, warm * 1000));
  await sample();
  for (const r of Object.values(routes)) r.take();
  const rows: Row[] = [];
  const samples = Math.max(1, Math.round((minutes * 60) / sampleSeconds));
  const header = 'min  heapMB  rssMB  journalMB  height  turn p50/p99 ms  read p50/p99 ms  feed p50/p99 ms  lag p50/p99 ms  failed t/r/f  frames  live  load';
  console.log(header);
  for (let k = 1; k <= samples; k++) {
    await new Promise((r) => setTimeout(r, sampleSeconds * 1000));
    const row: Row = {
      minute: (k * sampleSeconds) / 60,
      s: await sample(),
      turn: routes.turn.take(),
      read: routes.read.take(),
      feed: routes.feed.take(),
      frames,
      live: liveEvents,
      load: os.loadavg()[0]!,
    };
    rows.push(row);
    const f = (x: number) => x.toFixed(1).padStart(6);
    console.log(
      `${row.minute.toFixed(1).padStart(4)} ${f(row.s.heapMb)} ${f(row.s.rssMb)} ${f(row.s.journalMb).padStart(10)} ${String(row.s.height).padStart(7)}  ${f(row.turn.p50)}/${f(row.turn.p99)}    ${f(row.read.p50)}/${f(row.read.p99)}    ${f(row.feed.p50)}/${f(row.feed.p99)}   ${f(row.s.lagP50)}/${f(row.s.lagP99)}  ${row.turn.failed}/${row.read.failed}/${row.feed.failed}  ${String(frames).padStart(7)} ${String(liveEvents).padStart(6)} ${row.load.toFixed(2)}`,
    );
  }
  stopping = true;
  clearInterval(pace);
  clearInterval(feed);
  hose.terminate();

  const first = rows[0]!;
  const lastRow = rows.at(-1)!;
  const heapGrowth = lastRow.s.heapMb - first.s.heapMb;
  const dataGrowth = lastRow.s.journalMb - first.s.journalMb;
  console.log(
    `\nheap after GC grew ${heapGrowth.toFixed(1)} MB while the journal grew ${dataGrowth.toFixed(1)} MB: ${heapGrowth <= Math.max(dataGrowth, 1) ? 'within' : 'OVER'} the goal (no faster than the world's own data)`,
  );
  for (const name of ['turn', 'read', 'feed'] as const) {
    const worst = Math.max(...rows.map((r) => r[name].p99));
    const ratio = worst / Math.max(first[name].p99, 1e-9);
    console.log(
      `${name} p99: first ${first[name].p99.toFixed(1)} ms, worst ${worst.toFixed(1)} ms (${ratio.toFixed(2)}x): ${ratio <= 1.5 ? 'within' : 'OVER'} the goal of 1.5x`,
    );
  }
  for (const [name, r] of Object.entries(routes))
    if (r.statuses.size) console.log(`${name} failures by status: ${[...r.statuses].map(([s, k]) => `${s || 'no answer'} ×${k}`).join(', ')}`);
  console.log(`live: ${liveEvents} moved events to ${viewers} viewers (${liveRefused} opens refused); firehose: ${frames} frames`);
  const plot = path.join(os.tmpdir(), `town-soak-${process.pid}.svg`);
  fs.writeFileSync(plot, svg(rows.map((r) => ({ minute: r.minute, heapMb: r.s.heapMb, rssMb: r.s.rssMb, p99: r.turn.p99 }))));
  console.log(`plot: ${plot}`);
  proc.kill();
  agent.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
}

if (process.argv[2] === '--serve') {
  serve(process.argv[3]!).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

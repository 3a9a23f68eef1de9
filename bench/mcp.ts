/**
 * A turn through MCP against the same turn through HTTP, on one town in one run: 48 guests, one
 * connection each (autocannon), each MCP connection with its own session; the simple spell of the
 * turns bench (`lamp fill measures=0`, a fresh intent per request) as `POST
 * /AGENTS.md/world/lamp/fill` and as `tools/call turn` on /mcp; and a read (`GET world/lamp`
 * against the `object` tool). The figure is the server's CPU per call (every thread counted),
 * which the machine's other load disturbs far less than throughput: MCP's over HTTP's, medians
 * of `--rounds` interleaved rounds (goal: within 1.5x for a turn).
 *
 *   npm run bench -- mcp [--seconds=4] [--rounds=3]
 *
 * Rate limits are lifted (as in the turns bench): the bench measures the turn, not the limiter.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { failedStatuses, flag, median } from './turns-figures.js';

const servers = fileURLToPath(new URL('./turns-servers.js', import.meta.url));
const self = fileURLToPath(import.meta.url);

const ask = (proc: ChildProcess) =>
  new Promise<any>((resolve) => {
    proc.once('message', resolve);
    proc.send({ ask: 'stats' });
  });

const protocolVersion = '2025-06-18';

/** One MCP session per credential, opened as a client opens one. */
async function openSessions(base: string, tokens: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const token of tokens) {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const r = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }),
    });
    const id = r.headers.get('mcp-session-id');
    await r.text();
    if (r.status !== 200 || !id) throw new Error(`initialize: ${r.status}`);
    await (
      await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': protocolVersion },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    ids.push(id);
  }
  return ids;
}

async function load(o: { url: string; seconds: number; method?: string; headers: (client: number) => Record<string, string>; body?: (n: number) => string }) {
  const name = 'autocannon';
  const autocannon = (await import(name)).default;
  let n = 0;
  let client = 0;
  const r = await autocannon({
    url: o.url,
    connections: 48,
    duration: o.seconds,
    pipelining: 1,
    method: o.method ?? 'GET',
    setupClient: (c: { setHeaders(h: Record<string, string>): void }) => c.setHeaders(o.headers(client++)),
    ...(o.body ? { requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: o.body!(n++) }) }] } : {}),
  });
  const codes = failedStatuses(r);
  return {
    rps: r.requests.average as number,
    total: r.requests.total as number,
    p99: r.latency.p99 as number,
    errors: (r.errors + r.timeouts) as number,
    non2xx: codes || '0',
  };
}

export async function main(args: string[]): Promise<Record<string, number>> {
  const seconds = flag(args, 'seconds', 4);
  const rounds = Math.max(1, flag(args, 'rounds', 3));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'town-bench-mcp-'));
  // BENCH_PROF=<dir> writes a CPU profile of the town (for finding where the time goes).
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const proc = fork(servers, ['--serve', path.join(root, 'town'), '48'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: ['--max-old-space-size=4096', ...prof],
  });
  try {
    const { port, tokens } = await new Promise<any>((resolve, reject) => {
      proc.once('message', resolve);
      proc.once('exit', (code) => reject(new Error(`bench town exited (${code})`)));
    });
    const base = `http://127.0.0.1:${port}`;
    const sessions = await openSessions(base, tokens);
    const bearer = (c: number) => ({ 'content-type': 'application/json', authorization: `Bearer ${tokens[c % tokens.length]}` });
    const mcpHeaders = (c: number) => ({
      ...bearer(c),
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessions[c % sessions.length]!,
      'mcp-protocol-version': protocolVersion,
    });
    const httpTurn = (prefix: string) => (n: number) => JSON.stringify({ intent: `${prefix}-${n}`, fields: { measures: 0 } });
    const mcpTurn = (prefix: string) => (n: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: n + 1,
        method: 'tools/call',
        params: { name: 'turn', arguments: { object: 'lamp', method: 'fill', intent: `${prefix}-${n}`, fields: { measures: 0 } } },
      });
    const mcpRead = (n: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: n + 1, method: 'tools/call', params: { name: 'object', arguments: { object: 'lamp' } } });
    const settle = () => new Promise((r) => setTimeout(r, 1000));
    const turnUrl = `${base}/AGENTS.md/world/lamp/fill`;
    const mcpUrl = `${base}/mcp`;
    // Warm both paths.
    await load({ url: turnUrl, seconds: 1, method: 'POST', headers: bearer, body: httpTurn('warm-h') });
    await load({ url: mcpUrl, seconds: 1, method: 'POST', headers: mcpHeaders, body: mcpTurn('warm-m') });
    await settle();

    type Run = Awaited<ReturnType<typeof load>>;
    const rows: { http: Run; mcp: Run; httpRead: Run; mcpRead: Run; httpCpu: number; mcpCpu: number; httpReadCpu: number; mcpReadCpu: number }[] = [];
    const measured = async (run: () => Promise<Run>) => {
      const c0 = (await ask(proc)).cpuUs;
      const r = await run();
      await settle();
      const c1 = (await ask(proc)).cpuUs;
      return { run: r, cpu: (c1 - c0) / Math.max(1, r.total) };
    };
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so neither always meets the machine's load first.
      const h = () => measured(() => load({ url: turnUrl, seconds, method: 'POST', headers: bearer, body: httpTurn(`h${round}`) }));
      const m = () => measured(() => load({ url: mcpUrl, seconds, method: 'POST', headers: mcpHeaders, body: mcpTurn(`m${round}`) }));
      const [http, mcp] = round % 2 === 0 ? [await h(), await m()] : (([b, a]) => [a, b])([await m(), await h()]);
      const hr = await measured(() => load({ url: `${base}/AGENTS.md/world/lamp`, seconds, headers: bearer }));
      const mr = await measured(() => load({ url: mcpUrl, seconds, method: 'POST', headers: mcpHeaders, body: mcpRead }));
      rows.push({
        http: http.run,
        mcp: mcp.run,
        httpRead: hr.run,
        mcpRead: mr.run,
        httpCpu: http.cpu,
        mcpCpu: mcp.cpu,
        httpReadCpu: hr.cpu,
        mcpReadCpu: mr.cpu,
      });
    }
    const m = (f: (r: (typeof rows)[number]) => number) => median(rows.map(f));
    const out = {
      httpTurnRps: m((r) => r.http.rps),
      mcpTurnRps: m((r) => r.mcp.rps),
      httpTurnCpuUs: m((r) => r.httpCpu),
      mcpTurnCpuUs: m((r) => r.mcpCpu),
      mcpTurnCpuRatio: m((r) => r.mcpCpu / r.httpCpu),
      httpReadCpuUs: m((r) => r.httpReadCpu),
      mcpReadCpuUs: m((r) => r.mcpReadCpu),
      mcpReadCpuRatio: m((r) => r.mcpReadCpu / r.httpReadCpu),
    };
    const range = (f: (r: (typeof rows)[number]) => number) => {
      const xs = rows.map(f);
      return `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
    };
    const codes = (f: (r: (typeof rows)[number]) => Run) => rows.map((r) => `${f(r).errors}/${f(r).non2xx}`).join(', ');
    console.log(
      `a turn and a read through MCP and through HTTP, autocannon, 48 connections (48 guests, an MCP session each), ${rounds} interleaved rounds of ${seconds} s, medians`,
    );
    console.log(
      `  turn  HTTP POST world/lamp/fill  ${Math.round(out.httpTurnRps).toLocaleString('en').padStart(7)} turns/s  cpu ${out.httpTurnCpuUs.toFixed(0)} µs/turn  p99 ${m((r) => r.http.p99)} ms  (errors/non-2xx ${codes((r) => r.http)})`,
    );
    console.log(
      `        MCP tools/call turn        ${Math.round(out.mcpTurnRps).toLocaleString('en').padStart(7)} turns/s  cpu ${out.mcpTurnCpuUs.toFixed(0)} µs/turn  p99 ${m((r) => r.mcp.p99)} ms  (errors/non-2xx ${codes((r) => r.mcp)})`,
    );
    console.log(`        MCP / HTTP CPU per turn ${out.mcpTurnCpuRatio.toFixed(2)}x (${range((r) => r.mcpCpu / r.httpCpu)}; goal ≤ 1.5x)`);
    console.log(
      `  read  HTTP GET world/lamp ${out.httpReadCpuUs.toFixed(0)} µs/read, MCP tools/call object ${out.mcpReadCpuUs.toFixed(0)} µs/read: ${out.mcpReadCpuRatio.toFixed(2)}x (${range((r) => r.mcpReadCpu / r.httpReadCpu)}); rps ${Math.round(m((r) => r.httpRead.rps))} / ${Math.round(m((r) => r.mcpRead.rps))}`,
    );
    return out;
  } finally {
    if (proc.connected) proc.disconnect();
    await Promise.race([new Promise((r) => proc.once('exit', r)), new Promise((r) => setTimeout(r, 30_000))]);
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === self) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}

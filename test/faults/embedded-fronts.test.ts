/**
 * Several fronts on one TOWN_DATA (docs/decisions/embedded-fronts.md). The town
 * (`dist/src/main.js`, TOWN_PROJECTORS=workers) keeps the journal, two projector workers (one a
 * standby) fold the read models, and a second front (`npm run front`) serves the same town on
 * its own port. Under turn load from 16 guests, each turn is cast on one front and its receipt
 * read back at once on the other, so read-your-writes holds across fronts; both fronts decide
 * turns on the same world stream. The worker holding the leases and the second front are
 * SIGKILLed together mid-load; the standby takes over and the front is started again.
 * Afterwards every acknowledged turn is in the journal once, at the height it was acknowledged
 * with, and the read models equal a rebuild's, digest for digest. A guest's calls spread over
 * both fronts share one rate-limit budget, a live page on one front hears a turn taken on the
 * other, and an MCP session opened on one front is used through the other.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeWorldEntry, TOWN_WORLD, worldStream } from '../../src/events/world.js';
import { openEventStore } from '../../src/stores/open-event-store.js';
import { request } from '../world/support.js';
import { shows, type Child, cli, cliOf, digestLines, foundTown, killAll, mainFile, run, townEnv } from './processes.js';

const origin = 'http://town.test';
// Each guest makes at most 14 turns, each read back: within the rate limit of 32 calls a minute.
const guestCount = 16;
const turnsPerGuest = 14;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('two fronts on one TOWN_DATA: a turn on one is read at once on the other, a killed front loses nothing acknowledged, digests equal a rebuild', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-fronts-'));
  const children: Child[] = [];
  try {
    // Two more guests, for the shared rate limit and MCP (admitted directly: arrivals are limited per address).
    const admitted = await foundTown(
      dir,
      origin,
      Array.from({ length: guestCount }, (_, i) => `f${i}`),
      ['spare', 'agent'],
    );
    const guests = admitted.slice(0, guestCount);
    const [spare, agentGuest] = admitted.slice(guestCount).map((g) => ({ credential: g.token }));
    const env = townEnv(dir, origin, { TOWN_LEASE_MS: '2000' });
    const town = run(mainFile, [], env);
    children.push(town);
    const baseA = (await town.saw(/town listening on (http:\/\/\S+)/, 20_000))[1]!;
    const worker = run(cliOf('projector'), [], env);
    children.push(worker);
    await worker.saw(/following the journal/, 20_000);
    const standby = run(cliOf('projector'), [], env);
    children.push(standby);
    await standby.saw(/waiting to take over/, 20_000);
    const startFront = async () => {
      const f = run(cliOf('front'), [], env);
      children.push(f);
      const m = await f.saw(/listening on (http:\/\/\S+) for/, 20_000);
      return { f, base: m[1]! };
    };
    let second = await startFront();

    const acked = new Map<string, { slug: string; height: number }>();
    let cutOff = 0;
    let unseen = 0;
    const stop = { now: false };
    const agent = new http.Agent({ keepAlive: false });
    const client = async (g: { name: string; token: string }, i: number) => {
      for (let n = 0; !stop.now && n < turnsPerGuest; n++) {
        // Odd turns on the second front, read back on the first; even ones the other way round.
        const [turnOn, readOn] = (n + i) % 2 ? [second.base, baseA] : [baseA, second.base];
        const intent = `n${n}`;
        let r: Awaited<ReturnType<typeof request>>;
        try {
          r = await request(turnOn, 'POST', '/AGENTS.md/world/lamp/fill', {
            token: g.token,
            json: { intent, fields: { measures: n % 3 } },
            agent,
            timeoutMs: 15_000,
          });
        } catch {
          cutOff++;
          await sleep(200);
          continue;
        }
        assert.is(r.status, 200, r.text);
        const receipt = r.json.receipt as { slug: string; height: number };
        acked.set(`${g.name}/${intent}`, receipt);
        let read: Awaited<ReturnType<typeof request>>;
        try {
          read = await request(readOn, 'GET', `/AGENTS.md/receipt/${receipt.slug}`, { token: g.token, agent, timeoutMs: 15_000 });
        } catch {
          // Only the second front's kill may cut a read off; any other failure is a read not seen.
          if (!secondDown) unseen++;
          continue;
        }
        if (!shows(read, receipt.height)) {
          unseen++;
          if (unseen <= 5) console.log(`  unseen ${receipt.height}: ${read.status} ${read.text.slice(0, 200)}`);
        }
      }
    };
    let secondDown = false;
    const load = guests.map((g, i) => client(g, i));
    while (acked.size < 60) await sleep(20);
    // The worker holding the leases and the second front, both at once.
    secondDown = true;
    worker.child.kill('SIGKILL');
    second.f.child.kill('SIGKILL');
    assert.is((await worker.exited).signal, 'SIGKILL');
    assert.is((await second.f.exited).signal, 'SIGKILL');
    second = await startFront();
    // Reads already on their way to the killed front fail a moment after it is back.
    setTimeout(() => (secondDown = false), 2000);
    await standby.saw(/following the journal/, 5000);
    await Promise.all(load);
    stop.now = true;
    agent.destroy();
    assert.is(unseen, 0, 'every receipt was read at once on the other front');
    // The rate limit per credential holds across the fronts: calls spread over both get one budget.
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++)
      statuses.push((await request(i % 2 ? second.base : baseA, 'GET', '/AGENTS.md/world/lamp', { token: spare.credential })).status);
    assert.is(statuses.filter((s) => s === 200).length, 32, `one budget of 32 calls across the fronts: ${statuses.join(' ')}`);
    assert.ok(
      statuses.slice(32).every((s) => s === 429),
      statuses.join(' '),
    );
    assert.ok(acked.size >= 100, `${acked.size} turns acknowledged`);

    // A live page on one front hears a turn taken on the other.
    const entered = await request(second.base, 'POST', '/enter', {
      form: { credential: agentGuest.credential },
      headers: { accept: 'text/html', origin },
    });
    assert.is(entered.status, 303, entered.text);
    const cookie = String((entered.headers['set-cookie'] as string[] | undefined)?.[0] ?? '').split(';')[0]!;
    assert.match(cookie, /^town_session=/);
    const watching = new AbortController();
    const liveStream = await fetch(`${second.base}/live`, { headers: { cookie, accept: 'text/event-stream' }, signal: watching.signal });
    assert.is(liveStream.status, 200);
    // The stream is read until it names the turn's height, or for 5 s at most.
    let expected = '';
    const heard = (async () => {
      const reader = (liveStream.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return text;
        text += decoder.decode(value, { stream: true });
        if (expected && text.includes(expected)) return text;
      }
    })();
    const giveUp = setTimeout(() => watching.abort(), 5000);
    const liveTurn = await request(baseA, 'POST', '/AGENTS.md/world/lamp/fill', {
      token: agentGuest.credential,
      json: { intent: 'live-1', fields: { measures: 1 } },
    });
    assert.is(liveTurn.status, 200, liveTurn.text);
    // `moved` names the journal's height after the turn: its entry's height plus one.
    expected = `event: moved\nid: ${liveTurn.json.receipt.height + 1}\n`;
    const heardText = await heard;
    clearTimeout(giveUp);
    watching.abort();
    assert.match(heardText, expected, `the live page on the other front heard the turn at ${liveTurn.json.receipt.height}: ${JSON.stringify(heardText)}`);

    // An MCP session opened on one front, then used through the other: relayed to its front.
    const mcp = (base: string, json: object, session?: string) =>
      request(base, 'POST', '/mcp', {
        token: agentGuest.credential,
        json,
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(session ? { 'mcp-session-id': session } : {}) },
      });
    const init = await mcp(baseA, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    assert.is(init.status, 200, init.text);
    const session = init.headers['mcp-session-id'] as string;
    assert.ok(session, 'a session id');
    assert.is((await mcp(second.base, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
    const listed = await mcp(second.base, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    assert.is(listed.status, 200, listed.text);
    assert.ok((listed.json.result.tools as unknown[]).length > 5, listed.text);
    // A session whose front is gone is a session the transport no longer has.
    const gone = await mcp(second.base, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, `fzzzzz.${session.slice(session.indexOf('.') + 1)}`);
    assert.is(gone.status, 404, gone.text);

    town.child.kill('SIGTERM');
    second.f.child.kill('SIGTERM');
    assert.is((await town.exited).code, 0, town.output().slice(-4000));
    assert.is((await second.f.exited).code, 0, second.f.output().slice(-4000));
    await sleep(300);
    standby.child.kill('SIGTERM');
    assert.is((await standby.exited).code, 0, standby.output().slice(-4000));

    // Every acknowledged turn is in the journal once, where it was acknowledged.
    const events = await openEventStore({ dataDir: dir });
    const entries = new Map<string, { slug: string; height: number }>();
    try {
      for (const recorded of await events.readStream(worldStream(TOWN_WORLD))) {
        const entry = decodeWorldEntry(recorded);
        if (entry.kind !== 'turn' || !entry.intent) continue;
        const name = /:([^:]+)$/.exec(entry.principal)?.[1] ?? entry.principal;
        const key = `${name}/${entry.intent.intent}`;
        assert.not.ok(entries.has(key), `${key} is in the journal once`);
        entries.set(key, { slug: entry.slug, height: entry.height });
      }
    } finally {
      await events.close();
    }
    for (const [k, a] of acked) assert.equal(entries.get(k), a, `acknowledged ${k} is in the journal as it was acknowledged`);

    const offline = { ...env };
    const caughtUp = await cli('projector', ['--until-caught-up'], offline);
    assert.is(caughtUp.code, 0, caughtUp.stderr);
    const live = await cli('digest', [], offline);
    assert.is(live.code, 0, live.stderr);
    const rebuilt = await cli('rebuild', [], offline);
    assert.is(rebuilt.code, 0, rebuilt.stderr);
    assert.ok(digestLines(live.stdout).length >= 5, live.stdout);
    assert.equal(digestLines(live.stdout), digestLines(rebuilt.stdout), 'the read models equal a rebuild');
    console.log(`  embedded fronts: ${acked.size} turns acknowledged across two fronts and read back on the other, ${cutOff} cut off by the kill`);
  } finally {
    killAll(children);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('TOWN_FRONTS=2: the first process keeps the journal, two fronts share the port, and both answer', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-cluster-'));
  const children: Child[] = [];
  try {
    const guests = (
      await foundTown(
        dir,
        origin,
        [],
        Array.from({ length: 8 }, (_, i) => `c${i}`),
      )
    ).map((g) => g.token);
    const port = await freePort();
    const env = townEnv(dir, origin, { TOWN_FRONTS: '2', PORT: String(port), LOG_LEVEL: 'info' });
    const town = run(mainFile, [], env);
    children.push(town);
    await town.saw(/2 fronts serve/, 20_000);
    const worker = run(cliOf('projector'), [], env);
    children.push(worker);
    await worker.saw(/following the journal/, 20_000);
    const base = `http://127.0.0.1:${port}`;
    // The fronts fork after the town opens, and answer 503 while they open it: each says when it
    // serves the town (a front not yet listening is handed no connection, so the port alone
    // cannot tell).
    for (const until = Date.now() + 30_000; [...town.output().matchAll(/front \d+ listening on \S+ for /g)].length < 2; ) {
      assert.ok(Date.now() < until, town.output().slice(-4000));
      await sleep(100);
    }
    let done = 0;
    await Promise.all(
      guests.map(async (token, i) => {
        for (let n = 0; n < 6; n++) {
          // A new connection each time: node:cluster hands connections to the fronts in turn.
          const agent = new http.Agent({ keepAlive: false });
          const r = await request(base, 'POST', '/AGENTS.md/world/lamp/fill', { token, json: { intent: `k${i}-${n}`, fields: { measures: 1 } }, agent });
          assert.is(r.status, 200, r.text);
          const read = await request(base, 'GET', `/AGENTS.md/receipt/${r.json.receipt.slug}`, { token, agent });
          assert.is(read.status, 200, read.text);
          done++;
        }
      }),
    );
    assert.is(done, 48);
    // Each front logs its requests with its pid: both answered some.
    const pids = new Set([...town.output().matchAll(/"pid":(\d+)[^\n]*"method":"POST"/g)].map((m) => m[1]));
    assert.ok(pids.size >= 2, `turns answered by ${pids.size} front(s)`);
    town.child.kill('SIGTERM');
    assert.is((await town.exited).code, 0, town.output().slice(-4000));
    worker.child.kill('SIGTERM');
    assert.is((await worker.exited).code, 0, worker.output().slice(-4000));
  } finally {
    killAll(children);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

test.run();

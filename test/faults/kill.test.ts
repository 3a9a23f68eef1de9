/**
 * Kills under load: the real server (`dist/src/main.js`, the embedded stores) in a child process
 * under 32 concurrent clients casting turns, SIGKILLed at random moments four times and started
 * again on the same TOWN_DATA each time. Afterwards, read from the journal itself:
 * - every receipt a client was given is there, at its height, for its guest and intent;
 * - no (guest, intent) has two entries;
 * - a turn whose reply the kill cut off, sent again (same intent, same request), is answered with
 *   the receipt of the one entry the journal holds for it (the first one, when it had committed);
 * - the read models the live projectors folded (caught up by a worker) equal a rebuild's, digest
 *   for digest (`npm run digest` and `npm run rebuild`, run as the CLIs).
 * The delays of the kills are printed, so a failure can be replayed with them.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settingsFromEnv } from '../../src/config.js';
import { decodeWorldEntry, TOWN_WORLD, worldStream } from '../../src/events/world.js';
import { startServer } from '../../src/http/server.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { openEventStore } from '../../src/stores/open-event-store.js';
import { openTown } from '../../src/town.js';
import { request, type Reply } from '../world/support.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const main = path.join(dist, 'src/main.js');
const cliOf = (name: string) => path.join(dist, 'src/cli', `${name}.js`);
const origin = 'http://town.test';

const guestCount = 16;
const loopsPerGuest = 2;
const kills = 4;

/** Runs one of our CLIs as `npm run` does, with its exit code. */
function cli(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliOf(name), ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

interface Server {
  child: ChildProcess;
  base: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

/** Starts `node dist/src/main.js` on `dir` and resolves once it listens. */
async function startServerChild(dir: string): Promise<Server> {
  const child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      TOWN_DATA: dir,
      TOWN_ORIGIN: origin,
      TOWN_OPEN: '',
      EVENTSTORE_URL: '',
      MONGO_URL: '',
      TOWN_PROJECTORS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the town did not start in 15 s:\n${out}`)), 15_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /town listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the town exited (${code ?? signal}) before it listened:\n${out}`));
    });
  });
  return { child, base, exited, output: () => out };
}

interface Sent {
  token: string;
  guest: string;
  intent: string;
  body: { intent: string; fields: { measures: number } };
}
interface Acked extends Sent {
  slug: string;
  height: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('SIGKILLed four times under 32 clients of turn load: no acknowledged turn lost, none twice, cut-off replies answered with the first receipt, live digests equal a rebuild', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-kill-'));
  const started = Date.now();
  let server: Server | undefined;
  try {
    // Found the town and admit the guests in this process, then hand the data to the children.
    const settings = { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: true };
    const founding = await openTown({ settings, origin });
    const front = await startServer(founding.app, { port: 0, host: '127.0.0.1', closeGraceMs: 1000 });
    const guests: { name: string; token: string }[] = [];
    for (let i = 0; i < guestCount; i++) {
      const { code } = await issueInvitation(founding.events, Date.now, { guest: null, lifetimeMs: 3_600_000 });
      const r = await request(`http://127.0.0.1:${front.address.port}`, 'POST', '/AGENTS.md/accept', { json: { code, name: `g${i}` } });
      assert.is(r.status, 200, r.text);
      guests.push({ name: `g${i}`, token: r.json.credential });
    }
    await front.close();
    await founding.close();

    const acked = new Map<string, Acked>();
    const cutOff = new Map<string, Sent>();
    const key = (s: Sent) => `${s.guest}/${s.intent}`;
    let refused = 0;
    let limited = 0;
    const delays: number[] = [];

    /** A client: turns one after another until its connection fails (the kill). */
    const client = async (base: string, agent: http.Agent, g: { name: string; token: string }, loop: number, life: number, stop: { now: boolean }) => {
      for (let n = 0; !stop.now; n++) {
        const intent = `l${life}-c${loop}-n${n}`;
        const sent: Sent = { token: g.token, guest: g.name, intent, body: { intent, fields: { measures: n % 3 } } };
        let r: Reply;
        try {
          r = await request(base, 'POST', '/AGENTS.md/world/lamp/fill', { token: g.token, json: sent.body, agent, timeoutMs: 10_000 });
        } catch {
          // No reply: the kill cut it off (it may or may not have committed).
          cutOff.set(key(sent), sent);
          return;
        }
        if (r.status === 429) {
          limited++;
          await sleep(100);
          continue;
        }
        assert.is(r.status, 200, r.text);
        if (r.json.status !== 'done') refused++;
        assert.ok(r.json.receipt?.slug, r.text);
        acked.set(key(sent), { ...sent, slug: r.json.receipt.slug, height: r.json.receipt.height });
      }
    };

    for (let life = 0; life < kills; life++) {
      server = await startServerChild(dir);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
      const stop = { now: false };
      const load = guests.flatMap((g) => Array.from({ length: loopsPerGuest }, (_, loop) => client(server!.base, agent, g, loop, life, stop)));
      // The kill comes at a random moment once the load is running (the first turns of a fresh
      // process wait for its warm-up).
      const before = acked.size;
      for (const until = Date.now() + 15_000; acked.size === before; ) {
        assert.ok(Date.now() < until, `life ${life}: no turn acknowledged in 15 s:\n${server.output()}`);
        await sleep(5);
      }
      const delay = 100 + Math.floor(Math.random() * 500);
      delays.push(delay);
      await sleep(delay);
      server.child.kill('SIGKILL');
      const { signal } = await server.exited;
      assert.is(signal, 'SIGKILL');
      stop.now = true;
      await Promise.all(load);
      agent.destroy();
      assert.ok(acked.size > before, `life ${life} acknowledged turns (delays ${delays.join(', ')} ms)`);
    }

    // A last start: every cut-off turn sent again, and a few acknowledged ones, each must come
    // back with one receipt (the first, for those that had committed).
    server = await startServerChild(dir);
    const resent = new Map<string, { slug: string; height: number }>();
    for (const s of cutOff.values()) {
      const r = await request(server.base, 'POST', '/AGENTS.md/world/lamp/fill', { token: s.token, json: s.body });
      assert.is(r.status, 200, r.text);
      resent.set(key(s), { slug: r.json.receipt.slug, height: r.json.receipt.height });
    }
    const sample = [...acked.values()].filter((_, i) => i % 97 === 0);
    for (const a of sample) {
      const r = await request(server.base, 'POST', '/AGENTS.md/world/lamp/fill', { token: a.token, json: a.body });
      assert.is(r.status, 200, r.text);
      assert.equal(r.json.receipt, { slug: a.slug, height: a.height }, `the same turn sent again names its first receipt (${key(a)})`);
    }
    server.child.kill('SIGTERM');
    assert.is((await server.exited).code, 0, server.output());
    server = undefined;

    // The journal itself: one entry per (guest, intent), and each receipt given is there.
    const events = await openEventStore({ dataDir: dir });
    const entries = new Map<string, { slug: string; height: number }>();
    let height = 0;
    try {
      for (const recorded of await events.readStream(worldStream(TOWN_WORLD))) {
        const entry = decodeWorldEntry(recorded);
        height = entry.height;
        if (entry.kind !== 'turn' || !entry.intent) continue;
        const name = /:([^:]+)$/.exec(entry.principal)?.[1] ?? entry.principal;
        const k = `${name}/${entry.intent.intent}`;
        assert.not.ok(entries.has(k), `intent ${k} has two entries (heights ${entries.get(k)?.height} and ${entry.height})`);
        entries.set(k, { slug: entry.slug, height: entry.height });
      }
    } finally {
      await events.close();
    }
    for (const [k, a] of acked) assert.equal(entries.get(k), { slug: a.slug, height: a.height }, `acknowledged ${k} is in the journal as it was acknowledged`);
    for (const [k, r] of resent) assert.equal(entries.get(k), r, `cut-off ${k}, sent again, names the one entry the journal holds for it`);

    // The read models: the live ones (brought up to the journal's end by a worker, as a stopped
    // town's are) equal the ones a rebuild folds.
    const env = { ...process.env, TOWN_DATA: dir, EVENTSTORE_URL: '', MONGO_URL: '', TOWN_PROJECTORS: 'workers' };
    const caughtUp = await cli('projector', ['--until-caught-up'], env);
    assert.is(caughtUp.code, 0, caughtUp.stderr);
    const live = await cli('digest', [], env);
    assert.is(live.code, 0, live.stderr);
    const rebuilt = await cli('rebuild', [], env);
    assert.is(rebuilt.code, 0, rebuilt.stderr);
    const digests = (out: string) =>
      out
        .split('\n')
        .filter((l) => l.startsWith('digest '))
        .sort();
    assert.ok(digests(live.stdout).length >= 5, live.stdout);
    assert.equal(digests(live.stdout), digests(rebuilt.stdout), 'live digests equal rebuilt ones');

    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `  kill test: ${acked.size} acknowledged turns (${refused} refusals, ${limited} rate-limited retries), ${cutOff.size} cut off, journal height ${height}, kills after ${delays.join(', ')} ms, ${seconds} s`,
    );
  } finally {
    if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

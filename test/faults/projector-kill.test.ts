/**
 * A projector worker in its own process (`npm run projector -- receipts cards`, the
 * separate-process mode, TOWN_PROJECTORS=workers) SIGKILLed while it folds a journal of a few
 * thousand turns, batch after batch: each start resumes from the checkpoint the last one
 * committed (never from the start again, never past what it folded), and once it has caught up
 * its read models equal the ones `npm run rebuild` folds, digest for digest. The batch a kill
 * interrupts was never committed, checkpoint and data together (one read-store unit), so folding
 * it again changes nothing.
 *
 * On the embedded stores a worker runs while the server does not (they belong to one process at
 * a time), so the journal is written first, then the worker folds it.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { castTurn } from '../../src/commands/turn.js';
import { settingsFromEnv } from '../../src/config.js';
import { identityOf } from '../../src/contract/names.js';
import { openTown } from '../../src/town.js';
import { type Key, open } from 'lmdb';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cliOf = (name: string) => path.join(dist, 'src/cli', `${name}.js`);
const projections = ['receipts', 'cards'];
const turns = 3000;

function cli(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliOf(name), ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

interface Run {
  /** Where this start resumed: the checkpoint it read, 0n for none. */
  from: bigint;
  /** `stopped at` when it ran to the end; undefined when it was killed first. */
  stoppedAt?: bigint;
  killed: boolean;
}

/** The checkpoint the worker last committed, read beside it (LMDB readers never block its writer). */
function committed(dir: string): bigint | undefined {
  const env = open({ path: path.join(dir, 'read'), readOnly: true });
  try {
    const at = env.openDB<unknown, Key>({ name: 'meta' }).get(['checkpoint', projections[0]!]);
    return typeof at === 'string' ? BigInt(at) : undefined;
  } finally {
    void env.close();
  }
}

/**
 * One start of the worker. `kill`: SIGKILLed a random moment (under `kill` ms) after it committed
 * a batch beyond where it started, so in the middle of the next batch; otherwise it runs to the end.
 */
function runWorker(env: NodeJS.ProcessEnv, dir: string, kill: number | undefined): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliOf('projector'), ...projections, '--until-caught-up', '--batch=200'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let from: bigint | undefined;
    let poll: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const watch = () => {
      poll = setTimeout(() => {
        const at = committed(dir);
        if (at !== undefined && at > from!) poll = setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * kill!));
        else watch();
      }, 10);
    };
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      // The worker logs JSON lines: {"from":"<checkpoint>", …, "msg":"following the journal"}.
      const m = /"from":"(the start|\d+)"[^\n]*"msg":"following the journal"/.exec(out);
      if (m && from === undefined) {
        from = m[1] === 'the start' ? 0n : BigInt(m[1]!);
        if (kill !== undefined) watch();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      if (poll) clearTimeout(poll);
      if (from === undefined) return reject(new Error(`the worker never started (${code ?? signal}):\n${out}`));
      // The worker's last line: {…, "at":"<checkpoint>", …, "msg":"stopped"}.
      const stopped = /"at":"(\d+)"[^\n]*"msg":"stopped"/.exec(out);
      if (signal === 'SIGKILL' && !stopped) return resolve({ from, killed: true });
      if (code !== 0 || !stopped) return reject(new Error(`the worker exited ${code ?? signal}:\n${out}`));
      resolve({ from, stoppedAt: BigInt(stopped[1]!), killed: false });
    });
  });
}

test('a projector worker SIGKILLed mid-batch resumes from its checkpoint, and its read models equal a rebuild', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-projector-kill-'));
  try {
    // The journal: a few thousand turns, cast straight into the world service (no projector runs).
    const town = await openTown({ settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: false }, origin: 'http://town.test' });
    const guests = Array.from({ length: 8 }, (_, i) => ({ principal: identityOf(town.config.host, `g${i}`).principal, name: `g${i}` }));
    for (let round = 0; round < turns / 100; round++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          castTurn(town.world, guests[i % guests.length]!, 'lamp', 'fill', { intent: `r${round}-${i}`, fields: { measures: i % 3 } }),
        ),
      );
    }
    const head = (await town.events.headPosition())!;
    await town.close();

    const env = { ...process.env, TOWN_DATA: dir, EVENTSTORE_URL: '', MONGO_URL: '', TOWN_PROJECTORS: 'workers' };
    const runs: Run[] = [];
    // Two starts killed mid-batch (a moment after each committed a batch), then one to the end.
    for (let start = 0; start < 6; start++) {
      const run = await runWorker(env, dir, runs.filter((r) => r.killed).length < 2 ? 40 : undefined);
      runs.push(run);
      if (!run.killed) break;
    }
    const resumedMidway = () => new Set(runs.filter((r) => r.from > 0n && r.from < head).map((r) => r.from)).size;
    const last = runs.at(-1)!;
    const summary = runs.map((r) => `${r.from}${r.killed ? ' killed' : ` → ${r.stoppedAt}`}`).join('; ');

    assert.ok(runs.filter((r) => r.killed).length >= 2, `the worker was killed while folding at least twice (${summary})`);
    assert.ok(resumedMidway() >= 2, `two starts resumed from checkpoints in the middle of the journal (${summary})`);
    assert.is(runs[0]!.from, 0n, 'the first start folds from the start');
    for (let i = 1; i < runs.length; i++) {
      assert.ok(runs[i]!.from >= runs[i - 1]!.from, `a start never resumes before the last checkpoint (${summary})`);
    }
    assert.is(last.stoppedAt, head, `the last start folded to the journal's end (${summary})`);

    const live = await cli('digest', projections, env);
    assert.is(live.code, 0, live.stderr);
    const rebuilt = await cli('rebuild', projections, env);
    assert.is(rebuilt.code, 0, rebuilt.stderr);
    const digests = (out: string) =>
      out
        .split('\n')
        .filter((l) => l.startsWith('digest '))
        .sort();
    assert.is(digests(live.stdout).length, projections.length, live.stdout);
    assert.equal(digests(live.stdout), digests(rebuilt.stdout), 'the read models the killed worker folded equal a rebuild');
    console.log(`  projector kill: journal head ${head}; starts: ${summary}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

/**
 * `npm run rebuild -- --workers=2` folds the read models in two processes at once and prints the
 * same digest lines, in the same order, as a rebuild in one process, on a journal of a few
 * hundred mixed turns. A group's process that fails (SIGKILLed here) fails the rebuild, with
 * what happened to it on stderr, and the next rebuild starts over and ends equal. What the flag
 * refuses is refused before anything is opened. The two rebuilds' durations are printed (not a
 * benchmark: one run each on a small journal).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { castTurn, type TurnRequest } from '../../src/commands/turn.js';
import { settingsFromEnv } from '../../src/config.js';
import { identityOf } from '../../src/contract/names.js';
import { projectionNames } from '../../src/projections/index.js';
import { rebuildGroups } from '../../src/projections/rebuild-groups.js';
import { openTown } from '../../src/town.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cliOf = (name: string) => path.join(dist, 'src/cli', `${name}.js`);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  seconds: number;
}

function cli(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [cliOf(name), ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const digests = (out: string) => out.split('\n').filter((l) => l.startsWith('digest '));

/** A journal of `rounds` × 100 turns: fills, makes, gifts, renames and refusals, cast straight into the world. */
async function writeJournal(dir: string, rounds: number): Promise<bigint> {
  const town = await openTown({ settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: false }, origin: 'http://town.test' });
  try {
    const guests = Array.from({ length: 6 }, (_, i) => ({ principal: identityOf(town.config.host, `g${i}`).principal, name: `g${i}` }));
    const turns: ((i: number) => [string, string, Record<string, unknown>])[] = [
      (i) => ['lamp', 'fill', { fields: { measures: i % 3 } }],
      () => ['notice-board', 'receive', { spell: 'make kind=note' }],
      (i) => ['lamp', 'give', { fields: { to: i % 2 ? 'notice-board' : 'square', note: `gift ${i}` } }],
      () => ['nowhere', 'look', { fields: {} }],
      (i) => [`avatar-g${i % 6}`, 'rename', { fields: { name: `walker-${i}` } }],
    ];
    for (let round = 0; round < rounds; round++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const [object, method, body] = turns[i % turns.length]!(round * 100 + i);
          return castTurn(town.world, guests[i % guests.length]!, object, method, { intent: `r${round}-${i}`, ...body } as TurnRequest);
        }),
      );
    }
    return (await town.events.headPosition())!;
  } finally {
    await town.close();
  }
}

test('the read models are split into groups of about equal folding cost, the same way every time', () => {
  assert.equal(rebuildGroups(projectionNames, 1), [[...projectionNames]]);
  assert.equal(rebuildGroups(projectionNames, 2), [['cards', 'receipts', 'offers', 'pending', 'guests', 'feed', 'hosted'], ['repository']]);
  const three = rebuildGroups(projectionNames, 3);
  assert.is(three.length, 3);
  assert.equal(three.flat().sort(), [...projectionNames].sort(), 'every read model in one group');
  assert.ok(
    three.some((g) => g.length === 1 && g[0] === 'repository'),
    'the repository alone',
  );
  assert.equal(rebuildGroups(['feed', 'pending'], 8), [['pending'], ['feed']], 'no more groups than read models, in projectionNames order');
  assert.equal(rebuildGroups([], 4), []);
});

test('a rebuild in two processes prints the digests of a rebuild in one, and fails when a group fails', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-rebuild-workers-'));
  try {
    const head = await writeJournal(dir, 4);
    const env = { ...process.env, TOWN_DATA: dir, EVENTSTORE_URL: '', MONGO_URL: '' };

    const one = await cli('rebuild', [], env);
    assert.is(one.code, 0, one.stderr);
    const two = await cli('rebuild', ['--workers=2'], env);
    assert.is(two.code, 0, two.stderr);
    assert.is(digests(one.stdout).length, 8, one.stdout);
    assert.equal(digests(two.stdout), digests(one.stdout), 'the same digest lines, in the same order');
    assert.ok(/^rebuilt cards, receipts, offers, pending, guests, feed, hosted, repository: .* in 2 processes$/m.test(two.stdout), two.stdout);
    assert.ok(/^snapshot of town at height \d+ written/m.test(two.stdout), 'the snapshot is rebuilt too');
    const started = two.stderr.match(/^rebuild worker \d of 2 \(pid \d+\): .*$/gm) ?? [];
    assert.is(started.length, 2, two.stderr);
    assert.ok(
      started.some((l) => l.endsWith(': repository')),
      `the repository, the dearest fold, has a process of its own: ${started.join('; ')}`,
    );
    // What `npm run digest` reads afterwards is what the rebuild printed.
    const after = await cli('digest', [], env);
    assert.equal(after.stdout.trim().split('\n').sort(), [...digests(two.stdout)].sort());
    console.log(`  rebuild of ${head} events: one process ${one.seconds.toFixed(2)} s, --workers=2 ${two.seconds.toFixed(2)} s (each CLI from start to exit)`);

    // A group's process killed while it folds: the rebuild stops the other and exits non-zero.
    const killed = await new Promise<{ code: number | null; stderr: string; victim: number }>((resolve, reject) => {
      const child = spawn(process.execPath, [cliOf('rebuild'), '--workers=2'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let victim = 0;
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const m = /^rebuild worker 2 of 2 \(pid (\d+)\)/m.exec(stderr);
        if (m && !victim) {
          victim = Number(m[1]);
          process.kill(victim, 'SIGKILL');
        }
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr, victim }));
    });
    assert.ok(killed.victim > 0, killed.stderr);
    assert.is(killed.code, 2, killed.stderr);
    assert.ok(killed.stderr.includes(`(pid ${killed.victim}) was killed by SIGKILL`), killed.stderr);
    // The half-built read models are dropped and folded again by the next rebuild.
    const again = await cli('rebuild', ['--workers=3'], env);
    assert.is(again.code, 0, again.stderr);
    assert.equal(digests(again.stdout), digests(one.stdout), 'three processes after a failed rebuild: the same digests');

    // A group's process on its own refuses an unknown read model, as the rebuild does.
    const unknown = await cli('rebuild-group', ['nonsense', `--head=${head}`], env);
    assert.is(unknown.code, 2);
    assert.ok(unknown.stderr.includes('no projection named nonsense'), unknown.stderr);
    const named = await cli('rebuild', ['nonsense', '--workers=2'], env);
    assert.is(named.code, 2);
    assert.ok(named.stderr.includes('no projection named nonsense'), named.stderr);

    // Refused before any store is opened.
    const mongo = await cli('rebuild', ['--workers=2'], { ...env, MONGO_URL: 'mongodb://127.0.0.1:9/town' });
    assert.is(mongo.code, 2);
    assert.ok(mongo.stderr.includes('--workers rebuilds the embedded stores only'), mongo.stderr);
    const zero = await cli('rebuild', ['--workers=0'], env);
    assert.is(zero.code, 2);
    assert.ok(zero.stderr.includes('--workers takes a number of processes'), zero.stderr);
    const live = await cli('rebuild', ['--live', '--workers=2'], env);
    assert.is(live.code, 2);
    assert.ok(live.stderr.includes('takes no --workers'), live.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

/**
 * `npm start` as a user meets it: the real entry point in a child process, on fresh embedded
 * stores. It prints its address and a first invitation, serves, and on SIGTERM lets a request in
 * flight finish before it closes the stores and exits 0.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/main.js');
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/cli/town.js');

function start(dataDir: string): { child: ChildProcess; output: () => string; line(pattern: RegExp): Promise<RegExpMatchArray> } {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', TOWN_DATA: dataDir, TOWN_OPEN: '', EVENTSTORE_URL: '', MONGO_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: { pattern: RegExp; resolve(m: RegExpMatchArray): void }[] = [];
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of [...waiters]) {
      const m = out.match(w.pattern);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  return {
    child,
    output: () => out,
    line: (pattern) =>
      new Promise((resolve, reject) => {
        const m = out.match(pattern);
        if (m) return resolve(m);
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${out}`)), 20_000);
        waiters.push({
          pattern,
          resolve: (x) => {
            clearTimeout(timer);
            resolve(x);
          },
        });
      }),
  };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

test('npm start prints its address and a first invitation, serves, and closes cleanly on SIGTERM', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-main-'));
  const town = start(dataDir);
  try {
    const [, base] = await town.line(/town listening on (http:\/\/\S+)/);
    const [, code] = await town.line(/first invitation \(shown once\): (svc_invite_\S+)/);
    const guide = await fetch(`${base}/AGENTS.md`);
    assert.is(guide.status, 200);
    assert.match(await guide.text(), /AGENTS|guide/i);
    const health = await fetch(`${base}/health`);
    assert.is(health.status, 200);
    // PORT=0: the origin (the host of every principal) names the port the town serves on.
    const api = (await (await fetch(`${base}/AGENTS.md/api`)).json()) as { origin: string };
    assert.is(new URL(api.origin).port, new URL(base!).port);

    const accepted = await fetch(`${base}/AGENTS.md/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'ann' }),
    });
    assert.is(accepted.status, 200);
    const { credential } = (await accepted.json()) as { credential: string };

    // The operator issues an invitation while the town runs (it owns the journal): the command
    // goes over the town's control socket and the code works at once.
    const invited = spawnSync(process.execPath, [cli, 'invite', '--name', 'bob'], {
      env: { ...process.env, TOWN_DATA: dataDir, EVENTSTORE_URL: '' },
      encoding: 'utf8',
    });
    assert.is(invited.status, 0, invited.stderr);
    const bobCode = invited.stdout.trim();
    assert.match(bobCode, /^svc_invite_/);
    const listed = spawnSync(process.execPath, [cli, 'invites'], { env: { ...process.env, TOWN_DATA: dataDir, EVENTSTORE_URL: '' }, encoding: 'utf8' });
    assert.is(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /bob/);
    const bob = await fetch(`${base}/AGENTS.md/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: bobCode }),
    });
    assert.is(bob.status, 200);

    // A long poll in flight when SIGTERM arrives must still be answered.
    const held = fetch(`${base}/AGENTS.md/offers?wait=2`, { headers: { authorization: `Bearer ${credential}` } });
    await new Promise((r) => setTimeout(r, 300));
    town.child.kill('SIGTERM');
    const reply = await held;
    assert.is(reply.status, 200);
    assert.is(await exited(town.child), 0);
    assert.match(town.output(), /closed/);

    // With the town stopped, the same command opens the journal directly.
    const offline = spawnSync(process.execPath, [cli, 'invites'], { env: { ...process.env, TOWN_DATA: dataDir, EVENTSTORE_URL: '' }, encoding: 'utf8' });
    assert.is(offline.status, 0, offline.stderr);
    assert.match(offline.stdout, /bob/);

    // A second start finds the town founded: no second invitation, and the guest still holds.
    const again = start(dataDir);
    try {
      const [, base2] = await again.line(/town listening on (http:\/\/\S+)/);
      await again.line(/founded before/);
      const me = await fetch(`${base2}/AGENTS.md/me`, { headers: { authorization: `Bearer ${credential}` } });
      assert.is(me.status, 200);
      assert.is(((await me.json()) as { handle: string }).handle.startsWith('ann'), true);
    } finally {
      again.child.kill('SIGTERM');
      await exited(again.child);
    }
  } finally {
    if (town.child.exitCode === null) town.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();

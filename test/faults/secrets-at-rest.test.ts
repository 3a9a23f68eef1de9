/**
 * Secrets at rest (docs/security.md): the town's keys and the operator's control socket are
 * readable by their owner alone (0600), and no credential or invitation code is kept anywhere
 * under TOWN_DATA, only their hashes: a copy of the data directory handed to an analyst holds
 * nothing that speaks for a guest.
 */
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { controlSocketPath, serveControl } from '../../src/cli/control.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { startTestTown } from '../world/support.js';

/** Every regular file under `dir`. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

test('keys and the control socket are 0600; no credential or invitation code is stored, only hashes', async () => {
  const t = await startTestTown();
  const control = await serveControl(t.dir, async () => 0);
  try {
    const ann = await t.guest('ann');
    const { code: unaccepted } = await issueInvitation(t.town.events, t.clock, { guest: null, lifetimeMs: 86_400_000 });
    const turned = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'at-rest', fields: { measures: 1 } });
    assert.is(turned.status, 200, turned.text);
    // The read models have folded the guest and the turn before the files are read.
    const head = (await t.town.events.headPosition())!;
    for (const p of t.town.projectors) assert.ok(await p.waitFor(head, 10_000));

    for (const name of ['secret.key', 'commit.key', 'receipt.key']) {
      const file = path.join(t.dir, name);
      assert.ok(fs.existsSync(file), `${name} exists`);
      assert.is(fs.statSync(file).mode & 0o777, 0o600, `${name} is readable by its owner alone`);
    }
    const socket = fs.statSync(controlSocketPath(t.dir));
    assert.ok(socket.isSocket());
    assert.is(socket.mode & 0o777, 0o600, 'the control socket answers its owner alone');

    assert.match(ann.token, /^svc_key_/);
    assert.match(unaccepted, /^svc_invite_/);
    const files = filesUnder(t.dir);
    assert.ok(
      files.some((f) => f.endsWith(`${path.sep}journal`)),
      'the journal is among the files read',
    );
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      for (const [what, secret] of [
        ['the credential', ann.token],
        ['the invitation code', unaccepted],
      ] as const) {
        assert.not.ok(bytes.includes(secret), `${path.relative(t.dir, file)} holds ${what} in clear`);
        assert.not.ok(bytes.includes(secret.slice(-24)), `${path.relative(t.dir, file)} holds part of ${what}`);
      }
    }
  } finally {
    await control.close();
    await t.close();
  }
});

test.run();

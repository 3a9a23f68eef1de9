/**
 * A data directory's secrets (secret.key, commit.key, receipt.key) are made once and read whole:
 * processes starting together on one directory all read the same 32 bytes, and none reads an
 * empty file while another is still writing it.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { secretFile } from '../../src/stores/secret-file.js';

test('made once: the second read is the first one secret, 64 hex digits, mode 0600, no temporary file left', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-secret-'));
  try {
    const first = secretFile(dir, 'secret.key');
    assert.match(first, /^[0-9a-f]{64}$/);
    assert.is(secretFile(dir, 'secret.key'), first);
    assert.is(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777, 0o600);
    assert.equal(fs.readdirSync(dir), ['secret.key']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('eight processes racing for one directory all read the same whole secret', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-secret-race-'));
  const module = new URL('../../src/stores/secret-file.js', import.meta.url).href;
  const script = `import(${JSON.stringify(module)}).then(({ secretFile }) => { const names = []; for (let i = 0; i < 50; i++) names.push(secretFile(process.argv[1], 'k' + i)); process.send(names); })`;
  try {
    const runs = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<string[]>((resolve, reject) => {
            const child = fork('-e', [script, dir], { execArgv: ['--input-type=module'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
            child.once('message', (m) => resolve(m as string[]));
            child.once('exit', (code) => (code ? reject(new Error(`exit ${code}`)) : undefined));
          }),
      ),
    );
    for (const names of runs) {
      for (const secret of names) assert.match(secret, /^[0-9a-f]{64}$/);
      assert.equal(names, runs[0]);
    }
    assert.is(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')).length, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

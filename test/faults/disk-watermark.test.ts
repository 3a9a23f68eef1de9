/**
 * The free-space watermark (src/stores/embedded/disk-guard.ts) on a disk whose free bytes the test sets:
 * below TOWN_MIN_FREE_MB a turn is refused 503 `hostUnavailable` with Retry-After before the
 * journal writes anything, the projectors' units are refused too, /ready answers 503 naming the
 * disk and /metrics shows `town_disk_low 1`; reads are served. When space returns the same
 * request is answered, and /ready is 200 again as soon as the read models have caught up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { storageFault } from '../../src/contract/storage-fault.js';
import { DiskLow } from '../../src/stores/embedded/disk-guard.js';
import { openReadStore } from '../../src/stores/open-read-store.js';
import { request, startTestTown } from '../world/support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = 1024 * 1024;

test('below the watermark writes are refused and /ready says why; above it again, turns are taken and /ready is 200 once caught up', async () => {
  let free = 1024 * MiB;
  const logged: { message: string; fields: Record<string, unknown> }[] = [];
  const t = await startTestTown({
    settings: { minFreeBytes: 64 * MiB },
    diskFree: () => free,
    logger: { error: (message, fields) => logged.push({ message, fields }) },
  });
  try {
    const ann = await t.guest('ann');
    const bob = await t.guest('bob');
    const turn = (intent: string) => request(t.base, 'POST', '/AGENTS.md/world/lamp/fill', { token: ann.token, json: { intent, fields: { measures: 1 } } });
    assert.is((await turn('before')).status, 200);
    for (const until = Date.now() + 10_000; (await request(t.base, 'GET', '/ready')).status !== 200; await sleep(50))
      assert.ok(Date.now() < until, 'ready at first');

    free = 10 * MiB;
    const refused = await turn('low');
    assert.is(refused.status, 503, refused.text);
    assert.is(refused.json.class, 'hostUnavailable');
    assert.match(refused.json.message, /cannot write to its storage now \(ENOSPC\)/);
    assert.is(refused.headers['retry-after'], '5');
    // /ready answers from a look at most 500 ms old (src/http/handlers/operations.ts).
    let ready = await request(t.base, 'GET', '/ready');
    for (const until = Date.now() + 2000; ready.status === 200; ready = await request(t.base, 'GET', '/ready')) {
      assert.ok(Date.now() < until, 'not ready within 2 s of the disk falling below the watermark');
      await sleep(50);
    }
    assert.is(ready.status, 503, ready.text);
    assert.match(ready.json.message, /below its free-space watermark: 10\.0 MiB free of the 64\.0 MiB/);
    const metrics = (await request(t.base, 'GET', '/metrics')).text;
    assert.match(metrics, /^town_disk_low 1$/m);
    assert.match(metrics, /^town_disk_free_bytes 10485760$/m);
    assert.match(metrics, /^town_disk_refused_writes_total [1-9]/m);
    // Reads go on.
    assert.is((await request(t.base, 'GET', '/AGENTS.md/world/lamp', { token: bob.token })).status, 200);

    free = 1024 * MiB;
    const freed = Date.now();
    const again = await turn('low');
    assert.is(again.status, 200, again.text);
    let back = await request(t.base, 'GET', '/ready');
    for (const until = Date.now() + 10_000; back.status !== 200; back = await request(t.base, 'GET', '/ready')) {
      assert.ok(Date.now() < until, `ready again within 10 s: ${back.text}`);
      await sleep(20);
    }
    console.log(`  /ready 200 again ${Date.now() - freed} ms after space returned`);
    assert.match((await request(t.base, 'GET', '/metrics')).text, /^town_disk_low 0$/m);
    // The refusals were logged as the disk's, and nothing else went wrong.
    assert.ok(logged.length > 0);
    for (const l of logged) assert.match(JSON.stringify(l.fields), /ENOSPC: no space left on device for the town's writes/, l.message);
  } finally {
    await t.close();
  }
});

test('a read store opened from options alone (as a projector thread opens it) keeps the watermark before each unit', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-watermark-'));
  const reads = await openReadStore({ dataDir: dir, minFreeBytes: Number.MAX_SAFE_INTEGER });
  try {
    let ran = false;
    const refused = await reads
      .unit(async (u) => {
        ran = true;
        await u.collection('things').insertOne({ _id: 'a' });
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.instance(refused, DiskLow);
    assert.is(storageFault(refused), 'ENOSPC');
    assert.not.ok(ran, 'the unit was refused before its work ran');
    assert.is(await reads.collection('things').findOne({ _id: 'a' }), null);
  } finally {
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('TOWN_MIN_FREE_MB: MiB, 0 turns the watermark off, nonsense refused at start', async () => {
  const { settingsFromEnv } = await import('../../src/config.js');
  assert.is(settingsFromEnv({ TOWN_MIN_FREE_MB: '128' }).minFreeBytes, 128 * MiB);
  assert.is(settingsFromEnv({ TOWN_MIN_FREE_MB: '0' }).minFreeBytes, 0);
  assert.is(settingsFromEnv({}).minFreeBytes, undefined);
  assert.throws(() => settingsFromEnv({ TOWN_MIN_FREE_MB: '-1' }), /TOWN_MIN_FREE_MB/);
  assert.throws(() => settingsFromEnv({ TOWN_MIN_FREE_MB: 'lots' }), /TOWN_MIN_FREE_MB/);
});

test.run();

/**
 * Readiness: `/health` answers 200 while the process serves; `/ready` answers
 * 503 `hostUnavailable` while a start opens and replays the journal and while the read models
 * are behind it beyond the bound, and 200 after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settingsFromEnv } from '../../src/config.js';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { startServer } from '../../src/http/server.js';
import { Readiness } from '../../src/operations/readiness.js';
import { startingApp } from '../../src/operations/starting.js';
import { watch } from '../../src/operations/watch.js';
import { serveOperations } from '../../src/operations/worker-server.js';
import { projectionNames } from '../../src/projections/index.js';
import { startWorker } from '../../src/projectors/worker.js';
import { openTown } from '../../src/town.js';
import { request, startTestTown, testClock } from '../world/support.js';
import { parsePrometheus, sampleValue } from './prometheus.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('Readiness: not before the journal as it stood at the start is folded; then within the lag bound', async () => {
  let now = 1_000_000;
  let head: bigint | undefined = 100n;
  const checkpoints = new Map<string, bigint | undefined>([
    ['cards', 40n],
    ['feed', undefined],
  ]);
  let failure: string | undefined;
  const r = new Readiness({ head: async () => head, checkpoints: async () => [...checkpoints], failure: () => failure, now: () => now }, 10);
  let s = await r.state();
  assert.is(s.ready, false);
  assert.match(s.reason!, /catching up with the journal after the start: cards, feed/);
  checkpoints.set('cards', 100n);
  now += 500;
  assert.match((await r.state()).reason!, /: feed$/);
  // The head moves on while the projections fold what stood at the start: ready once they have.
  head = 120n;
  checkpoints.set('feed', 100n);
  now += 500;
  s = await r.state();
  assert.is(s.ready, true, s.reason);
  assert.equal(
    s.projections.map((p) => [p.name, p.lagSeconds]),
    [
      ['cards', 0],
      ['feed', 0],
    ],
  );
  // Behind the head for 10 s is within the bound; past it, not ready; caught up, ready again.
  now += 10_000;
  s = await r.state();
  assert.is(s.projections[0]!.lagSeconds, 10);
  assert.is(s.ready, true);
  now += 1000;
  s = await r.state();
  assert.is(s.ready, false);
  assert.match(s.reason!, /behind the journal by more than 10 s: cards \(11\.0 s\), feed \(11\.0 s\)/);
  checkpoints.set('cards', 120n);
  checkpoints.set('feed', 120n);
  assert.is((await r.state()).ready, true);
  failure = 'projector cards failed: disk full';
  assert.equal([(await r.state()).ready, (await r.state()).reason], [false, 'projector cards failed: disk full']);
  // Stores that do not answer: not ready, saying so (never a failure of the probe itself).
  const down = new Readiness({
    head: async () => {
      throw new Error('connection refused');
    },
    checkpoints: async () => [],
  });
  assert.equal(await down.state(), {
    ready: false,
    reason: 'the stores did not answer: connection refused',
    head: undefined,
    projections: [],
    unanswered: true,
  });
  // An empty journal has nothing to fold.
  const empty = new Readiness({ head: async () => undefined, checkpoints: async () => [['cards', undefined]] });
  assert.is((await empty.state()).ready, true);
});

test('npm start listens while the town opens: /health 200, /ready and the rest 503 hostUnavailable; then the town', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-ready-'));
  const running = await startServer(startingApp(), { port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${running.address.port}`;
  try {
    const health = await request(base, 'GET', '/health');
    assert.equal([health.status, health.json.status], [200, 'ok']);
    for (const p of ['/ready', '/AGENTS.md', '/AGENTS.md/world', '/metrics']) {
      const r = await request(base, 'GET', p, { headers: { 'x-request-id': 'probe-1' } });
      assert.equal([r.status, r.json.class, r.json.status], [503, 'hostUnavailable', 'error'], p);
      assert.is(r.headers['retry-after'], '2');
      assert.is(r.headers['x-request-id'], 'probe-1');
      assert.ok(r.headers['x-content-type-options'], 'security headers as on every reply');
    }
    // Probes while the town opens (and replays its journal): never refused, never a 200 from /ready.
    const seen: number[] = [];
    let opening = true;
    const probing = (async () => {
      while (opening) {
        seen.push((await request(base, 'GET', '/ready')).status);
        assert.is((await request(base, 'GET', '/health')).status, 200);
        await sleep(5);
      }
    })();
    const town = await openTown({ settings: { ...settingsFromEnv({}), port: running.address.port, dataDir: dir }, origin: base, clock: testClock() });
    running.use(town.app);
    opening = false;
    await probing;
    assert.ok(seen.length > 0 && seen.every((s) => s === 503), `503 while opening: ${seen.join(',')}`);
    let ready = await request(base, 'GET', '/ready');
    for (const until = Date.now() + 10_000; ready.status !== 200 && Date.now() < until; ready = await request(base, 'GET', '/ready')) await sleep(100);
    assert.is(ready.status, 200, ready.text);
    assert.is(ready.json.status, 'ready');
    assert.is((await request(base, 'GET', '/AGENTS.md')).status, 200);
    await running.close();
    await town.close();
  } finally {
    await running.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('read models folded by workers: /ready is 503 until a projector has caught up, then 200; the worker serves its own', async () => {
  // A town founded with its projectors left to workers: a journal, and no read model folded yet.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-ready-'));
  const settings = { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: false };
  const seed = await openTown({ settings, origin: 'http://town.test', clock: testClock() });
  await seed.close();
  const front = await startTestTown({ dir, settings: { inProcessProjectors: false } });
  try {
    const notReady = await request(front.base, 'GET', '/ready');
    assert.is(notReady.status, 503, notReady.text);
    assert.is(notReady.json.class, 'hostUnavailable');
    assert.match(notReady.json.message, /^not ready: catching up with the journal after the start/);

    const worker = (await startWorker({ events: front.town.events, reads: front.town.reads, programs: libraryPrograms(), names: [...projectionNames] }))!;
    const ops = watch({ settings, events: front.town.events, reads: front.town.reads, projections: worker.names, projectors: [worker] });
    const listener = await serveOperations(ops, 0, '127.0.0.1');
    const wbase = `http://127.0.0.1:${listener.port}`;
    try {
      await worker.whenCaughtUp();
      let ready = await request(front.base, 'GET', '/ready');
      for (const until = Date.now() + 10_000; ready.status !== 200 && Date.now() < until; ready = await request(front.base, 'GET', '/ready')) await sleep(100);
      assert.is(ready.status, 200, ready.text);
      // The worker's own listener: health, readiness and its metrics; nothing else.
      assert.is((await request(wbase, 'GET', '/health')).status, 200);
      assert.is((await request(wbase, 'GET', '/ready')).status, 200);
      const m = await request(wbase, 'GET', '/metrics', { headers: { accept: 'text/plain' } });
      assert.is(m.status, 200);
      const families = parsePrometheus(m.text);
      assert.ok(sampleValue(families, 'town_projection_checkpoint', { projection: 'cards' }) > 0);
      assert.is(sampleValue(families, 'town_ready'), 1);
      const other = await request(wbase, 'GET', '/AGENTS.md');
      assert.equal([other.status, other.json.class], [404, 'unknownRoute']);
      assert.equal([(await request(wbase, 'POST', '/metrics')).status], [404]);
    } finally {
      await listener.close();
      ops.readiness.stop();
      await worker.stop();
    }
  } finally {
    await front.close();
  }
});

test.run();

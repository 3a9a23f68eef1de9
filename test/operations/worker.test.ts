/**
 * A projector worker as an operator runs it (`npm run projector` with TOWN_METRICS_PORT): it logs
 * JSON lines, serves /health, /ready and /metrics on its port while it runs, and stops cleanly.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settingsFromEnv } from '../../src/config.js';
import { openTown } from '../../src/town.js';
import { request, testClock } from '../world/support.js';
import { parsePrometheus, sampleValue } from './prometheus.js';

const projector = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/projector.js');

test('npm run projector with TOWN_METRICS_PORT: JSON log lines, its probes and metrics, a clean stop', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-worker-'));
  // A journal whose read models no one has folded: the worker's work.
  const seed = await openTown({
    settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: false },
    origin: 'http://town.test',
    clock: testClock(),
  });
  await seed.close();
  const child = spawn(process.execPath, [projector, 'cards', 'guests'], {
    env: { ...process.env, TOWN_DATA: dir, TOWN_METRICS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', EVENTSTORE_URL: '', MONGO_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    let port: number | undefined;
    for (const until = Date.now() + 20_000; port === undefined && Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      const line = out.split('\n').find((l) => l.includes('serving /metrics'));
      if (line) port = (JSON.parse(line) as { port: number }).port;
    }
    assert.ok(port, `the worker says where it serves:\n${out}\n${err}`);
    const base = `http://127.0.0.1:${port}`;
    assert.is((await request(base, 'GET', '/health')).status, 200);
    let ready = await request(base, 'GET', '/ready');
    for (const until = Date.now() + 10_000; ready.status !== 200 && Date.now() < until; ready = await request(base, 'GET', '/ready'))
      await new Promise((r) => setTimeout(r, 100));
    assert.is(ready.status, 200, ready.text);
    const metrics = await request(base, 'GET', '/metrics', { headers: { accept: 'text/plain' } });
    const families = parsePrometheus(metrics.text);
    assert.ok(sampleValue(families, 'town_projector_events_folded') > 0);
    assert.ok(sampleValue(families, 'town_projection_checkpoint', { projection: 'guests' }) > 0);
    assert.ok(families.has('process_resident_memory_bytes'));
    child.kill('SIGTERM');
    assert.is(await exited, 0, err);
    const lines = out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.every((l) => l.worker === 'projector cards,guests' && typeof l.level === 'number'));
    assert.ok(lines.some((l) => l.msg === 'stopped'));
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

/**
 * The real-stores CI workflow (.github/workflows/real-stores.yml) cannot run on the development
 * machines: this checks that it parses, starts EventStoreDB and a MongoDB replica set, points
 * the adapters at them, and runs test files that exist.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const file = path.join(root, '.github/workflows/real-stores.yml');

interface Step {
  name?: string;
  run?: string;
  uses?: string;
}

test('the real-stores workflow parses and runs the contract suites, the worker tests and the end-to-end run on both servers', () => {
  const workflow = parse(fs.readFileSync(file, 'utf8'), { prettyErrors: true }) as {
    on: unknown;
    jobs: Record<
      string,
      { 'runs-on': string; services: Record<string, { image: string; env?: Record<string, string> }>; env: Record<string, string>; steps: Step[] }
    >;
  };
  assert.ok(workflow.on, 'it has triggers');
  const job = workflow.jobs['real-stores'];
  assert.ok(job, 'the real-stores job');
  assert.match(job!.services.eventstore!.image, /^eventstore\/eventstore:/);
  assert.is(job!.services.eventstore!.env!.EVENTSTORE_MAX_APPEND_SIZE, '1048576');
  assert.match(job!.env.EVENTSTORE_URL!, /^esdb:\/\//);
  assert.match(job!.env.MONGO_URL!, /^mongodb:\/\/.*replicaSet=rs0/);
  assert.is(job!.env.EVENTSTORE_MAX_APPEND_SIZE, job!.services.eventstore!.env!.EVENTSTORE_MAX_APPEND_SIZE, 'the adapters enforce what the server was given');
  const runs = job!.steps.map((s) => s.run ?? '').join('\n');
  assert.match(runs, /--replSet rs0/);
  assert.match(runs, /rs\.initiate/);
  const files = [...runs.matchAll(/node (dist\/test\/\S+\.test\.js)/g)].map((m) => m[1]!);
  for (const needed of ['stores/event-store', 'stores/read-store-contract', 'stores/projector-lease', 'e2e/real-stores']) {
    assert.ok(
      files.some((f) => f.includes(needed)),
      `runs ${needed}`,
    );
  }
  for (const f of files) {
    const source = path.join(root, f.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
    assert.ok(fs.existsSync(source), `${f} is built from ${source}, which exists`);
  }
});

test.run();

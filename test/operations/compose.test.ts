/**
 * The deployment files: compose.yaml and the Dockerfile it builds. These machines cannot run containers, so compose.yaml
 * is read with a YAML parser and held to what the town reads: its services, their health checks
 * (on the routes and ports the town serves them), its volumes, and only variables src/config.ts
 * reads, which in turn are exactly the ones it lists; and the Dockerfile it builds is read
 * instruction by instruction: its stages, npm ci and the build inside, a non-root runtime with a
 * health check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { environmentNames, settingsFromEnv } from '../../src/config.js';
import { chooseProjections } from '../../src/projectors/worker.js';
import { projectionNames } from '../../src/projections/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, any>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const town = ['front-a', 'front-b', 'projector-reads', 'projector-repository', 'reactor-feed'];

test('the services: EventStoreDB, MongoDB, two fronts, the projector workers, the feed reactor', () => {
  assert.equal(Object.keys(services).sort(), ['eventstore', 'mongodb', ...town].sort());
  const command = (name: string) => services[name].command as string[];
  for (const name of ['front-a', 'front-b']) assert.equal(command(name), ['node', 'dist/src/main.js']);
  assert.equal(command('reactor-feed'), ['node', 'dist/src/cli/reactor.js', 'feed']);
  // Every projection is folded by exactly one worker.
  const folded = ['projector-reads', 'projector-repository'].flatMap((name) => {
    const [node, script, ...names] = command(name);
    assert.equal([node, script], ['node', 'dist/src/cli/projector.js']);
    return chooseProjections(names);
  });
  assert.equal([...folded].sort(), [...projectionNames].sort());
  for (const name of town) {
    const [, script] = command(name);
    assert.ok(fs.existsSync(path.join(root, script!.replace(/^dist\//, '').replace(/\.js$/, '.ts'))), `${script} is built from a source`);
  }
});

test('the town services read only what src/config.ts reads, and agree on the stores', () => {
  for (const name of town) {
    const env = services[name].environment as Record<string, string>;
    for (const key of Object.keys(env)) assert.ok((environmentNames as readonly string[]).includes(key), `${name}: ${key} is read by the town`);
    assert.is(new URL(env.EVENTSTORE_URL!).host, 'eventstore:2113');
    assert.is(new URL(env.MONGO_URL!).host, 'mongodb:27017');
    assert.is(new URL(env.MONGO_URL!).searchParams.get('replicaSet'), 'rs0');
    assert.is(env.TOWN_DATA, '/data');
    assert.ok(services[name].volumes.includes('town-data:/data'), `${name} shares the secret and keys`);
    // The values parse as the town parses them (compose's ${…:-default} taken at its default).
    const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]));
    const settings = settingsFromEnv(resolved);
    assert.is(settings.inProcessProjectors, false, `${name}: projectors are workers beside MongoDB`);
    for (const dep of ['eventstore', 'mongodb']) assert.is(services[name].depends_on[dep].condition, 'service_healthy');
  }
  for (const name of ['projector-reads', 'projector-repository', 'reactor-feed'])
    assert.ok(services[name].environment.TOWN_METRICS_PORT, `${name} serves its metrics`);
  // The MongoDB service is the replica set the URL names.
  assert.ok(services.mongodb.command.includes('--replSet') && services.mongodb.command.includes('rs0'));
});

test('every service has a health check, on the routes and ports the town serves', () => {
  for (const [name, s] of Object.entries(services)) {
    const check = s.healthcheck;
    assert.ok(check?.test?.length, `${name} has a health check`);
    assert.ok(check.interval && check.retries, `${name}: interval and retries`);
  }
  for (const name of ['front-a', 'front-b']) {
    const probe = services[name].healthcheck.test.join(' ');
    assert.match(probe, `http://127.0.0.1:${services[name].environment.PORT}/ready`);
  }
  for (const name of ['projector-reads', 'projector-repository', 'reactor-feed']) {
    const probe = services[name].healthcheck.test.join(' ');
    assert.match(probe, `http://127.0.0.1:${services[name].environment.TOWN_METRICS_PORT}/health`);
  }
  assert.match(services.eventstore.healthcheck.test.join(' '), '/health/live');
});

test('volumes are declared, and EventStoreDB runs with the repository eventstore.conf', () => {
  const named = new Set(Object.keys(compose.volumes));
  for (const [name, s] of Object.entries(services)) {
    for (const v of (s.volumes ?? []) as string[]) {
      const source = v.split(':')[0]!;
      if (source.startsWith('.')) assert.ok(fs.existsSync(path.join(root, source)), `${name}: ${source} exists`);
      else assert.ok(named.has(source), `${name}: volume ${source} is declared`);
    }
  }
  assert.ok(services.eventstore.volumes.includes('./eventstore.conf:/etc/eventstore/eventstore.conf:ro'));
  assert.equal(services.eventstore.command, ['--config', '/etc/eventstore/eventstore.conf']);
});

/** The Dockerfile's instructions by stage: continuation lines joined, comments dropped. */
function dockerfileStages(text: string): { name: string; from: string; instructions: { op: string; args: string }[] }[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: { name: string; from: string; instructions: { op: string; args: string }[] }[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    if (op!.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args!.trim())!;
      stages.push({ name: m[2] ?? String(stages.length), from: m[1]!, instructions: [] });
    } else if (stages.length) stages.at(-1)!.instructions.push({ op: op!.toUpperCase(), args: args!.trim() });
  }
  return stages;
}

test('the Dockerfile: multi-stage, npm ci inside, the build inside, a non-root runtime with a health check on /health', () => {
  const stages = dockerfileStages(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
  assert.equal(
    stages.map((s) => s.name),
    ['deps', 'build', 'runtime'],
  );
  const stage = (name: string) => stages.find((s) => s.name === name)!;
  const runs = (name: string) =>
    stage(name)
      .instructions.filter((i) => i.op === 'RUN')
      .map((i) => i.args);
  // The dependencies are installed inside, from the lockfile: production ones for the runtime,
  // all of them (the compiler) for the build.
  assert.ok(
    runs('deps').some((r) => /^npm ci\b/.test(r) && r.includes('--omit=dev')),
    'deps: npm ci --omit=dev',
  );
  assert.ok(
    runs('build').some((r) => /^npm ci\b/.test(r) && !r.includes('--omit=dev')),
    'build: npm ci',
  );
  for (const name of ['deps', 'build']) {
    const copies = stage(name).instructions.filter((i) => i.op === 'COPY');
    assert.ok(
      copies.some((c) => c.args.includes('package-lock.json')),
      `${name} copies the lockfile`,
    );
  }
  assert.ok(
    runs('build').some((r) => r.includes('tsc -p tsconfig.build.json')),
    'the TypeScript is built inside',
  );
  const buildConfig = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8')) as { extends: string; include: string[] };
  assert.equal(buildConfig, { extends: './tsconfig.json', include: ['src/**/*.ts'] });
  // Nothing of this machine's node_modules or build: the runtime's come from the stages above.
  const ignored = fs
    .readFileSync(path.join(root, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  for (const name of ['node_modules', 'dist', 'data']) assert.ok(ignored.includes(name), `.dockerignore leaves out ${name}`);
  const runtime = stage('runtime').instructions;
  const copies = runtime.filter((i) => i.op === 'COPY').map((i) => i.args);
  assert.ok(copies.includes('--from=deps /town/node_modules ./node_modules'), copies.join(' | '));
  assert.ok(copies.includes('--from=build /town/dist/src ./dist/src'), copies.join(' | '));
  for (const c of copies) assert.not.ok(/^(\S+\s+)?node_modules\b/.test(c), `the runtime copies no node_modules from the context: ${c}`);
  // What it reads at run time is in what it copies: package.json and src/'s assets.
  assert.ok(copies.includes('package.json ./') && copies.includes('src ./src'));
  assert.ok(fs.existsSync(path.join(root, 'src/cards/library/core.card')) && fs.existsSync(path.join(root, 'src/pages/static')));
  // A non-root user, set before the command, never switched back.
  const users = runtime.filter((i) => i.op === 'USER').map((i) => i.args);
  assert.equal(users, ['node']);
  assert.ok(runtime.findIndex((i) => i.op === 'USER') < runtime.findIndex((i) => i.op === 'CMD'), 'USER before CMD');
  assert.not.ok(
    runtime.slice(runtime.findIndex((i) => i.op === 'USER')).some((i) => i.op === 'RUN'),
    'nothing runs as root after USER',
  );
  // The health check probes /health on the port the process serves it on.
  const health = runtime.find((i) => i.op === 'HEALTHCHECK')?.args ?? '';
  assert.match(health, /--interval=\S+/);
  assert.match(health, /CMD \[/);
  assert.ok(health.includes('/health') && health.includes('process.env.PORT') && health.includes('process.env.TOWN_METRICS_PORT'), health);
  const cmd = JSON.parse(runtime.find((i) => i.op === 'CMD')!.args) as string[];
  assert.equal(cmd, ['node', 'dist/src/main.js']);
  assert.ok(fs.existsSync(path.join(root, 'src/main.ts')));
});

test('compose builds the Dockerfile for every town service, and mounts no checkout into it', () => {
  for (const name of town) {
    const s = services[name];
    assert.equal(s.build, { context: '.', dockerfile: 'Dockerfile', target: 'runtime' }, `${name} builds the image`);
    for (const v of (s.volumes ?? []) as string[]) assert.not.ok(v.startsWith('.'), `${name} mounts nothing of the host: ${v}`);
    assert.is(s.working_dir, undefined, `${name} runs in the image's WORKDIR`);
  }
});

test('config.ts reads exactly the variables it lists', () => {
  const source = fs.readFileSync(path.join(root, 'src/config.ts'), 'utf8');
  const read = new Set([...source.matchAll(/env\.([A-Z_]+)/g)].map((m) => m[1]!));
  assert.equal([...read].sort(), [...environmentNames].sort());
});

test.run();

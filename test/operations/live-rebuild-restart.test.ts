/**
 * A town restarted after a live rebuild serves the generation it switched to, and a second
 * live rebuild, run as the operator runs it (`npm run rebuild -- --live` over the town's control
 * socket), moves on to the next one and drops the first.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveControl } from '../../src/cli/control.js';
import { townControl } from '../../src/cli/town-control.js';
import { settingsFromEnv } from '../../src/config.js';
import { startTestTown } from '../world/support.js';
import { allProjections } from '../../src/projectors/registry.js';
import { rebuildLive } from '../../src/projections/live-rebuild.js';
import type { ProjectorHandle } from '../../src/projections/projector.js';
import { loadRepositoryKeys } from '../../src/repository/keys.js';
import { projectionNames } from '../../src/projections/index.js';

const rebuildCli = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..'), 'dist/src/cli/rebuild.js');

function cli(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [rebuildCli, ...args], { env: { ...process.env, TOWN_DATA: dataDir } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

test('a town restarted after a live rebuild serves the new generation', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 1 } });
    await t.town.rebuildLive();
    const after = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'after', fields: { measures: 2 } });
    assert.is(after.status, 200);
    await t.restart();
    assert.is(t.town.reads.generation, 1);
    assert.is((await t.get('/AGENTS.md/receipt?intent=before', ann.token)).status, 200);
    assert.is((await t.get('/AGENTS.md/receipt?intent=after', ann.token)).status, 200);
    // A second one, as the operator runs it (`npm run rebuild -- --live`, over the control
    // socket), goes on to generation 2 and drops 1.
    const control = await serveControl(t.dir, townControl(t.town, { ...settingsFromEnv({}), dataDir: t.dir }));
    try {
      const named = await cli(['--live', 'cards'], t.dir);
      assert.is(named.code, 2);
      assert.match(named.stderr, /a generation is whole/);
      const r = await cli(['--live'], t.dir);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /serving generation 2 \(was 1\)/);
      assert.match(r.stderr, /switched to generation 2/);
      assert.is(r.stdout.split('\n').filter((l) => /^digest \w+ \d+ [0-9a-f]{64}$/.test(l)).length, projectionNames.length, r.stdout);
    } finally {
      await control.close();
    }
    assert.is(t.town.reads.generation, 2);
    assert.is(await t.town.reads.at(1).checkpoint('cards'), undefined);
    assert.is((await t.get('/AGENTS.md/receipt?intent=after', ann.token)).status, 200);
  } finally {
    await t.close();
  }
});

test('a town folding on its serving thread (no projector thread) rebuilds live too', async () => {
  const t = await startTestTown({ projectorThread: false });
  try {
    const ann = await t.guest('ann');
    await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 1 } });
    const turns = Promise.all(
      Array.from({ length: 20 }, (_, i) => t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `during-${i}`, fields: { measures: i % 3 } })),
    );
    const result = await t.town.rebuildLive();
    assert.is(result.generation, 1);
    for (const r of await turns) assert.is(r.status, 200, r.text);
    const after = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'after', fields: { measures: 2 } });
    assert.is(after.status, 200);
    for (const intent of ['before', 'during-19', 'after']) assert.is((await t.get(`/AGENTS.md/receipt?intent=${intent}`, ann.token)).status, 200, intent);
    assert.is(await t.town.reads.at(0).checkpoint('receipts'), undefined);
  } finally {
    await t.close();
  }
});

test('a live rebuild that fails leaves the town serving its generation, projectors folding, the next one dropped', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 1 } });
    // A projector that cannot be suspended, after the town's own have been.
    const stuck: ProjectorHandle = {
      ...t.town.projectors[0]!,
      names: ['stuck'],
      suspend: () => Promise.reject(new Error('cannot suspend')),
      resume: () => Promise.resolve(),
    };
    const all = allProjections(t.town.programs, { keys: () => loadRepositoryKeys(t.dir) });
    const error = await rebuildLive({
      events: t.town.events,
      reads: t.town.reads,
      projections: Object.values(all),
      projectors: [...t.town.projectors, stuck],
    }).catch((e: Error) => e);
    assert.match(String(error), /cannot suspend/);
    assert.is(t.town.reads.generation, 0);
    assert.is(await t.town.reads.at(1).checkpoint('cards'), undefined, 'what was built of generation 1 is dropped');
    assert.is(await t.town.reads.at(1).collection('receipts.receipts').count({}), 0);
    // The town's projectors were resumed: a new turn reads back.
    const after = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'after', fields: { measures: 2 } });
    assert.is(after.status, 200);
    assert.is((await t.get('/AGENTS.md/receipt?intent=after', ann.token)).status, 200);
    // And a live rebuild after it succeeds.
    assert.is((await t.town.rebuildLive()).generation, 1);
  } finally {
    await t.close();
  }
});

test.run();

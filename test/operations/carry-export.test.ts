/**
 * Export and import (town-archive/1) of a carried town: the archive holds every epoch's stream
 * and the epoch pointer, its height is the town's (the carried epoch's, not the first stream's
 * revision), and the imported town opens on the new epoch with the same read models, keeping the
 * old epoch's promises.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, digestLines } from './town-cli.js';
import { serveControl } from '../../src/cli/control.js';
import { townControl } from '../../src/cli/town-control.js';
import { settingsFromEnv } from '../../src/config.js';
import { startTestTown } from '../world/support.js';

test('a carried town exported and imported: its height, its digests, its promises', async () => {
  const t = await startTestTown();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-export-'));
  const control = await serveControl(t.dir, townControl(t.town, { ...settingsFromEnv({}), dataDir: t.dir }));
  let imported: Awaited<ReturnType<typeof startTestTown>> | undefined;
  try {
    const ann = await t.guest('ann');
    const first = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 1 } });
    assert.is(first.status, 200, first.text);
    const carried = await cli(['carry'], t.dir);
    assert.is(carried.code, 0, carried.stderr);
    const after = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'after', fields: { measures: 2 } });
    assert.is(after.status, 200, after.text);
    const height = t.town.world.height;

    const file = path.join(scratch, 'town.archive');
    const exported = await cli(['export', file], t.dir);
    assert.is(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, new RegExp(`height ${height - 1},`), 'the height of the last entry, in the carried epoch');
    const into = path.join(scratch, 'imported');
    const done = await cli(['import', file], into);
    assert.is(done.code, 0, done.stderr);
    assert.equal(digestLines(done.stdout), digestLines(exported.stdout));

    imported = await startTestTown({ dir: into });
    assert.is(imported.town.world.height, height, 'opened on the carried epoch');
    const again = await imported.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 1 } });
    assert.is(again.status, 200, again.text);
    assert.is(again.json.repeated, true);
    assert.match(again.json.line, /from before a carry/);
  } finally {
    await control.close();
    await imported?.close();
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});

test.run();

/**
 * Backup and export (src/archive): `npm run town -- export` through a running town's control
 * socket while guests cast turns, and `import` of the archive into a fresh folder giving the
 * same digests and a town where the guests' keys still work. The refusals are
 * archive-refusals.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, digestLines } from './town-cli.js';
import { serveControl } from '../../src/cli/control.js';
import { townControl } from '../../src/cli/town-control.js';
import { settingsFromEnv } from '../../src/config.js';
import { startTestTown } from '../world/support.js';
import { projectionNames } from '../../src/projections/index.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'town-archive-'));
const archive = path.join(scratch, 'town.archive');

test('export under load through the running town, import into a fresh folder: equal digests, a working town', async () => {
  const t = await startTestTown();
  const control = await serveControl(t.dir, townControl(t.town, { ...settingsFromEnv({}), dataDir: t.dir }));
  let imported: Awaited<ReturnType<typeof startTestTown>> | undefined;
  try {
    const guests = await Promise.all(Array.from({ length: 12 }, (_, i) => t.guest(`g${i}`)));
    await Promise.all(
      Array.from({ length: 300 }, (_, j) =>
        t.town.world.submit({
          kind: 'turn',
          principal: guests[j % 12]!.principal,
          intent: `bulk-${j}`,
          object: 'lamp',
          method: 'fill',
          fields: { measures: j % 3 },
        }),
      ),
    );
    assert.is((await t.post('/AGENTS.md/feed', guests[0]!.token, { text: 'before the export' })).status, 200);
    let stop = false;
    const failures: string[] = [];
    const load = guests.map(async (g, gi) => {
      for (let n = 0; !stop; n++) {
        const r = await t.post('/AGENTS.md/world/lamp/fill', g.token, { intent: `load-${gi}-${n}`, fields: { measures: n % 3 } });
        if (r.status !== 200) failures.push(`${r.status} ${r.text.slice(0, 200)}`);
      }
    });
    const exported = await cli(['export', archive], t.dir);
    const heightAfter = t.town.world.height;
    stop = true;
    await Promise.all(load);
    assert.is(exported.code, 0, exported.stderr);
    assert.equal(failures, []);
    assert.match(exported.stdout, /^exported [\d,]+ events to .*town\.archive .* with the keys/m);
    assert.is((fs.statSync(archive).mode & 0o777).toString(8), '600', 'an archive with the keys is private');
    const exportedDigests = digestLines(exported.stdout);
    assert.is(exportedDigests.length, projectionNames.length, exported.stdout);
    const position = Number(/position (\d+)/.exec(exported.stdout)![1]);
    const height = Number(/height (\d+)/.exec(exported.stdout)![1]);
    assert.ok(height >= 300 && height < heightAfter, `the archive stops at one height (${height}) while the town went on (${heightAfter})`);
    // What is in it: a header, the events in order, the secrets, the end.
    const lines = gunzipSync(fs.readFileSync(archive))
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.is(lines[0].archive.format, 'town-archive/1');
    assert.is(lines[0].archive.host, 'town.test');
    assert.ok(lines[0].archive.publicKeys.commit.startsWith('z'));
    assert.equal(Object.keys(lines.at(-2).secrets).sort(), ['commit.key', 'receipt.key', 'secret.key']);
    assert.is(lines.at(-1).end.position, String(position));
    assert.is(lines.at(-1).end.events, lines.length - 3);

    const fresh = path.join(scratch, 'restored');
    const done = await cli(['import', archive], fresh);
    assert.is(done.code, 0, done.stderr);
    assert.equal(digestLines(done.stdout), exportedDigests, "the imported read models equal the archive's");
    assert.ok(
      done.stdout
        .split('\n')
        .filter((l) => l.startsWith('digest '))
        .every((l) => l.endsWith("(equals the archive's)")),
    );
    // The restored town serves: the guests' keys work, the world stands at the archive's height.
    imported = await startTestTown({ dir: fresh });
    assert.is(imported.town.world.height, height + 1, "the next entry is the one after the archive's last");
    const me = await imported.get('/AGENTS.md/me', guests[3]!.token);
    assert.is(me.status, 200, me.text);
    const lamp = await imported.post('/AGENTS.md/world/lamp/fill', guests[3]!.token, { intent: 'after-restore', fields: { measures: 1 } });
    assert.is(lamp.status, 200, lamp.text);
    assert.is(lamp.json.receipt.height, height + 1);
    assert.is((await imported.get('/AGENTS.md/receipt?intent=bulk-3', guests[3]!.token)).status, 200);
  } finally {
    await control.close();
    await t.close();
    await imported?.close();
  }
});

test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));
test.run();

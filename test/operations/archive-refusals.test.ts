/**
 * Backup and export, the refusals (src/archive): import into a folder in use, of a damaged,
 * truncated or altered archive (nothing written), export without a file; `verify` of a good and
 * a damaged archive; and an archive without the keys (`--no-secrets`), whose import compares
 * every digest but the repository's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, digestLines } from './town-cli.js';
import { serveControl } from '../../src/cli/control.js';
import { townControl } from '../../src/cli/town-control.js';
import { settingsFromEnv } from '../../src/config.js';
import { ImportRefused, importTown } from '../../src/archive/import.js';
import { startTestTown } from '../world/support.js';
import { projectionNames } from '../../src/projections/index.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'town-archive-'));
const archive = path.join(scratch, 'town.archive');
const open = path.join(scratch, 'open.archive');
let openExport = '';
let keys: string[] = [];

test.before(async () => {
  // A small town, exported twice while it runs: with the keys, and without.
  const t = await startTestTown();
  const control = await serveControl(t.dir, townControl(t.town, { ...settingsFromEnv({}), dataDir: t.dir }));
  try {
    const ann = await t.guest('ann');
    for (let i = 0; i < 5; i++) await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `bulk-${i}`, fields: { measures: 1 } });
    const full = await cli(['export', archive], t.dir);
    assert.is(full.code, 0, full.stderr);
    const bare = await cli(['export', open, '--no-secrets'], t.dir);
    assert.is(bare.code, 0, bare.stderr);
    openExport = bare.stdout;
    keys = ['secret.key', 'commit.key', 'receipt.key'].map((k) => fs.readFileSync(path.join(t.dir, k), 'utf8').trim());
  } finally {
    await control.close();
    await t.close();
  }
});

test('import refuses a folder in use and leaves it as it was', async () => {
  const used = fs.mkdtempSync(path.join(scratch, 'used-'));
  fs.writeFileSync(path.join(used, 'notes.txt'), 'mine');
  const r = await cli(['import', archive], used);
  assert.is(r.code, 1);
  assert.match(r.stderr, /is not empty: import only into an empty TOWN_DATA/);
  assert.equal(fs.readdirSync(used), ['notes.txt']);
});

test('import refuses a damaged, a truncated and an altered archive, writing nothing', async () => {
  const bytes = fs.readFileSync(archive);
  const plain = gunzipSync(bytes).toString('utf8');
  const damaged = Buffer.from(bytes);
  damaged[Math.floor(damaged.length / 2)]! ^= 0xff;
  // A line altered but still JSON (a turn's intent), written back as gzip and as plain text.
  const altered = plain.replace(/"intent":"bulk-1"/, '"intent":"bulk-X"');
  assert.ok(altered !== plain);
  const lines = plain.trimEnd().split('\n');
  const cases: [string, Buffer, RegExp][] = [
    ['damaged', damaged, /unreadable|checksum|not JSON|not an|truncated/],
    ['truncated', bytes.subarray(0, Math.floor(bytes.length * 0.6)), /truncated|unreadable/],
    ['truncated at a line', gzipSync(lines.slice(0, -1).join('\n')), /truncated: no end line/],
    ['altered', gzipSync(altered), /checksum mismatch/],
    ['altered, plain', Buffer.from(altered), /checksum mismatch/],
    ['not an archive', Buffer.from('{"hello":1}\n'), /not a town archive/],
  ];
  fs.writeFileSync(path.join(scratch, 'damaged.archive'), damaged);
  const verified = await cli(['verify', archive], path.join(scratch, 'nowhere'));
  assert.is(verified.code, 0, verified.stderr);
  assert.match(verified.stdout, /town-archive\/1 archive of town\.test, \d+ events to position \d+, height \d+, with the keys; checksum [0-9a-f]{64} good/);
  assert.is(verified.stdout.split('\n').filter((l) => l.startsWith('digest ')).length, projectionNames.length);
  const refused = await cli(['verify', path.join(scratch, 'damaged.archive')], path.join(scratch, 'nowhere'));
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /damaged\.archive: /);
  assert.not.ok(fs.existsSync(path.join(scratch, 'nowhere')), 'verify writes nothing');
  // One through the command line (its exit code and message), the others in process.
  for (const [i, [what, content, why]] of cases.entries()) {
    const file = path.join(scratch, `${what}.archive`);
    fs.writeFileSync(file, content);
    const target = path.join(scratch, `into-${what.replace(/\W/g, '-')}`);
    if (i === 0) {
      const r = await cli(['import', file], target);
      assert.is(r.code, 1, `${what}: ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, /import refused/);
      assert.match(r.stderr, why, what);
    } else {
      const error = await importTown({ file, settings: { ...settingsFromEnv({}), dataDir: target } }).then(
        () => undefined,
        (e: Error) => e,
      );
      assert.instance(error, ImportRefused, `${what}: ${error?.stack}`);
      assert.match(error!.message, why, what);
    }
    assert.not.ok(fs.existsSync(target), `${what}: nothing written`);
  }
  const missing = await importTown({
    file: path.join(scratch, 'absent.archive'),
    settings: { ...settingsFromEnv({}), dataDir: path.join(scratch, 'into-absent') },
  }).catch((e: Error) => e);
  assert.match(String(missing), /no archive at/);
});

test('export needs one file and no other flag, and touches nothing when refused', async () => {
  const none = await cli(['export'], path.join(scratch, 'nowhere'));
  assert.is(none.code, 2);
  assert.match(none.stderr, /export takes one file/);
  const odd = await cli(['export', 'x', '--everything'], path.join(scratch, 'nowhere'));
  assert.is(odd.code, 2);
  assert.match(odd.stderr, /export does not take --everything/);
  assert.not.ok(fs.existsSync(path.join(scratch, 'nowhere')));
});

test("--no-secrets leaves the keys out; its import compares every digest but the repository's", async () => {
  assert.match(openExport, /without secrets/);
  assert.is((fs.statSync(open).mode & 0o777).toString(8), '644');
  const text = gunzipSync(fs.readFileSync(open)).toString('utf8');
  assert.not.match(text, /^\{"secrets"/m);
  assert.match(text, /"secrets":false/);
  for (const secret of keys) assert.not.ok(text.includes(secret), 'no key is in the archive');
  const again = await cli(['import', open], path.join(scratch, 'analyst'));
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /digest repository .* \(not compared/);
  assert.equal(
    digestLines(again.stdout).filter((l) => !l.startsWith('digest repository')),
    digestLines(openExport).filter((l) => !l.startsWith('digest repository')),
  );
});

test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));
test.run();

/**
 * `npm run town -- carry`, as the operator runs it: through a running town's control socket
 * (the town carries itself and serves on, at heights after the carry) and on a stopped town's
 * store (the command carries it; the town started again is on the new epoch); and its refusals:
 * a fork holding a height of the town, a second carry while one runs, arguments it does not take.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serveControl } from '../../src/cli/control.js';
import { townControl } from '../../src/cli/town-control.js';
import { verifyArchive } from '../../src/events/epoch-archive.js';
import { currentEpoch } from '../../src/events/epochs.js';
import { TOWN_WORLD } from '../../src/events/world.js';
import { settingsFromEnv } from '../../src/config.js';
import { startTestTown } from '../world/support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const townCli = path.join(root, 'dist/src/cli/town.js');

function cli(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, TOWN_DATA: dataDir };
  delete env.EVENTSTORE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, [townCli, ...args], { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** What the command printed: the archive's path, the epoch, its height and the present's digest. */
function printed(stdout: string) {
  const archive = /^archive (\S+) sha256 ([0-9a-f]{64})$/m.exec(stdout);
  const epoch = /^epoch (\d+) height (\d+) digest ([0-9a-f]{64})$/m.exec(stdout);
  assert.ok(archive && epoch, stdout);
  return { file: archive![1]!, sha256: archive![2]!, epoch: Number(epoch![1]), height: Number(epoch![2]), digest: epoch![3]! };
}

const io = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
};

test('carry through the running town: printed, archived, and the town serves on at heights after it', async () => {
  const t = await startTestTown();
  const settings = { ...settingsFromEnv({}), dataDir: t.dir };
  let control = await serveControl(t.dir, townControl(t.town, settings));
  try {
    const ann = await t.guest('ann');
    const fills: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `fill-${i}`, fields: { measures: 1 + (i % 2) } });
      assert.is(r.status, 200, r.text);
      fills.push(r.json.receipt.height);
    }
    const lampBefore = (await t.get('/AGENTS.md/world/lamp', ann.token)).json.state;
    const offersBefore = await t.get('/AGENTS.md/offers', ann.token);
    assert.is(offersBefore.status, 200, offersBefore.text);

    // turns go on while the command runs: each lands before the carry entry or after it
    let stop = false;
    const during: number[] = [];
    const load = (async () => {
      for (let n = 0; !stop; n++) {
        const r = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `during-${n}`, fields: { measures: 1 } });
        assert.is(r.status, 200, r.text);
        during.push(r.json.receipt.height);
      }
    })();
    const carried = await cli(['carry'], t.dir);
    stop = true;
    await load;
    assert.is(carried.code, 0, carried.stderr);
    const p = printed(carried.stdout);
    assert.is(p.epoch, 1);
    assert.is(path.dirname(p.file), path.join(t.dir, 'archive'));
    const trailer = await verifyArchive(p.file);
    assert.equal({ height: trailer.height, digest: trailer.digest, sha256: trailer.sha256 }, { height: p.height, digest: p.digest, sha256: p.sha256 });
    assert.equal(await currentEpoch(t.town.events, TOWN_WORLD), { epoch: 1, start: p.height, stream: `world-town@${p.height}`, revision: 0n });

    // heights keep increasing across the carry: none reused, none at the carry entry
    const after = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'after', fields: { measures: 2 } });
    assert.is(after.status, 200, after.text);
    const all = [...fills, ...during, after.json.receipt.height as number];
    assert.equal(
      all,
      [...all].sort((a, b) => a - b),
      'in the order asked',
    );
    assert.is(new Set(all).size, all.length);
    assert.not.ok(all.includes(p.height));
    assert.ok(after.json.receipt.height > p.height);
    // the lamp reads as the world service holds it
    const lamp = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is(lamp.status, 200, lamp.text);
    assert.equal(lamp.json.state, t.town.world.committed.cards.get('lamp')!.state);
    assert.ok(lampBefore !== undefined);
    // offers?after= the height before the carry answers nothing older than it
    const since = await t.get(`/AGENTS.md/offers?after=${p.height}`, ann.token);
    assert.is(since.status, 200, since.text);
    assert.ok(since.json.height >= p.height, JSON.stringify(since.json));
    // a pre-carry receipt by its slug: the pointer
    const first = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'fill-0', fields: { measures: 1 } });
    assert.is(first.json.repeated, true, first.text);
    assert.match(first.json.line, /from before a carry: the whole receipt lies in the archive town-epoch-0\.ndjson \(epoch 0/);
    assert.is(first.json.receipt.height, fills[0]);
    const pointer = await t.get(`/AGENTS.md/receipt/${first.json.receipt.slug}`, ann.token);
    assert.is(pointer.status, 200, pointer.text);
    assert.equal(pointer.json.carried, { archive: 'town-epoch-0.ndjson', epoch: 0, height: fills[0], cid: pointer.json.cid });

    // a second carry while one runs is refused; the one running completes
    const [one, two] = [io(), io()];
    const run = townControl(t.town, settings);
    const codes = await Promise.all([run('carry', [], one.io), run('carry', [], two.io)]);
    assert.equal(codes, [0, 1], two.err.join('\n'));
    assert.match(two.err.join('\n'), /carry refused: a carry of town is under way already/);
    assert.is(printed(one.out.join('\n')).epoch, 2);

    // a fork of the town holds a height: refused, nothing changed
    const fork = await t.post('/AGENTS.md/scratch', ann.token, { name: 'try', from: { world: 'town', height: t.town.world.height } });
    assert.is(fork.status, 200, fork.text);
    const held = await cli(['carry'], t.dir);
    assert.is(held.code, 1, held.stdout);
    assert.match(held.stderr, /carry refused: scratch worlds read through/);
    assert.is((await currentEpoch(t.town.events, TOWN_WORLD)).epoch, 2);
    // once the fork has expired (six hours of the town's clock after its last turn), nothing holds
    t.clock.advance(7 * 3_600_000);
    assert.is((await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'later', fields: { measures: 1 } })).status, 200);
    const me = await t.get('/AGENTS.md/me', ann.token);
    assert.is(me.status, 200, me.text);
    const freed = await cli(['carry'], t.dir);
    assert.is(freed.code, 0, freed.stderr);
    assert.is(printed(freed.stdout).epoch, 3);

    // arguments it does not take
    const bad = await cli(['carry', '--now'], t.dir);
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /carry does not take --now/);

    // the stopped town: the command opens its store and carries it
    await control.close();
    let stopped: Awaited<ReturnType<typeof cli>> | undefined;
    const height = t.town.world.height;
    await t.restart({}, async () => {
      stopped = await cli(['carry'], t.dir);
    });
    control = await serveControl(t.dir, townControl(t.town, settings));
    assert.is(stopped!.code, 0, stopped!.stderr);
    const q = printed(stopped!.stdout);
    assert.equal({ epoch: q.epoch, height: q.height }, { epoch: 4, height });
    assert.is(t.town.world.height, height + 1, 'started on the new epoch, its carry entry');
    const next = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'after-stopped', fields: { measures: 1 } });
    assert.is(next.json.receipt.height, height + 1);
    const old = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'fill-1', fields: { measures: 2 } });
    assert.is(old.json.repeated, true, old.text);
    assert.match(old.json.line, /from before a carry/);
  } finally {
    await control.close();
    await t.close();
  }
});

test('nothing to carry: a stopped, empty store is refused, exit 1', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'town-carry-empty-'));
  try {
    const r = await cli(['carry'], empty);
    assert.is(r.code, 1, r.stdout);
    assert.match(r.stderr, /carry refused: world-town is empty: there is nothing to carry/);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test.run();

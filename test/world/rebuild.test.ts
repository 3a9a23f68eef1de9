/**
 * Every read model can be rebuilt from the journal: after a few hundred mixed turns (fills,
 * makes, writes, refusals of several classes, sends and their deliveries, arrivals), the live
 * read models and the ones `npm run rebuild` folds again give the same digests, and so do
 * `npm run digest` and a second rebuild. Folding a tail again (a crash between data and
 * checkpoint) changes nothing.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { projectionNames } from '../../src/projections/index.js';
import { allProjections } from '../../src/projectors/registry.js';
import { digestProjection } from '../../src/projections/digest.js';
import { applyEvents } from '../../src/projections/projection.js';
import { rebuildProjections } from '../../src/projections/rebuild.js';
import { openEventStore } from '../../src/stores/open-event-store.js';
import { openReadStore } from '../../src/stores/open-read-store.js';
import { startTestTown, type Guest, type TestTown } from './support.js';

import { execFile } from 'node:child_process';

/** Runs a CLI of ours as `npm run <name>` does (node dist/src/cli/<name>.js), with its exit code. */
function cli(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file, ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const lampSource = 'type L:\n  lit: Boolean\n\ndef initial() -> L:\n  return L { lit: false }\n\nspell light(self: L) -> L:\n  return self { lit: true }\n';

async function mixedTurns(t: TestTown, guests: Guest[]): Promise<number> {
  const spells = [
    (i: number) => ['lamp', 'fill', { fields: { measures: i % 3 } }],
    (i: number) => ['lamp', 'receive', { spell: i % 2 ? 'light' : 'douse' }],
    () => ['notice-board', 'receive', { spell: 'make kind=note' }],
    (i: number) => ['lamp', 'give', { fields: { to: i % 2 ? 'notice-board' : 'square', note: `gift ${i}` } }],
    () => ['lamp', 'fill', { fields: { measures: 9 } }],
    () => ['nowhere', 'look', {}],
    (i: number) => ['lamp', 'receive', { spell: `fill measures=${i} measures=1` }],
    (i: number) => [`avatar-${guests[i % guests.length]!.name}`, 'rename', { fields: { name: `walker-${i}` } }],
  ] as ((i: number) => [string, string, Record<string, unknown>])[];
  let count = 0;
  for (let round = 0; round < 7; round++) {
    await Promise.all(
      guests.flatMap((g, gi) =>
        spells.map(async (spell, si) => {
          const i = round * 100 + gi * 10 + si;
          const [object, method, body] = spell(i);
          const r = await t.post(`/AGENTS.md/world/${object}/${method}`, g.token, { intent: `mix-${i}`, ...body });
          assert.is(r.status, 200, r.text);
          count++;
        }),
      ),
    );
    // Notes made so far get written on by their makers.
    const offers = await Promise.all(guests.map((g) => t.get('/AGENTS.md/offers?compact=1', g.token)));
    await Promise.all(
      guests.map((g, gi) => {
        const note = offers[gi]!.json.offers.at(-1);
        return note ? t.post(`/AGENTS.md/world/${note}/write`, g.token, { intent: `write-${round}`, fields: { text: `round ${round}` } }) : undefined;
      }),
    );
  }
  return count;
}

test('live read models equal rebuilt ones, digest for digest', async () => {
  const t = await startTestTown();
  const env = { ...process.env, TOWN_DATA: t.dir, TOWN_PROJECTORS: 'inline' };
  try {
    const guests = await Promise.all(['ann', 'bob', 'cy', 'dee'].map((g) => t.guest(g)));
    const turns = await mixedTurns(t, guests);
    assert.ok(turns >= 200, `${turns} turns`);
    // The feed: posts, replies and the town's answers to them.
    for (const g of guests) {
      const post = await t.post('/AGENTS.md/feed', g.token, { text: `hello from ${g.name}` });
      assert.is(post.status, 200, post.text);
      assert.is((await t.post('/AGENTS.md/feed', guests[0]!.token, { text: 'welcome', reply_to: post.json.uri })).status, 200);
    }
    // Hosted records: a guest's own repository, written and rewritten.
    for (const [i, g] of guests.entries()) {
      const repo = `did:web:town.test:guest:${g.name}`;
      const record = { object: 'lamp', text: `please, ${g.name}`, createdAt: new Date(0).toISOString() };
      const made = await t.post('/xrpc/com.atproto.repo.createRecord', g.token, { repo, collection: 'town.guest.request', rkey: 'ask', record });
      assert.is(made.status, 200, made.text);
      if (i % 2) assert.is((await t.post('/xrpc/com.atproto.repo.deleteRecord', g.token, { repo, collection: 'town.guest.request', rkey: 'ask' })).status, 200);
    }
    // Scratch worlds: one forked from the town and cast in, one empty that expires (its read
    // models deleted), so the digests cover what scratch worlds add and what expiry removes.
    assert.is((await t.post('/AGENTS.md/scratch', guests[1]!.token, { name: 'gone' })).status, 200);
    assert.is((await t.post('/AGENTS.md/scratch/gone/repl', guests[1]!.token, { entry: 'light', object: 'l', source: lampSource })).json.status, 'done');
    t.clock.advance(6 * 3_600_000 + 1);
    assert.equal((await t.get('/AGENTS.md/me', guests[1]!.token)).json.scratches, []);
    assert.is((await t.post('/AGENTS.md/scratch', guests[1]!.token, { name: 'fork', from: { world: 'town' } })).status, 200);
    const inFork = await t.post('/AGENTS.md/scratch/fork/world/notice-board/receive', guests[1]!.token, { intent: 'in-fork', spell: 'make kind=note' });
    assert.is(inFork.json.status, 'done', inFork.text);
    // Every post answered before the journal's head is taken, so no answer lands after it.
    for (let until = Date.now() + 5000; ; ) {
      const threads = (await t.get('/AGENTS.md/feed', guests[0]!.token)).json.threads as { replies: { town: boolean }[] }[];
      if (threads.length === guests.length && threads.every((th) => th.replies.some((r) => r.town))) break;
      assert.ok(Date.now() < until, 'the town answered every post');
      await new Promise((r) => setTimeout(r, 20));
    }
    const head = (await t.town.events.headPosition())!;
    for (const p of t.town.projectors) assert.ok(await p.waitFor(head, 30_000), `the live projectors caught up (${p.names.join(', ')})`);
    const projections = allProjections(libraryPrograms());
    const live = new Map<string, string>();
    for (const name of projectionNames) {
      const d = await digestProjection(t.town.reads, projections[name]);
      if (name !== 'pending') assert.ok(d.documents > 0, `${name} has documents`);
      live.set(name, `digest ${name} ${d.documents} ${d.sha256}`);
    }
    // Folding the last few hundred events again (as after a crash between data and checkpoint) is a no-op.
    const tail: import('../../src/stores/event-store.js').RecordedEvent[] = [];
    for await (const e of t.town.events.readAll({ after: head > 300n ? head - 300n : 0n })) tail.push(e);
    await t.town.reads.unit(async (unit) => {
      for (const name of projectionNames) await applyEvents(projections[name], tail, unit);
    });
    for (const name of projectionNames) {
      const d = await digestProjection(t.town.reads, projections[name]);
      assert.is(`digest ${name} ${d.documents} ${d.sha256}`, live.get(name), `${name} is idempotent`);
    }
    await t.town.close();

    const digest = await cli(path.join(root, 'dist/src/cli/digest.js'), [], env);
    assert.is(digest.code, 0, digest.stderr);
    assert.equal(digest.stdout.trim().split('\n').sort(), [...live.values()].sort(), 'npm run digest prints the live digests');
    const rebuilt = await cli(path.join(root, 'dist/src/cli/rebuild.js'), [], env);
    assert.is(rebuilt.code, 0, rebuilt.stderr);
    const lines = rebuilt.stdout.trim().split('\n');
    assert.ok(lines[0]!.startsWith('rebuilt cards, receipts, offers, pending, guests, feed, hosted, repository:'), lines[0]);
    assert.equal(lines.filter((l) => l.startsWith('digest ')).sort(), [...live.values()].sort(), 'rebuilt digests equal the live ones');
    assert.ok(/ev\/s ETA/.test(rebuilt.stderr), 'a progress bar with events/s and ETA');
    assert.ok(
      lines.some((l) => /^snapshot of town at height \d+ written/.test(l)),
      'the world snapshot is rebuilt too',
    );
    const one = await cli(path.join(root, 'dist/src/cli/rebuild.js'), ['receipts'], env);
    assert.ok(one.stdout.includes(live.get('receipts')!), 'one projection alone');
    // One set of projection objects rebuilt twice in a process (as a bench or a long-lived
    // tool does): what a fold remembers of the dropped read model (the cards' packages) is
    // forgotten with it, so the second rebuild writes everything again.
    const events = await openEventStore({ dataDir: t.dir });
    const reads = await openReadStore({ dataDir: t.dir });
    try {
      const again = projectionNames.filter((n) => n !== 'repository').map((n) => projections[n]);
      for (let round = 0; round < 2; round++) {
        await rebuildProjections(events, reads, again);
        for (const p of again) {
          const d = await digestProjection(reads, p);
          assert.is(`digest ${p.name} ${d.documents} ${d.sha256}`, live.get(p.name), `${p.name} rebuilt in process, round ${round + 1}`);
        }
      }
    } finally {
      await reads.close();
      await events.close();
    }
    const bad = await cli(path.join(root, 'dist/src/cli/rebuild.js'), ['nonsense'], env);
    assert.is(bad.code, 2);
    assert.ok(bad.stderr.includes('no projection named nonsense'));
    await t.restart();
    assert.ok(t.town.world.stats.snapshotLoaded > 0, 'the town starts from the rebuilt snapshot');
    assert.is(t.town.world.stats.replayed, 0);
  } finally {
    await t.restart().catch(() => {});
    await t.close();
  }
});

test.run();

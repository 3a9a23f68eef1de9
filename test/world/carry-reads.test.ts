/**
 * A town carried while stopped, then served again: receipts from before the carry answer a
 * pointer and a message (`GET receipt/{slug}`, `receipt?intent=`, `?full=1`, by content id),
 * a repeated pre-carry turn answers the pointer, another request under its intent is
 * `duplicateIdentity`, cards read as before, and receipts after the carry are whole (read from
 * the new epoch's journal). The live read models equal a rebuild's (the old epoch's stream kept:
 * the carry entry's rule makes it fold to the same; carry-rebuild.test.ts rebuilds without it),
 * and a town started from the rebuilt snapshot still keeps the old epoch's promises.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { digestProjection } from '../../src/projections/digest.js';
import { projectionNames } from '../../src/projections/index.js';
import { allProjections } from '../../src/projectors/registry.js';
import { carryWhileStopped } from './carry-town.js';
import { startTestTown } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Runs a CLI of ours as `npm run <name>` does, with its exit code. */
function cli(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file, ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

test('pre-carry receipts are pointers, post-carry ones whole; the town keeps its promises', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    const first = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 1 } });
    assert.is(first.status, 200, first.text);
    const slug = first.json.receipt.slug as string;
    const height = first.json.receipt.height as number;
    const full = await t.get(`/AGENTS.md/receipt/${slug}?full=1`, ann.token);
    const cid = full.json.cid as string;
    const lampBefore = await t.get('/AGENTS.md/world/lamp', ann.token);

    const { archive, height: carriedAt } = await carryWhileStopped(t);
    const pointer = { archive, epoch: 0, height, cid };

    for (const p of [
      `/AGENTS.md/receipt/${slug}`,
      `/AGENTS.md/receipt/${slug}?full=1`,
      `/AGENTS.md/receipt/${cid}`,
      '/AGENTS.md/receipt?intent=before',
      '/AGENTS.md/receipt?intent=before&full=1',
    ]) {
      const r = await t.get(p, ann.token);
      assert.is(r.status, 200, `${p}: ${r.text}`);
      assert.equal(r.json.carried, pointer, p);
      assert.is(r.json.height, height);
      assert.ok(String(r.json.message).includes(archive), r.json.message);
      assert.is(r.json.entry, undefined, `${p}: no whole entry from before a carry`);
    }
    // the pages: the read models hold the carried epoch alone (a rebuild from it makes the
    // same), so the chronicle shows the carry's own line naming the archive, not the line from
    // before it; the lamp's page and the guest's book no longer list the archived receipt
    const folded = (await t.town.events.headPosition())!;
    for (const p of t.town.projectors) assert.ok(await p.waitFor(folded, 30_000), 'the projectors folded the carry');
    const chronicle = await t.request('GET', '/history?day=1');
    assert.is(chronicle.status, 200);
    assert.ok(chronicle.text.includes(`entries before height ${carriedAt} lie in the archive ${archive}`), 'the carry line names the archive');
    assert.not.ok(chronicle.text.includes(`#${height}</span>`), 'the pre-carry line is archived, not shown');
    const cardPage = await t.request('GET', '/o/lamp?show=receipts');
    assert.is(cardPage.status, 200);
    assert.not.ok(cardPage.text.includes(`<code>${slug}</code>`), 'the lamp page lists receipts of the carried epoch');
    const book = await t.request('GET', '/o/ann.town.test/book');
    assert.is(book.status, 200, book.text.slice(0, 300));
    assert.not.ok(book.text.includes(`<code class="slug">${slug}</code>`), 'and so does the book');
    const repeat = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 1 } });
    assert.is(repeat.status, 200, repeat.text);
    assert.is(repeat.json.repeated, true);
    assert.equal(repeat.json.receipt, { slug, height });
    assert.ok(String(repeat.json.line).includes(archive), repeat.json.line);
    const other = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 2 } });
    assert.is(other.json.class, 'duplicateIdentity', other.text);

    const lampAfter = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is(lampAfter.status, 200);
    assert.equal(lampAfter.json, lampBefore.json);

    const next = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'after', fields: { measures: 1 } });
    assert.is(next.status, 200, next.text);
    assert.is(next.json.receipt.height, carriedAt + 1, 'heights go on after the carry entry');
    const whole = await t.get(`/AGENTS.md/receipt/${next.json.receipt.slug}?full=1`, ann.token);
    assert.is(whole.status, 200, whole.text);
    assert.is(whole.json.carried, undefined);
    assert.is(whole.json.entry?.height, carriedAt + 1, whole.text.slice(0, 400));
    const unknown = await t.get('/AGENTS.md/receipt?intent=never', ann.token);
    assert.is(unknown.status, 404);

    // read models across the carry: the live ones equal a rebuild's, digest for digest
    const head = (await t.town.events.headPosition())!;
    for (const p of t.town.projectors) assert.ok(await p.waitFor(head, 30_000), `the live projectors caught up (${p.names.join(', ')})`);
    const projections = allProjections(libraryPrograms());
    const live: string[] = [];
    for (const name of projectionNames) {
      const d = await digestProjection(t.town.reads, projections[name]);
      live.push(`digest ${name} ${d.documents} ${d.sha256}`);
    }
    await t.town.close();
    const env = { ...process.env, TOWN_DATA: t.dir, TOWN_PROJECTORS: 'inline' };
    const rebuilt = await cli(path.join(root, 'dist/src/cli/rebuild.js'), [], env);
    assert.is(rebuilt.code, 0, rebuilt.stderr);
    const lines = rebuilt.stdout.trim().split('\n');
    assert.equal(lines.filter((l) => l.startsWith('digest ')).sort(), live.sort(), 'rebuilt digests equal the live ones');
    assert.ok(
      lines.some((l) => l.startsWith(`snapshot of town at height ${carriedAt + 2} written`)),
      lines.join('\n'),
    );

    // started from the rebuilt snapshot (the carried past in it): the promises hold
    await t.restart();
    assert.is(t.town.world.stats.replayed, 0, 'started from the snapshot');
    assert.equal((await t.get(`/AGENTS.md/receipt/${slug}`, ann.token)).json.carried, pointer);
    const again = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'before', fields: { measures: 1 } });
    assert.is(again.json.repeated, true, again.text);
    assert.ok(String(again.json.line).includes(archive));
  } finally {
    await t.restart().catch(() => {});
    await t.close();
  }
});

test.run();

/**
 * The town answers each post exactly once: after the reactor was killed between the town's turn
 * and its answer (SIGKILL, in a process of its own), and with several reactors at once.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { answerPost } from '../../src/commands/feed-reactor.js';
import { FeedService } from '../../src/commands/feed-service.js';
import { feedStream } from '../../src/events/feed.js';
import { identityOf } from '../../src/contract/names.js';
import { settingsFromEnv } from '../../src/config.js';
import { openTown } from '../../src/town.js';
import { startTestTown } from '../world/support.js';

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'kill-child.js');

function runChild(dir: string): Promise<{ uri: string; slug: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    p.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const guard = setTimeout(() => p.kill('SIGKILL'), 30_000);
    p.on('exit', (code, signal) => {
      clearTimeout(guard);
      if (signal !== 'SIGKILL' || !out.trim()) return reject(new Error(`child exited ${code ?? signal}: ${out} ${err}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!));
    });
  });
}

async function answers(events: { readStream(s: string): Promise<{ type: string; data: unknown }[]> }, rkey: string): Promise<number> {
  return (await events.readStream(feedStream)).filter((e) => e.type === 'FeedAnswered' && (e.data as { to: string }).to === rkey).length;
}

test('killed after the town turned and before it answered: one answer after the restart, with that turn’s receipt', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-feed-kill-'));
  const killed = await runChild(dir);
  assert.ok(killed.slug, 'the child made the town’s turn');
  const t = await startTestTown({ dir });
  try {
    const ada = await t.guest('ann');
    const rkey = killed.uri.slice(killed.uri.lastIndexOf('/') + 1);
    const until = Date.now() + 2000;
    let thread: any;
    for (;;) {
      const r = await t.get(`/AGENTS.md/feed?thread=${encodeURIComponent(killed.uri)}`, ada.token);
      thread = r.json.threads?.[0];
      if (thread?.replies.some((p: any) => p.town) || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const town = thread.replies.filter((p: any) => p.town);
    assert.is(town.length, 1, JSON.stringify(thread));
    assert.is(town[0].receipt.slug, killed.slug, 'the answer carries the receipt of the turn made before the kill');
    assert.is(await answers(t.town.events, rkey), 1);
    // Another restart (a replay from the start of the feed) answers nothing more.
    await t.restart();
    await new Promise((r) => setTimeout(r, 300));
    assert.is(await answers(t.town.events, rkey), 1);
  } finally {
    await t.close();
  }
});

test('several reactors answering the same post at once: one answer', async () => {
  const t = await startTestTown();
  try {
    const host = t.town.config.host;
    const bea = identityOf(host, 'bea');
    // Two more fronts' feed services over the same journal, each acting as a reactor.
    const fronts = [new FeedService(t.town.events, t.clock, host), new FeedService(t.town.events, t.clock, host)];
    const posted = await fronts[0]!.post({ principal: bea.principal, did: bea.did, handle: bea.handle }, 'who answers?');
    await Promise.all(
      fronts.flatMap((feed) => [
        answerPost({ world: t.town.world, feed, host }, posted.event.data),
        answerPost({ world: t.town.world, feed, host }, posted.event.data),
      ]),
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.is(await answers(t.town.events, posted.event.data.rkey), 1);
  } finally {
    await t.close();
  }
});

test('npm run reactor -- feed answers as a worker what no front answered, then stops when asked', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-feed-worker-'));
  const clock = () => Date.UTC(2026, 10, 23, 12, 0, 0);
  const settings = { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: false };
  // A front that runs no reactor (as beside EventStoreDB): the post waits for the worker.
  const front = await openTown({ settings, clock, origin: 'http://town.test' });
  const cy = identityOf(front.config.host, 'cy');
  const posted = await new FeedService(front.events, clock, front.config.host).post({ principal: cy.principal, did: cy.did, handle: cy.handle }, 'anyone?');
  assert.is(await answers(front.events, posted.event.data.rkey), 0);
  await front.close();
  const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/reactor.js');
  const ran = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const p = spawn(process.execPath, [worker, 'feed', '--until-answered'], {
      env: { ...process.env, TOWN_DATA: dir, TOWN_ORIGIN: 'http://town.test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    p.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    p.on('exit', (code) => resolve({ code, out }));
  });
  assert.is(ran.code, 0, ran.out);
  const after = await openTown({ settings, clock, origin: 'http://town.test' });
  try {
    assert.is(await answers(after.events, posted.event.data.rkey), 1);
  } finally {
    await after.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const usage = spawn(process.execPath, [worker, 'nonsense'], { stdio: 'ignore' });
  assert.is(await new Promise((r) => usage.on('exit', r)), 2);
});

test.run();

/**
 * End to end on the real servers (CI's real-stores workflow; skipped unless EVENTSTORE_URL and
 * MONGO_URL are both set): a town front on EventStoreDB and MongoDB with its projectors as two
 * `projector` worker processes for the same projections. The second waits on the leases; a
 * guest's turn reads back through the worker; the first worker is killed (SIGKILL) and the
 * second takes over, so the next turn reads back too; a card whose state nests past MongoDB's
 * 100 levels is not needed here (deep-state.test.ts runs on both adapters' limits).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestTown, type TestTown } from '../world/support.js';

const eventStoreUrl = process.env.EVENTSTORE_URL;
const mongoUrl = process.env.MONGO_URL;

/** The same server, a database of this run's own. */
function freshDatabase(url: string): string {
  const u = new URL(url);
  u.pathname = `/town_e2e_${randomUUID().slice(0, 8)}`;
  return u.toString();
}

const projectorJs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/projector.js');

function startWorker(env: NodeJS.ProcessEnv): { child: ChildProcess; out: string[] } {
  const out: string[] = [];
  const child = spawn(process.execPath, [projectorJs], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (b: Buffer) => out.push(b.toString()));
  child.stderr!.on('data', (b: Buffer) => out.push(b.toString()));
  return { child, out };
}

const until = async (ok: () => boolean, what: string, ms = 60_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

if (eventStoreUrl && mongoUrl) {
  const test = suite<{ t: TestTown; workers: { child: ChildProcess; out: string[] }[] }>('end to end on EventStoreDB and MongoDB');
  test.before(async (ctx) => {
    const mongo = freshDatabase(mongoUrl);
    ctx.t = await startTestTown({ settings: { eventStoreUrl, mongoUrl: mongo, inProcessProjectors: false } });
    // Short leases, so the test sees a takeover quickly (a worker's default is 15 s).
    const env = { ...process.env, EVENTSTORE_URL: eventStoreUrl, MONGO_URL: mongo, TOWN_DATA: ctx.t.dir, TOWN_LEASE_MS: '2000' };
    ctx.workers = [startWorker(env)];
    await until(() => ctx.workers[0]!.out.join('').includes('following the journal'), 'the first worker');
    ctx.workers.push(startWorker(env));
    await until(() => ctx.workers[1]!.out.join('').includes('waiting to take over'), 'the second worker waiting');
  });
  test.after(async (ctx) => {
    for (const w of ctx.workers) w.child.kill('SIGTERM');
    await ctx.t.close();
  });

  test('a turn reads back through the worker; after the worker is killed, the other takes over', async ({ t, workers }) => {
    const ann = await t.guest('ann');
    const first = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'e2e-1', fields: { measures: 1 } });
    assert.is(first.status, 200, first.text);
    assert.is(first.json.status, 'done', first.text);
    const read = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is(read.status, 200, read.text);
    const fuel = (r: typeof read) => r.json.state.fields.find((f: { name: string }) => f.name === 'fuel').value.value as number;
    const before = fuel(read);
    workers[0]!.child.kill('SIGKILL');
    await until(() => workers[1]!.out.join('').includes('following the journal'), 'the second worker taking over', 30_000);
    const second = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'e2e-2', fields: { measures: 1 } });
    assert.is(second.json.status, 'done', second.text);
    const after = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is(fuel(after), before + 1, 'read back through the worker that took over');
  });

  test.run();
} else {
  console.log('end to end on real stores: skipped (EVENTSTORE_URL and MONGO_URL not both set)');
}

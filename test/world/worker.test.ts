/**
 * Read-your-writes with the projector in a SEPARATE PROCESS: the front runs no projector; a
 * worker process folds the journal into the read store both share, and the front waits for the
 * worker's committed checkpoint before answering a caller's read that follows its own turn.
 * The worker is stopped (SIGSTOP) to show that the wait is real: another guest reads the stale
 * card at once, while the guest who turned waits until the worker has folded its turn. A worker
 * started again resumes from its checkpoint.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FromWorker, ToWorker } from './worker-child.js';
import { startTestTown, type TestTown } from './support.js';

const childFile = path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker-child.js');

// Two workers: the second starts where the first stopped, to show a worker resumes.
const workers = [0, 1].map(() => fork(childFile, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
const ready = Promise.all(workers.map((w) => new Promise<void>((resolve) => w.once('message', () => resolve()))));

function serveJournal(worker: ChildProcess, t: () => TestTown | undefined): void {
  worker.on('message', async (m: FromWorker) => {
    if (!('read' in m)) return;
    const events = [];
    const town = t();
    if (town) {
      for await (const e of town.town.events.readAll({
        ...(m.read.after !== undefined ? { after: m.read.after } : {}),
        ...(m.read.maxCount !== undefined ? { maxCount: m.read.maxCount } : {}),
      }))
        events.push(e);
    }
    worker.send({ page: { id: m.read.id, events } } satisfies ToWorker);
  });
}

function next<K extends string>(worker: ChildProcess, key: K): Promise<any> {
  return new Promise((resolve, reject) => {
    const on = (m: FromWorker) => {
      if ('failed' in m) {
        worker.off('message', on);
        reject(new Error(m.failed));
      } else if (key in m) {
        worker.off('message', on);
        resolve((m as Record<string, unknown>)[key]);
      }
    };
    worker.on('message', on);
  });
}

const lines = async (t: TestTown, token: string) => (await t.get('/AGENTS.md/world/lamp/card', token)).json.lines as string[];

test("a read after one's own turn waits for the worker's checkpoint; others read what is there", async () => {
  await ready;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  let t: TestTown | undefined;
  for (const w of workers) serveJournal(w, () => t);
  try {
    t = await startTestTown({ dir, settings: { inProcessProjectors: false } });
    assert.is(t.town.projectors.length, 0, 'the front runs no projector');
    const [first, second] = workers as [ChildProcess, ChildProcess];
    first.send({ start: { dataDir: dir, pollMs: 20 } } satisfies ToWorker);
    await next(first, 'started');
    const ann = await t.guest('ann');
    const bob = await t.guest('bob');

    const a = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'a', fields: { measures: 1 } });
    assert.is(a.json.status, 'done');
    assert.is((await lines(t, ann.token)).at(-1), a.json.line, 'the worker folded the turn before the read answered');

    // Hold the worker: the journal moves on, the read store does not.
    process.kill(first.pid!, 'SIGSTOP');
    const b = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'b', fields: { measures: 2 } });
    assert.is(b.json.status, 'done', 'turns do not wait for projectors');
    const stale = await lines(t, bob.token);
    assert.is(stale.at(-1), a.json.line, 'bob made no turn: he reads the read model as it stands, at once');
    const resumed = Date.now();
    setTimeout(() => process.kill(first.pid!, 'SIGCONT'), 400);
    const own = await lines(t, ann.token);
    const waited = Date.now() - resumed;
    assert.is(own.at(-1), b.json.line, 'ann reads her own turn');
    assert.ok(waited >= 350, `ann's read waited for the worker (${waited} ms)`);

    // A worker started again resumes from the checkpoint the first one committed.
    first.send({ stop: true } satisfies ToWorker);
    const stopped = await next(first, 'stopped');
    const c = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'c', fields: { measures: 0 } });
    second.send({ start: { dataDir: dir, pollMs: 20 } } satisfies ToWorker);
    const started = await next(second, 'started');
    assert.ok(BigInt(started.checkpoint) > BigInt(stopped.checkpoint), 'it folded what came after');
    assert.is((await lines(t, ann.token)).at(-1), c.json.line);
    second.send({ stop: true } satisfies ToWorker);
    const again = await next(second, 'stopped');
    assert.ok(again.folded < 10, `the second worker folded only the new events (${again.folded}), not the journal again (${stopped.folded})`);
  } finally {
    for (const w of workers) {
      try {
        process.kill(w.pid!, 'SIGCONT');
      } catch {
        // already gone
      }
      w.disconnect();
    }
    await t?.close();
  }
});

test.run();

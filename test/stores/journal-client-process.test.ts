/**
 * Fronts beside a journal owner that is another process (test/stores/append-owner.ts), as on one
 * machine with one TOWN_DATA: two journal clients count up one stream by reading its revision
 * and appending at it, retrying on WrongExpectedVersion, while the owner appends to a stream of
 * its own. Every increment lands exactly once, each front reads its own append at once, and the
 * journal the owner leaves reads the same from the embedded store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WrongExpectedVersion, type EventStore } from '../../src/stores/event-store.js';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { openJournalClient } from '../../src/stores/embedded/journal-client.js';

const ownerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'append-owner.js');
const PER_FRONT = 150;

/** Appends `count` increments to `stream`, each at the revision read just before it. */
async function countUp(store: EventStore, stream: string, front: string, count: number): Promise<number> {
  let refusals = 0;
  for (let done = 0; done < count; ) {
    const head = await store.streamRevision(stream);
    const id = randomUUID();
    try {
      const r = await store.append(stream, [{ id, type: 'Counted', data: { front, done } }], head === undefined ? 'noStream' : head);
      const [mine] = await store.readStream(stream, { fromRevision: r.nextRevision });
      assert.is(mine?.id, id, 'a front reads its own append at once');
      done++;
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion)) throw error;
      refusals++;
      // The refusal is answered once what beat it is durable: a read now sees it.
      const seen = await store.streamRevision(stream);
      assert.ok(seen !== undefined && (head === undefined || seen > head), `after a refusal at ${String(head)} the front reads ${String(seen)}`);
    }
  }
  return refusals;
}

test('two fronts count up one stream beside an owner process: every increment lands once', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-fronts-'));
  const owner = spawn(process.execPath, [ownerScript, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  owner.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    for (const end = Date.now() + 10_000; !out.startsWith('ready\n'); ) {
      assert.ok(Date.now() < end, 'the owner is ready');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const fronts = [await openJournalClient({ dataDir }), await openJournalClient({ dataDir })];
    const refusals = await Promise.all(fronts.map((f, i) => countUp(f, 'counter', `front-${i}`, PER_FRONT)));
    const counted = await fronts[0]!.readStream('counter');
    assert.is(counted.length, 2 * PER_FRONT);
    assert.equal(
      counted.map((e) => e.revision),
      Array.from({ length: 2 * PER_FRONT }, (_, i) => BigInt(i)),
    );
    for (const f of fronts) {
      assert.is(await f.streamRevision('counter'), BigInt(2 * PER_FRONT - 1));
      assert.ok((await f.streamRevision('owner')) !== undefined, 'the owner’s own stream is read too');
      await f.close();
    }
    console.log(`fronts refused ${refusals.join(' and ')} times`);
    const exited = new Promise((resolve) => owner.once('exit', resolve));
    owner.kill('SIGTERM');
    await exited;
    const ownerAppends = Number(/owner (\d+)/.exec(out)?.[1]);
    const store = await openEmbeddedEventStore({ dataDir });
    assert.equal(
      (await store.readStream('counter')).map((e) => e.id),
      counted.map((e) => e.id),
    );
    assert.is(await store.streamRevision('owner'), BigInt(ownerAppends - 1));
    await store.close();
  } finally {
    owner.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();

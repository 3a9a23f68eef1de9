/**
 * The embedded journal followed from beside its owner (src/stores/embedded/journal-follower.ts):
 * a follower reads `$all` as the owner does, only below the durable end the owner publishes, so
 * a group whose write failed (its bytes may be in the file) is never seen; it hears new groups
 * live, starts at any position (through the owner's index, or from the start without one), and
 * refuses what only the owner may do. Owner and follower are in one process here; the
 * multi-process run is test/faults/embedded-workers.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventData, RecordedEvent } from '../../src/stores/event-store.js';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { canFollow, openJournalFollower } from '../../src/stores/embedded/journal-follower.js';
import { openJournalClient } from '../../src/stores/embedded/journal-client.js';
import { fileIo, type JournalIo } from '../../src/stores/embedded/journal.js';

const ev = (i: number): EventData => ({ id: randomUUID(), type: 'E', data: { i } });
const is = (events: RecordedEvent[]) => events.map((e) => (e.data as { i: number }).i);
async function collect(it: AsyncIterable<RecordedEvent>): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'town-follow-'));

test('a follower reads what the owner reads, from any position, and refuses writes', async () => {
  const dataDir = tempDir();
  try {
    const owner = await openEmbeddedEventStore({ dataDir });
    for (let i = 0; i < 300; i++) await owner.append(`s-${i % 7}`, [ev(i)], 'any');
    assert.ok(canFollow(dataDir));
    const follower = await openJournalFollower({ dataDir });
    assert.is(await follower.headPosition(), 300n);
    assert.equal(is(await collect(follower.readAll())), is(await collect(owner.readAll())));
    // From positions on and off the index's entries (every 32nd).
    for (const after of [0n, 1n, 31n, 32n, 33n, 100n, 299n, 300n]) {
      assert.equal(is(await collect(follower.readAll({ after, maxCount: 40 }))), is(await collect(owner.readAll({ after, maxCount: 40 }))), `after ${after}`);
    }
    assert.throws(() => follower.append(), /does not own it/);
    assert.throws(() => follower.readStream(), /does not own it/);
    await follower.close();
    await owner.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a subscription catches up, then hears each durable group; a group whose write failed is never delivered', async () => {
  const dataDir = tempDir();
  let failNext = false;
  const journalIo: Partial<JournalIo> = {
    async writev(fd, buffers, position) {
      const written = await fileIo.writev(fd, buffers, position);
      if (!failNext) return written;
      // The bytes reached the file, then the write is said to have failed: the group is refused.
      failNext = false;
      throw Object.assign(new Error('EIO: simulated'), { code: 'EIO' });
    },
  };
  try {
    const owner = await openEmbeddedEventStore({ dataDir, journalIo });
    for (let i = 0; i < 10; i++) await owner.append('a', [ev(i)], 'any');
    const follower = await openJournalFollower({ dataDir, pollMs: 5 });
    const heard: number[] = [];
    let caughtUp: bigint | undefined;
    const sub = follower.subscribeToAll(4n, {
      onEvent: (e) => {
        heard.push((e.data as { i: number }).i);
      },
      onCaughtUp: (p) => {
        caughtUp = p;
      },
    });
    const until = async (n: number) => {
      for (const end = Date.now() + 5000; heard.length < n; ) {
        assert.ok(Date.now() < end, `heard ${heard.length} of ${n}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    await until(6);
    assert.is(caughtUp, 10n);
    failNext = true;
    const refused = await owner.append('a', [ev(100)], 'any').then(
      () => false,
      () => true,
    );
    assert.ok(refused, 'the group was refused');
    await new Promise((r) => setTimeout(r, 50));
    await owner.append('a', [ev(10)], 'any');
    await owner.append('b', [ev(11)], 'any');
    await until(8);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(heard, [4, 5, 6, 7, 8, 9, 10, 11], 'the refused group never reached the follower');
    await sub.close();
    await follower.close();
    await owner.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a follower placed after a deletion counts the tombstone as a position and leaves the deleted stream out', async () => {
  const dataDir = tempDir();
  try {
    const owner = await openEmbeddedEventStore({ dataDir });
    for (let i = 1; i <= 34; i++) await owner.append(i % 2 ? 'a' : 'b', [ev(i)], 'any');
    await owner.deleteStream('b');
    for (let i = 36; i <= 60; i++) await owner.append('a', [ev(i)], 'any');
    // Placed past the tombstone (position 35), from the index's entry at 33: every frame between
    // counts, the tombstone too, and the deleted stream is learnt on the way.
    const follower = await openJournalFollower({ dataDir });
    for (const after of [35n, 36n, 40n]) {
      assert.equal(is(await collect(follower.readAll({ after, maxCount: 10 }))), is(await collect(owner.readAll({ after, maxCount: 10 }))), `after ${after}`);
    }
    await follower.close();
    // What the workers and fronts read through (journal-client.ts) also knows the deletions
    // ahead of where it starts, as the owner's reads do.
    const client = await openJournalClient({ dataDir });
    for (const after of [0n, 32n, 33n, 34n, 35n, 36n, 40n]) {
      assert.equal(
        is(await collect(client.readAll({ after, maxCount: 10 }))),
        is(await collect(owner.readAll({ after, maxCount: 10 }))),
        `client after ${after}`,
      );
    }
    await client.close();
    await owner.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('without an index (or before one is written) a follower reads from the journal start', async () => {
  const dataDir = tempDir();
  try {
    const owner = await openEmbeddedEventStore({ dataDir });
    for (let i = 0; i < 70; i++) await owner.append('a', [ev(i)], 'any');
    await owner.close();
    // The index is derived: a town recovering rebuilds it; the follower does without.
    for (const f of ['data.mdb', 'lock.mdb']) fs.rmSync(path.join(dataDir, 'events', f), { force: true });
    const follower = await openJournalFollower({ dataDir });
    assert.equal(
      is(await collect(follower.readAll({ after: 40n }))),
      Array.from({ length: 30 }, (_, i) => 40 + i),
    );
    await follower.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('no journal: nothing to follow', async () => {
  const dataDir = tempDir();
  try {
    assert.not.ok(canFollow(dataDir));
    let failed = false;
    await openJournalFollower({ dataDir }).catch(() => (failed = true));
    assert.ok(failed);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();

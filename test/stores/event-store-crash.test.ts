/**
 * Kill -9 a process that is appending under load, several times, and check after each crash
 * that every append it had acknowledged is on disk, in order, and that the store takes new
 * appends. SIGKILL keeps the OS page cache, so after each kill the journal's unacknowledged
 * tail is also damaged the way a power cut can leave it (garbage, a frame cut short, a frame
 * whose checksum fails) before the store is opened again. (Power loss itself is covered by the
 * journal's synced writes: O_DSYNC, one per group.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import { ackedBeforeKill } from './kill-writer.js';
import * as assert from 'uvu/assert';
import { open } from 'lmdb';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { listFrames } from '../../src/stores/embedded/journal.js';
import { collect, ev } from './event-store.contract.js';

const writerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'crash-writer.js');
const ROUNDS = 6;

interface Ack {
  stream: string;
  revision: bigint;
  position: bigint;
  count: number;
}

async function runUntilKilled(dataDir: string, aliveMs: number): Promise<Ack[]> {
  return (await ackedBeforeKill(writerScript, [dataDir, '12'], aliveMs)).map((line) => {
    const [stream, revision, position, count] = line.split(' ');
    return { stream: stream!, revision: BigInt(revision!), position: BigInt(position!), count: Number(count) };
  });
}

/**
 * Damages the journal after everything that was acknowledged (by the store: the index's
 * newest entry; by the writer: its last printed ack), as a torn write of the next group would.
 */
async function tearTail(dataDir: string, acks: Ack[], round: number): Promise<string> {
  const events = path.join(dataDir, 'events');
  const file = path.join(events, 'journal');
  const env = open({ path: events, maxDbs: 4, readOnly: true });
  const through = (env.openDB<number, string>({ name: 'meta' })?.get('through') as number | undefined) ?? 0;
  await env.close();
  const acked = Math.max(through, ...acks.map((a) => Number(a.position)));
  const frames = listFrames(file);
  let last = frames.findIndex((f) => f.position === acked);
  assert.ok(last >= 0, `acknowledged position ${acked} is not in the journal`);
  while (frames[last]!.more > 0) last++;
  const safeEnd = frames[last]!.end;
  const size = fs.statSync(file).size;
  const random = (n: number) => Math.floor(Math.random() * n);
  if (round % 3 === 1 && size - safeEnd > 1) {
    fs.truncateSync(file, safeEnd + 1 + random(size - safeEnd - 1));
    return 'cut the unacknowledged tail short';
  }
  if (round % 3 === 2) {
    // A whole-looking frame whose body does not match its checksum.
    const frame = Buffer.alloc(8 + 40, 'x');
    frame.writeUInt32LE(40, 0);
    frame.writeUInt32LE(0xdeadbeef, 4);
    fs.appendFileSync(file, frame);
    return 'appended a frame with a bad checksum';
  }
  fs.appendFileSync(file, Buffer.from(Array.from({ length: 1 + random(20) }, () => random(256))));
  return 'appended garbage';
}

test('acknowledged appends survive SIGKILL and a torn tail, in order, and the store goes on', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  try {
    let acked = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const acks = await runUntilKilled(dataDir, 150 + Math.floor(Math.random() * 350));
      assert.ok(acks.length > 0, `round ${round}: the writer acknowledged nothing`);
      acked += acks.length;
      const damage = await tearTail(dataDir, acks, round);

      const store = await openEmbeddedEventStore({ dataDir });
      try {
        if (damage.startsWith('appended')) assert.ok(store.truncatedOnOpen > 0, `round ${round}: ${damage} was not cut off`);
        for (const ack of acks) {
          const [event] = await store.readStream(ack.stream, { fromRevision: ack.revision, maxCount: 1 });
          assert.ok(event, `round ${round} (${damage}): ${ack.stream}@${ack.revision} lost`);
          assert.is(event!.position, ack.position, `round ${round}: ${ack.stream}@${ack.revision} moved`);
        }
        // The journal is whole: positions 1..head without holes, each stream's revisions 0..n
        // in position order.
        const all = await collect(store.readAll());
        assert.ok(
          all.every((e, i) => e.position === BigInt(i + 1)),
          `round ${round}: $all has holes`,
        );
        const next = new Map<string, bigint>();
        for (const e of all) {
          assert.is(e.revision, next.get(e.stream) ?? 0n, `round ${round}: ${e.stream} out of order`);
          next.set(e.stream, e.revision + 1n);
        }
        const heads = [...next.keys()];
        for (const stream of heads) {
          const revision = await store.streamRevision(stream);
          const r = await store.append(stream, [ev('AfterCrash')], revision!);
          assert.is(r.nextRevision, revision! + 1n);
        }
      } finally {
        await store.close();
      }
    }
    assert.ok(acked > ROUNDS * 10, `only ${acked} acknowledged appends in ${ROUNDS} rounds`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();

/**
 * Kill -9 a process that commits read-store units under load, several times, and check after
 * each crash that the store holds exactly the units up to its checkpoint: a unit's documents,
 * index entries and checkpoint land together or not at all (the commit queues them in one
 * LMDB transaction, written on lmdb's write thread), and nothing acknowledged is lost.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import { ackedBeforeKill } from './kill-writer.js';
import * as assert from 'uvu/assert';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';

const writerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'read-store-crash-writer.js');
const PER_UNIT = 200;
const ROUNDS = 4;

async function runUntilKilled(dataDir: string, aliveMs: number): Promise<number> {
  const acks = await ackedBeforeKill(writerScript, [dataDir, String(PER_UNIT)], aliveMs);
  return acks.length ? Number(acks[acks.length - 1]) : 0;
}

test('after kill -9 mid-commit the store holds exactly the units up to its checkpoint', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  try {
    let acknowledged = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const acked = await runUntilKilled(dataDir, 150 + round * 70);
      acknowledged = Math.max(acknowledged, acked);
      const store = await openEmbeddedReadStore({ dataDir });
      try {
        const checkpoint = Number((await store.checkpoint('crash')) ?? 0n);
        assert.ok(checkpoint >= acknowledged, `checkpoint ${checkpoint} lost acknowledged unit ${acknowledged}`);
        const docs = store.collection('crash.docs');
        assert.is(await docs.count({}), checkpoint * PER_UNIT, 'documents of exactly the committed units');
        assert.is(await store.collection('crash.more').count({}), checkpoint * PER_UNIT);
        const tally = await store.collection('crash.tally').findOne({ _id: 'tally' });
        assert.is(tally?.units ?? 0, checkpoint);
        if (checkpoint > 0) {
          // The index holds the last unit's entries and nothing beyond it.
          assert.is(await docs.count({ unit: checkpoint }), PER_UNIT);
          assert.is(await docs.count({ unit: { $gt: checkpoint } }), 0);
          assert.is((await docs.find({ unit: checkpoint }, { limit: 1 })).length, 1);
        }
      } finally {
        await store.close();
      }
    }
    assert.ok(acknowledged > 0, 'the writer committed something before it was killed');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();

/**
 * Child process for the read store's crash test: commits units until killed. Unit k writes
 * k's documents into two collections (one indexed), rewrites a shared tally, and sets the
 * checkpoint to k; it prints `ack k` once the unit has committed.
 * Usage: node read-store-crash-writer.js <dataDir> <docsPerUnit>
 */
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';

const [dataDir, perUnitArg = '200'] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: read-store-crash-writer <dataDir> <docsPerUnit>');
const perUnit = Number(perUnitArg);
const store = await openEmbeddedReadStore({ dataDir });
await store.collection('crash.docs').createIndex({ keys: { unit: 1 }, name: 'unit' });
let k = Number((await store.checkpoint('crash')) ?? 0n);
process.stdout.write('ready\n');
for (;;) {
  k++;
  await store.unit(async (u) => {
    const docs = Array.from({ length: perUnit }, (_, i) => ({ _id: `${k}.${i}`, unit: k, pad: 'x'.repeat((k * 31 + i) % 300) }));
    await u.collection('crash.docs').putMany(docs);
    await u.collection('crash.more').putMany(docs.map((d) => ({ _id: d._id, unit: k })));
    await u.collection('crash.tally').putMany([{ _id: 'tally', units: k }]);
    u.setCheckpoint('crash', BigInt(k));
  });
  process.stdout.write(`ack ${k}\n`);
}

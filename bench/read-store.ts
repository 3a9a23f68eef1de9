/**
 * Embedded read store bench: loads a cards-like collection (100,000 documents by default) and
 * times the queries projections and fronts make, each beside a raw LMDB baseline measured in
 * the same run on the same data (the least work any adapter must do: read the same documents
 * by key), so the ratio shows what planning, filtering and decoding cost on top.
 *
 *   npm run bench -- reads [--docs=100000] [--seconds=1] [--json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open, type DatabaseOptions } from 'lmdb';
import { openEmbeddedReadStore } from '../src/stores/embedded/read-store.js';

export interface ReadBenchResult {
  docs: number;
  loadDocsPerSecond: number;
  queries: { name: string; perSecond: number; docsRead: number; baselinePerSecond?: number; ratio?: number }[];
  unitsPerSecond: number;
  /** The same documents loaded with putMany (how projections write a batch), 2,000 a unit. */
  putManyDocsPerSecond: number;
}

function arg(args: string[], name: string, fallback: number): number {
  const hit = args.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split('=')[1]) : fallback;
}

async function timed(seconds: number, op: (i: number) => Promise<unknown> | unknown): Promise<number> {
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  let n = 0;
  while (performance.now() < end) {
    for (let k = 0; k < 16; k++) await op(n++);
  }
  return n / ((performance.now() - start) / 1000);
}

const cardId = (i: number) => `card-${String(i).padStart(7, '0')}`;

export async function runReadBench(options: { docs?: number; seconds?: number; dir?: string } = {}): Promise<ReadBenchResult> {
  const docs = options.docs ?? 100_000;
  const seconds = options.seconds ?? 1;
  const dataDir = fs.mkdtempSync(path.join(options.dir ?? os.tmpdir(), 'town-bench-reads-'));
  const store = await openEmbeddedReadStore({ dataDir });
  try {
    const cards = store.collection('cards.all');
    await cards.createIndex({ keys: { world: 1, id: 1 } });
    await cards.createIndex({ keys: { owner: 1 } });
    const loadStart = performance.now();
    for (let from = 0; from < docs; from += 2000) {
      await store.unit(async (u) => {
        const c = u.collection('cards.all');
        for (let i = from; i < Math.min(docs, from + 2000); i++) {
          const id = cardId(i);
          await c.insertOne({
            _id: id,
            id,
            world: i % 10 === 0 ? 'scratch' : 'town',
            owner: `did:plc:o${i % 10_000}`,
            kind: 'note',
            text: `card ${i} ${'x'.repeat(100)}`,
            n: i,
          });
        }
        u.setCheckpoint('cards', BigInt(from));
      });
    }
    const loadDocsPerSecond = docs / ((performance.now() - loadStart) / 1000);

    const queries: ReadBenchResult['queries'] = [];
    const measure = async (name: string, op: (i: number) => Promise<unknown>, baseline?: (i: number) => unknown) => {
      const before = store.stats.docsRead;
      await op(0);
      const docsRead = store.stats.docsRead - before;
      const perSecond = await timed(seconds, op);
      const entry: ReadBenchResult['queries'][number] = { name, perSecond, docsRead };
      if (baseline) {
        entry.baselinePerSecond = await timed(seconds, baseline);
        entry.ratio = perSecond / entry.baselinePerSecond;
      }
      queries.push(entry);
    };

    // The raw baseline reads the same LMDB file through a second handle (the collection's own
    // databases, see embedded/read-store.ts).
    const raw = open({ path: path.join(dataDir, 'read'), maxDbs: 1000, readOnly: true });
    const rawDocs = raw.openDB({ name: 'd:cards.all', useRecords: false } as DatabaseOptions & { name: string });
    const rawIdx = raw.openDB({ name: 'i:cards.all' });
    const MAX = Buffer.from([0xff]);
    const spread = (i: number) => (i * 7919) % Math.max(1, docs - 1000);

    await measure(
      'page: {world, id > after} sort id limit 64',
      (i) => cards.find({ world: 'town', id: { $gt: cardId(spread(i)) } }, { sort: { id: 1 }, limit: 64 }),
      (i) => {
        const out = [];
        for (const key of rawIdx.getKeys({
          start: ['world_1_id_1', 3, 'town', 3, cardId(spread(i)), MAX],
          end: ['world_1_id_1', 3, 'town', 3, MAX],
          limit: 64,
        })) {
          out.push(rawDocs.get([(key as unknown[]).at(-1) as string]));
        }
        return out;
      },
    );
    await measure(
      'equality on an indexed field (10 docs)',
      (i) => cards.find({ owner: `did:plc:o${i % 10_000}` }),
      (i) => {
        const out = [];
        for (const key of rawIdx.getKeys({ start: ['owner_1', 3, `did:plc:o${i % 10_000}`], end: ['owner_1', 3, `did:plc:o${i % 10_000}`, MAX] })) {
          out.push(rawDocs.get([(key as unknown[]).at(-1) as string]));
        }
        return out;
      },
    );
    await measure(
      'findOne by _id',
      (i) => cards.findOne({ _id: cardId(i % docs) }),
      (i) => rawDocs.get([cardId(i % docs)]),
    );
    await measure('count {world: scratch} (10% of docs)', () => cards.count({ world: 'scratch' }));
    await raw.close();

    // A projector-sized unit: 100 upserts by _id plus the checkpoint, committed durably.
    let position = BigInt(docs);
    const unitsPerSecond = await timed(seconds, (i) =>
      store.unit(async (u) => {
        const c = u.collection('cards.all');
        for (let k = 0; k < 100; k++) await c.updateOne({ _id: cardId((i * 100 + k) % docs) }, { $inc: { views: 1 }, $set: { seen: i } }, { upsert: true });
        u.setCheckpoint('cards', ++position);
      }),
    );
    const bulk = store.collection('cards.bulk');
    await bulk.createIndex({ keys: { world: 1, id: 1 } });
    await bulk.createIndex({ keys: { owner: 1 } });
    const bulkStart = performance.now();
    for (let from = 0; from < docs; from += 2000) {
      await store.unit(async (u) => {
        const batch = [];
        for (let i = from; i < Math.min(docs, from + 2000); i++) {
          const id = cardId(i);
          batch.push({
            _id: id,
            id,
            world: i % 10 === 0 ? 'scratch' : 'town',
            owner: `did:plc:o${i % 10_000}`,
            kind: 'note',
            text: `card ${i} ${'x'.repeat(100)}`,
            n: i,
          });
        }
        await u.collection('cards.bulk').putMany(batch);
        u.setCheckpoint('bulk', BigInt(from));
      });
    }
    const putManyDocsPerSecond = docs / ((performance.now() - bulkStart) / 1000);
    return { docs, loadDocsPerSecond, queries, unitsPerSecond, putManyDocsPerSecond };
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function main(args: string[]): Promise<void> {
  const result = await runReadBench({ docs: arg(args, 'docs', 100_000), seconds: arg(args, 'seconds', 1) });
  if (args.includes('--json')) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const f = (n: number) => Math.round(n).toLocaleString('en');
  console.log(`embedded read store, ${f(result.docs)} documents`);
  console.log(`  load (units of 2,000 inserts, 2 indexes): ${f(result.loadDocsPerSecond)} docs/s`);
  console.log(`  load (units of one putMany of 2,000, 2 indexes): ${f(result.putManyDocsPerSecond)} docs/s`);
  for (const q of result.queries) {
    const base = q.baselinePerSecond ? `  raw LMDB ${f(q.baselinePerSecond)}/s  ratio ${(q.ratio! * 100).toFixed(0)} %` : '';
    console.log(`  ${q.name.padEnd(44)} ${f(q.perSecond).padStart(9)}/s  (${q.docsRead} docs read)${base}`);
  }
  console.log(`  unit of 100 upserts + checkpoint: ${f(result.unitsPerSecond)} units/s (${f(result.unitsPerSecond * 100)} upserts/s)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}

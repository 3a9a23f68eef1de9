/**
 * What only the embedded read store promises: where its data lives, how it uses its indexes,
 * what a crash or a compaction leaves; and the helpers under both adapters. The contract both
 * adapters keep is run by read-store-contract.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DuplicateKey, type Doc } from '../../src/stores/read-store.js';
import { EmbeddedReadStore, openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import { databaseFromUrl } from '../../src/stores/mongo/read-store.js';
import { openReadStore } from '../../src/stores/open-read-store.js';
import { regexPrefix } from '../../src/stores/embedded/read-plan.js';
import { jsonCopy, positionOrder } from '../../src/stores/read-store-checks.js';
import { ids, rejects } from './read-store.contract.js';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
}

// What only the embedded store promises: where its data lives and how it uses its indexes.
const test = suite<{ dataDir: string; store: EmbeddedReadStore }>('embedded read store');
test.before.each(async (ctx) => {
  ctx.dataDir = tempDir();
  ctx.store = await openEmbeddedReadStore({ dataDir: ctx.dataDir });
});
test.after.each(async (ctx) => {
  await ctx.store.close();
  fs.rmSync(ctx.dataDir, { recursive: true, force: true });
});

async function seed(store: EmbeddedReadStore, n: number): Promise<void> {
  await store.unit(async (u) => {
    const c = u.collection('cards');
    for (let i = 0; i < n; i++) {
      const id = `card-${String(i).padStart(5, '0')}`;
      await c.insertOne({ _id: id, id, world: i % 4 === 0 ? 'scratch' : 'town', owner: `o${i % 100}`, n: i, tags: [`t${i % 7}`, 'all'] });
    }
  });
}

function reads(store: EmbeddedReadStore) {
  const before = { ...store.stats };
  return () => ({ docs: store.stats.docsRead - before.docsRead, keys: store.stats.keysRead - before.keysRead });
}

test('the read models live under <dataDir>/read', async ({ store, dataDir }) => {
  await store.collection('x').insertOne({ _id: '1' });
  assert.ok(fs.existsSync(path.join(dataDir, 'read', 'data.mdb')));
});

test('a store of the first layout (shared docs/idx databases) is emptied on open, checkpoints too', async ({ store, dataDir }) => {
  await store.close();
  const dir = path.join(dataDir, 'read');
  fs.rmSync(dir, { recursive: true });
  fs.mkdirSync(dir);
  // What the first layout wrote: [collection, _id] in `docs`, index keys in `idx`, no layout mark.
  const env = open({ path: dir, maxDbs: 4 });
  await env.openDB({ name: 'docs' }).put(['cards', 'a'], { _id: 'a' });
  await env.openDB({ name: 'idx' }).put(['cards', 'owner_1', 3, 'o', 'a'], true);
  const meta = env.openDB({ name: 'meta' });
  await meta.put(['collection', 'cards'], 1);
  await meta.put(['checkpoint', 'cards'], '41');
  await env.close();
  const reopened = await openEmbeddedReadStore({ dataDir });
  try {
    assert.is(await reopened.checkpoint('cards'), undefined, 'the projectors fold the journal again');
    assert.is(await reopened.collection('cards').count({}), 0);
    await reopened.collection('cards').insertOne({ _id: 'b' });
    assert.equal(await reopened.collection('cards').find({}), [{ _id: 'b' }]);
  } finally {
    await reopened.close();
  }
  const check = open({ path: dir, maxDbs: 1000 });
  assert.is(check.openDB({ name: 'docs' }).getCount(), 0, 'the old databases are emptied');
  await check.close();
});

test('a collection another store instance made after this one opened is read', async ({ store, dataDir }) => {
  const reader = store;
  assert.is(await reader.collection('late').count({}), 0);
  const writer = await openEmbeddedReadStore({ dataDir });
  try {
    await writer.collection('late').insertOne({ _id: 'x', v: 1 });
  } finally {
    await writer.close();
  }
  assert.equal(await reader.collection('late').find({}), [{ _id: 'x', v: 1 }]);
});

test('a drop drops what another store instance made after this one opened, in its generation only', async ({ store, dataDir }) => {
  // The projector thread's store makes collections the serving thread's never saw; a live
  // rebuild's drop of the old generation runs on the serving thread's.
  const writer = await openEmbeddedReadStore({ dataDir });
  try {
    await writer.collection('cards.late').createIndex({ keys: { tag: 1 }, unique: true });
    await writer.unit(async (u) => {
      await u.collection('cards.late').insertOne({ _id: 'x', tag: 't' });
      u.setCheckpoint('cards', 3n);
    });
    await writer.at(1).collection('cards.late').insertOne({ _id: 'y', tag: 't' });
  } finally {
    await writer.close();
  }
  await store.drop('cards');
  assert.is(await store.collection('cards.late').count({}), 0);
  assert.is(await store.checkpoint('cards'), undefined);
  // The unique index went with it: a second document with the same tag is taken.
  await store.collection('cards.late').insertOne({ _id: 'a', tag: 't' });
  await store.collection('cards.late').insertOne({ _id: 'b', tag: 't' });
  assert.equal(ids(await store.at(1).collection('cards.late').find({})), ['y']);
});

test('drop(prefix) drops a collection with its index entries and checkpoint; it comes back empty and works', async ({ store }) => {
  const c = store.collection('big.docs');
  await c.createIndex({ keys: { n: 1 } });
  await store.unit(async (u) => {
    await u.collection('big.docs').putMany(Array.from({ length: 3000 }, (_, i) => ({ _id: `d${i}`, n: i, pad: 'x'.repeat(200) })));
    u.setCheckpoint('big', 1n);
  });
  await store.drop('big');
  assert.is(await c.count({}), 0);
  assert.is(await c.count({ n: { $gte: 0 } }), 0);
  assert.is(await store.checkpoint('big'), undefined);
  // The collection comes back empty and indexless, and works.
  await c.putMany([{ _id: 'd1', n: 1 }]);
  assert.equal(await c.find({ n: 1 }), [{ _id: 'd1', n: 1 }]);
});

test('a drop that frees most of the file compacts it; what was kept stays, indexes and checkpoints too', async ({ store, dataDir }) => {
  await store.close();
  const small = await openEmbeddedReadStore({ dataDir, compactAtPages: 64 });
  const file = path.join(dataDir, 'read', 'data.mdb');
  try {
    await small.collection('keep.docs').createIndex({ keys: { tag: 1 }, name: 'tag' });
    await small.collection('big.docs').createIndex({ keys: { n: 1 } });
    await small.unit(async (u) => {
      await u.collection('keep.docs').putMany([
        { _id: 'k1', tag: 'a' },
        { _id: 'k2', tag: 'b' },
      ]);
      await u.collection('big.docs').putMany(Array.from({ length: 4000 }, (_, i) => ({ _id: `d${i}`, n: i, pad: 'x'.repeat(300) })));
      u.setCheckpoint('keep', 7n);
      u.setCheckpoint('big', 8n);
    });
    const before = fs.statSync(file).size;
    await small.drop('big');
    assert.ok(fs.statSync(file).size < before / 4, `the file shrank (${before} → ${fs.statSync(file).size} bytes)`);
    assert.is(await small.checkpoint('keep'), 7n);
    assert.is(await small.checkpoint('big'), undefined);
    const count = reads(small);
    assert.equal(await small.collection('keep.docs').find({ tag: 'b' }), [{ _id: 'k2', tag: 'b' }]);
    assert.equal(count(), { docs: 1, keys: 1 }, 'the index came through the copy');
    assert.is(await small.collection('big.docs').count({}), 0);
    // The swapped-in file takes writes, and they last.
    await small.collection('big.docs').putMany([{ _id: 'again', n: 1 }]);
  } finally {
    await small.close();
  }
  const reopened = await openEmbeddedReadStore({ dataDir });
  try {
    assert.equal(await reopened.collection('big.docs').find({}), [{ _id: 'again', n: 1 }]);
    assert.is(await reopened.collection('keep.docs').count({}), 2);
    assert.is(await reopened.checkpoint('keep'), 7n);
  } finally {
    await reopened.close();
  }
});

test('a store does not compact a file another store in the process has open', async ({ store, dataDir }) => {
  await store.close();
  const a = await openEmbeddedReadStore({ dataDir, compactAtPages: 64 });
  const b = await openEmbeddedReadStore({ dataDir });
  const file = path.join(dataDir, 'read', 'data.mdb');
  try {
    await a.unit(async (u) => {
      await u.collection('big.docs').putMany(Array.from({ length: 4000 }, (_, i) => ({ _id: `d${i}`, pad: 'x'.repeat(300) })));
    });
    const inode = fs.statSync(file).ino;
    await a.drop('big');
    assert.is(fs.statSync(file).ino, inode, 'the same file');
    // Both still write and read the one file.
    await a.collection('keep').insertOne({ _id: 'from-a' });
    await b.collection('keep').insertOne({ _id: 'from-b' });
    assert.is(await b.collection('keep').count({}), 2);
  } finally {
    await b.close();
    await a.close();
  }
  const reopened = await openEmbeddedReadStore({ dataDir });
  try {
    assert.is(await reopened.collection('keep').count({}), 2);
  } finally {
    await reopened.close();
  }
});

test('an equality lookup on an indexed field reads only the matching documents', async ({ store }) => {
  await seed(store, 2000);
  const c = store.collection('cards');
  let count = reads(store);
  assert.is((await c.find({ owner: 'o7' })).length, 20);
  assert.is(count().docs, 2000, 'without an index every document is read');
  await c.createIndex({ keys: { owner: 1 } });
  count = reads(store);
  const found = await c.find({ owner: 'o7' });
  assert.is(found.length, 20);
  assert.ok(found.every((d) => d.owner === 'o7'));
  assert.equal(count(), { docs: 20, keys: 20 });
  count = reads(store);
  assert.is(await c.count({ owner: { $in: ['o1', 'o2'] } }), 40);
  assert.is(count().docs, 40);
  // A count of plain equalities on an index counts its keys without reading documents.
  count = reads(store);
  assert.is(await c.count({ owner: 'o7' }), 20);
  assert.is(await c.count({ owner: { $eq: 'o8' } }), 20);
  assert.equal(count(), { docs: 0, keys: 0 });
  assert.is(await c.count({ owner: 'o7', n: { $lt: 1000 } }), 10, 'a field outside the index is tested');
});

test('inside a unit: delete then insert the same _id, update a pending insert, sort the mix', async ({ store }) => {
  const c = store.collection('mix');
  await c.insertOne({ _id: 'a', n: 3 });
  await c.insertOne({ _id: 'b', n: 1 });
  await store.unit(async (u) => {
    const uc = u.collection('mix');
    assert.is(await uc.deleteMany({ _id: 'a' }), 1);
    assert.is(await uc.findOne({ _id: 'a' }), null);
    await uc.insertOne({ _id: 'a', n: 0 });
    await uc.insertOne({ _id: 'c', n: 2 });
    await uc.updateOne({ _id: 'c' }, { $inc: { n: 10 } });
    assert.equal(
      (await uc.find({}, { sort: { n: 1 } })).map((d) => d._id),
      ['a', 'b', 'c'],
    );
    assert.equal(await uc.find({}, { sort: { n: -1 }, skip: 1, limit: 1, projection: { n: 1 } }), [{ _id: 'b', n: 1 }]);
    assert.is(await uc.count({ n: { $lt: 5 } }), 2);
  });
  assert.equal(await c.find({}, { sort: { _id: 1 } }), [
    { _id: 'a', n: 0 },
    { _id: 'b', n: 1 },
    { _id: 'c', n: 12 },
  ]);
});

test('sorted paging on a compound index stops at the limit, both directions', async ({ store }) => {
  await seed(store, 2000);
  const c = store.collection('cards');
  await c.createIndex({ keys: { world: 1, id: 1 } });
  let count = reads(store);
  const page = await c.find({ world: 'town', id: { $gt: 'card-01000' } }, { sort: { id: 1 }, limit: 64 });
  assert.is(page.length, 64);
  assert.is(page[0]!.id, 'card-01001');
  assert.ok(page.every((d) => d.world === 'town'));
  assert.equal(count(), { docs: 64, keys: 64 });
  count = reads(store);
  const back = await c.find({ world: 'town', id: { $lt: 'card-01000' } }, { sort: { id: -1 }, limit: 5 });
  assert.equal(
    back.map((d) => d.id),
    ['card-00999', 'card-00998', 'card-00997', 'card-00995', 'card-00994'],
  );
  assert.equal(count(), { docs: 5, keys: 5 });
});

test('an _id range sorted by _id reads only the page', async ({ store }) => {
  await seed(store, 1000);
  const c = store.collection('cards');
  const count = reads(store);
  const page = await c.find({ _id: { $gt: 'card-00500' } }, { sort: { _id: 1 }, limit: 10 });
  assert.is(page[0]!._id, 'card-00501');
  assert.ok(count().docs <= 11, `read ${count().docs}`);
});

test('a prefix regex and an $or of indexed fields use the indexes', async ({ store }) => {
  await seed(store, 2000);
  const c = store.collection('cards');
  await c.createIndex({ keys: { owner: 1 } });
  await c.createIndex({ keys: { n: 1 } });
  let count = reads(store);
  assert.is((await c.find({ owner: /^o9/ })).length, 220); // o9, o90..o99
  assert.is(count().docs, 220);
  count = reads(store);
  assert.is((await c.find({ $or: [{ owner: 'o3' }, { n: { $lt: 10 } }] })).length, 29);
  assert.ok(count().docs <= 30, `read ${count().docs}`);
});

test('a multikey index finds array elements and still sorts correctly', async ({ store }) => {
  await seed(store, 300);
  const c = store.collection('cards');
  await c.createIndex({ keys: { tags: 1 } });
  const count = reads(store);
  const t3 = await c.find({ tags: 't3' }, { sort: { tags: 1, _id: -1 }, limit: 3 });
  assert.equal(
    t3.map((d) => d.n),
    [297, 290, 283],
  );
  assert.ok(count().docs <= 43, `read ${count().docs}`);
  assert.is(await c.count({ tags: 'all' }), 300);
});

test('long strings are cut in index keys without false duplicates or misses', async ({ store }) => {
  const c = store.collection('long');
  await c.createIndex({ keys: { text: 1 }, unique: true });
  const stem = 'x'.repeat(150);
  await c.insertOne({ _id: 'a', text: `${stem}a` });
  await c.insertOne({ _id: 'b', text: `${stem}b` });
  await c.insertOne({ _id: 'e', text: `${'😀'.repeat(60)}` });
  const error = await rejects(c.insertOne({ _id: 'c', text: `${stem}a` }));
  assert.instance(error, DuplicateKey);
  assert.equal(
    (await c.find({ text: `${stem}b` })).map((d) => d._id),
    ['b'],
  );
  assert.equal(
    (await c.find({ text: { $gt: `${stem}a` } }, { sort: { text: 1 } })).map((d) => d._id),
    ['b', 'e'],
  );
  assert.equal(
    (await c.find({ text: { $regex: `^${stem}` } })).map((d) => d._id),
    ['a', 'b'],
  );
  await store.unit(async (u) => {
    await u.collection('long').updateOne({ _id: 'a' }, { $set: { text: `${stem}z` } });
    await u.collection('long').insertOne({ _id: 'd', text: `${stem}a` });
  });
  assert.is(await c.count({}), 4);
});

test('indexes are kept on disk: after reopening, lookups still read only matches', async (ctx) => {
  await seed(ctx.store, 1000);
  await ctx.store.collection('cards').createIndex({ keys: { owner: 1 } });
  await ctx.store.close();
  ctx.store = await openEmbeddedReadStore({ dataDir: ctx.dataDir });
  const count = reads(ctx.store);
  assert.is((await ctx.store.collection('cards').find({ owner: 'o42' })).length, 10);
  assert.is(count().docs, 10);
});

test('a big unit reads its own writes by _id without rescanning them', async ({ store }) => {
  await store.unit(async (u) => {
    const c = u.collection('big');
    for (let i = 0; i < 3000; i++) {
      await c.updateOne({ _id: `k${i % 1000}` }, { $inc: { hits: 1 }, $setOnInsert: { first: i } }, { upsert: true });
    }
  });
  const c = store.collection('big');
  assert.is(await c.count({}), 1000);
  assert.equal(await c.findOne({ _id: 'k7' }), { _id: 'k7', first: 7, hits: 3 } as Doc);
  assert.is(await c.count({ hits: 3 }), 1000);
});

test('a failed commit changes nothing, in memory or on disk', async ({ store }) => {
  const c = store.collection('people');
  await c.createIndex({ keys: { email: 1 }, unique: true });
  await c.insertOne({ _id: 'a', email: 'a@x' });
  // A unique index created inside the unit is only checked against the unit's writes at commit.
  const error = await rejects(
    store.unit(async (u) => {
      const uc = u.collection('tags');
      await uc.insertOne({ _id: '1', tag: 'same' });
      await uc.insertOne({ _id: '2', tag: 'same' });
      await uc.createIndex({ keys: { tag: 1 }, unique: true });
      u.setCheckpoint('p', 3n);
    }),
  );
  assert.instance(error, DuplicateKey);
  assert.is(await store.collection('tags').count({}), 0);
  assert.is(await store.checkpoint('p'), undefined);
});

test('operations after close are refused', async (ctx) => {
  const c = ctx.store.collection('x');
  await ctx.store.close();
  await rejects(c.find({}));
  assert.throws(() => ctx.store.collection('x'));
  await rejects(ctx.store.checkpoint('p'));
  ctx.store = await openEmbeddedReadStore({ dataDir: ctx.dataDir });
});

test('a write through the store inside a running unit gives up instead of hanging', async ({ dataDir }) => {
  const store = await openEmbeddedReadStore({ dataDir: `${dataDir}/short`, gateWaitMs: 100 });
  const error = await rejects(store.unit(async () => store.collection('x').insertOne({ _id: 'a' })));
  assert.match(error.message, 'unit.collection()');
  assert.is(await store.collection('x').count({}), 0);
  // The abandoned write never runs later either.
  await store.unit(async () => undefined);
  assert.is(await store.collection('x').count({}), 0);
  await store.close();
});

test('regexPrefix takes only the literal text every match starts with', () => {
  assert.is(regexPrefix('^abc', ''), 'abc');
  assert.is(regexPrefix('^ab\\.c', ''), 'ab.c');
  assert.is(regexPrefix('^abc?', ''), 'ab');
  assert.is(regexPrefix('^abc+', ''), 'abc');
  assert.is(regexPrefix('^ab[cd]', ''), 'ab');
  assert.is(regexPrefix('^ab\\d', ''), 'ab');
  assert.is(regexPrefix('abc', ''), undefined);
  assert.is(regexPrefix('^abc', 'i'), undefined);
  assert.is(regexPrefix('^abc', 'm'), undefined);
  assert.is(regexPrefix('^a|b', ''), undefined);
});

test('ids a unit found absent by an _id load are inserted with their index entries; present ones still refuse', async ({ store }) => {
  const c = store.collection('batch');
  await c.createIndex({ keys: { owner: 1 } });
  await c.insertOne({ _id: 'a', owner: 'x' });
  await store.unit(async (u) => {
    const uc = u.collection('batch');
    assert.equal(
      (await uc.find({ _id: { $in: ['a', 'b', 'c'] } })).map((d) => d._id),
      ['a'],
    );
    await uc.insertOne({ _id: 'b', owner: 'x' });
    await uc.insertOne({ _id: 'c', owner: 'y' });
    await uc.replaceOne({ _id: 'a' }, { _id: 'a', owner: 'y' });
    await uc.deleteMany({ _id: 'c' });
    await uc.insertOne({ _id: 'c', owner: 'z' });
  });
  assert.equal(
    (await c.find({ owner: 'x' })).map((d) => d._id),
    ['b'],
  );
  assert.equal(
    (await c.find({ owner: 'y' })).map((d) => d._id),
    ['a'],
    'the stale entry of a rewritten document is gone',
  );
  assert.equal(
    (await c.find({ owner: 'z' })).map((d) => d._id),
    ['c'],
  );
  const refused = await rejects(
    store.unit(async (u) => {
      const uc = u.collection('batch');
      assert.is((await uc.find({ _id: { $in: ['a', 'd'] } })).length, 1);
      await uc.insertOne({ _id: 'd', owner: 'x' });
      await uc.insertOne({ _id: 'a', owner: 'x' });
    }),
  );
  assert.instance(refused, DuplicateKey);
  assert.is(await c.count({}), 3, 'the refused unit committed nothing');
  assert.equal(
    (await c.find({ owner: 'x' })).map((d) => d._id),
    ['b'],
  );
});

test('jsonCopy gives exactly what a JSON round trip gives', () => {
  const sparse: unknown[] = [1];
  sparse[2] = 3;
  class Thing {
    a = 1;
  }
  const values: unknown[] = [
    { _id: 'x', b: 1, a: [1, 'two', null, true, { c: -0, d: 1.5e300 }], e: undefined, 2: 'two', 1: 'one' },
    { n: NaN, i: -Infinity, f: () => 1, s: Symbol('s'), u: [undefined, () => 1] },
    { when: new Date(0), m: new Map([[1, 2]]), t: new Thing(), held: { toJSON: () => 'j' } },
    JSON.parse('{"__proto__": {"x": 1}, "y": 2}'),
    Object.assign(Object.create(null), { a: 1 }),
    sparse,
    'text',
    -0,
    { deep: JSON.parse('['.repeat(100) + ']'.repeat(100)) },
  ];
  for (const value of values) {
    const copy = jsonCopy(value);
    const json = JSON.parse(JSON.stringify(value));
    assert.equal(copy, json);
    assert.is(JSON.stringify(copy), JSON.stringify(json));
    if (copy && typeof copy === 'object') assert.is(Object.getPrototypeOf(copy), Object.getPrototypeOf(json));
  }
  assert.ok(Object.is(jsonCopy(-0), 0));
  assert.ok(Object.hasOwn(jsonCopy(values[3]) as object, '__proto__'));
  const shared = { a: 1 };
  const copied = jsonCopy({ x: shared, y: shared });
  assert.is.not(copied.x, copied.y, 'shared members are copied apart, as JSON does');
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = { back: cyclic };
  assert.throws(() => jsonCopy(cyclic), /circular/);
  assert.throws(() => jsonCopy({ big: 1n }), /BigInt/);
  assert.throws(() => jsonCopy(undefined), /not a JSON value/);
});

test.run();

const factory = suite('openReadStore');

factory('no url opens the embedded store under dataDir', async () => {
  const dataDir = tempDir();
  const store = await openReadStore({ dataDir, url: '  ' });
  assert.instance(store, EmbeddedReadStore);
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

factory('a url that is not MongoDB is refused', async () => {
  await rejects(openReadStore({ dataDir: '/nonexistent', url: 'http://localhost:27017' }));
});

factory('the database comes from the url path', () => {
  assert.is(databaseFromUrl('mongodb://a:1,b:2/town-prod?replicaSet=rs'), 'town-prod');
  assert.is(databaseFromUrl('mongodb+srv://user:pw@cluster.example/'), undefined);
  assert.is(databaseFromUrl('mongodb://localhost'), undefined);
});

factory.run();

// Leases on the embedded store are between the workers of the one process that owns it.
const leases = suite('embedded read store: leases across a restart');
leases('a lease held by a process that died does not hold up the next owner of the directory', async () => {
  const dataDir = tempDir();
  try {
    const store = new URL('../../src/stores/embedded/read-store.js', import.meta.url).href;
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { openEmbeddedReadStore } = await import(${JSON.stringify(store)});
         const s = await openEmbeddedReadStore({ dataDir: ${JSON.stringify(dataDir)} });
         const l = await s.acquireLease('cards', 'crashed', 3600000);
         process.stdout.write(String(l ? l.token : 'none')); // not console.log: under FORCE_COLOR it colours numbers
         process.exit(9); // killed: the lease is never released`,
      ],
      { encoding: 'utf8' },
    );
    assert.is(child.stdout.trim(), '1', child.stderr);
    const s = await openEmbeddedReadStore({ dataDir });
    try {
      const mine = await s.acquireLease('cards', 'next', 60_000);
      assert.is(mine?.token, 2, 'taken at once, with the next token');
      assert.is(await s.acquireLease('cards', 'another', 60_000), undefined, 'held within this process');
    } finally {
      await s.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
leases("checkpoint order text sorts as the positions do, to EventStoreDB's largest", () => {
  const positions = [0n, 1n, 9n, 10n, 99n, 100n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, 2n ** 64n - 1n];
  const texts = positions.map(positionOrder);
  assert.equal([...texts].sort(), texts);
  assert.ok(texts.every((t) => t.length === 20));
});
leases.run();

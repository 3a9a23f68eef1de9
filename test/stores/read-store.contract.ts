/**
 * The ReadStore contract: what every adapter must do, so that projections and queries mean
 * the same on the embedded store and on MongoDB. Run against the embedded store always and
 * against MongoDB when MONGO_URL is set (test/stores/read-store-contract.test.ts). This file holds the
 * documents and queries; units, checkpoints and versions are read-store-units.contract.ts.
 *
 * Every test works in collections and checkpoints named with a fresh prefix, so the suite also
 * runs against a server that holds other data.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DuplicateKey, type Collection, type Doc, type Filter, type ReadStore, type UnitLimits } from '../../src/stores/read-store.js';

export interface ReadStoreUnderTest {
  store: ReadStore;
  /** Another store of the same adapter, on data of its own, whose units may write at most `limits`. */
  limited(limits: UnitLimits): Promise<{ store: ReadStore; close(): Promise<void> }>;
  /** Open the same data again after `store.close()`. */
  reopen(): Promise<ReadStore>;
  /** Close whatever is open and remove every resource the test used. */
  cleanup(): Promise<void>;
}

export interface Ctx {
  sut: ReadStoreUnderTest;
  store: ReadStore;
  p: string;
}

export async function rejects(promise: Promise<unknown>, what = 'a refusal'): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new assert.Assertion({ message: `expected ${what}, but it succeeded`, operator: 'rejects', expects: what, actual: 'success' });
}

export async function duplicate(promise: Promise<unknown>, collection: string): Promise<DuplicateKey> {
  const error = await rejects(promise, 'DuplicateKey');
  assert.instance(error, DuplicateKey, `expected DuplicateKey, got ${error.name}: ${error.message}`);
  assert.is((error as DuplicateKey).collection, collection);
  return error as DuplicateKey;
}

export const ids = (docs: Doc[]) => docs.map((d) => d._id);
const sortedIds = (docs: Doc[]) => ids(docs).sort();

const FRUIT: Doc[] = [
  { _id: 'a', n: 1, s: 'apple', tags: ['x', 'y'], nested: { k: 'v1', deep: { z: 1 } }, opt: null },
  { _id: 'b', n: 2, s: 'banana', tags: ['y'], nested: { k: 'v2' } },
  { _id: 'c', n: 10, s: 'cherry', tags: [], nested: { k: 'v1' }, flag: true },
  { _id: 'd', n: -3.5, s: 'Apricot', tags: ['x'], list: [{ q: 1 }, { q: 2 }] },
  { _id: 'e', n: '7', s: 'apex' },
];

/** Filter → the ids it must match in FRUIT (MongoDB's answers). */
const FILTERS: [string, Filter, string[]][] = [
  ['$eq on an array matches an element', { tags: 'x' }, ['a', 'd']],
  ['$eq with an array matches the whole array', { tags: ['x', 'y'] }, ['a']],
  ['$eq with an empty array', { tags: [] }, ['c']],
  ['$in mixes types', { n: { $in: [1, 10, '7'] } }, ['a', 'c', 'e']],
  ['$gt on numbers skips strings (type bracketing)', { n: { $gt: 1 } }, ['b', 'c']],
  ['$lt on numbers', { n: { $lt: 0 } }, ['d']],
  ['$gte/$lte on numbers', { n: { $gte: 1, $lte: 2 } }, ['a', 'b']],
  ['$gt/$lt on strings', { s: { $gt: 'b', $lt: 'c' } }, ['b']],
  ['$gte on strings is byte order (capitals first)', { s: { $gte: 'apple' } }, ['a', 'b', 'c']],
  ['$lt on strings skips numbers', { n: { $lt: 'z' } }, ['e']],
  ['$exists true includes null', { opt: { $exists: true } }, ['a']],
  ['null matches null and missing', { opt: null }, ['a', 'b', 'c', 'd', 'e']],
  ['$exists false', { flag: { $exists: false } }, ['a', 'b', 'd', 'e']],
  ['$or', { $or: [{ n: 1 }, { s: 'cherry' }] }, ['a', 'c']],
  ['$and', { $and: [{ tags: 'y' }, { n: { $gte: 2 } }] }, ['b']],
  ['implicit and of fields', { tags: 'y', n: { $gte: 2 } }, ['b']],
  ['dot path', { 'nested.k': 'v1' }, ['a', 'c']],
  ['deep dot path', { 'nested.deep.z': 1 }, ['a']],
  ['dot path through an array of objects', { 'list.q': 2 }, ['d']],
  ['anchored prefix regex', { s: /^ap/ }, ['a', 'e']],
  ['$regex string', { s: { $regex: '^ap' } }, ['a', 'e']],
  ['$regex with the i option', { s: { $regex: '^AP', $options: 'i' } }, ['a', 'd', 'e']],
  ['unanchored regex', { s: /rr/ }, ['c']],
  ['$ne', { n: { $ne: 1 } }, ['b', 'c', 'd', 'e']],
  ['$nin', { s: { $nin: ['apple', 'banana'] } }, ['c', 'd', 'e']],
  ['_id $in', { _id: { $in: ['c', 'a', 'zz'] } }, ['a', 'c']],
  ['_id range', { _id: { $gt: 'b', $lte: 'd' } }, ['c', 'd']],
  ['_id prefix regex', { _id: /^c/ }, ['c']],
  ['_id number range matches nothing', { _id: { $gt: 1 } }, []],
  ['empty $in matches nothing', { s: { $in: [] } }, []],
  ['$or over two indexed fields', { $or: [{ s: 'apex' }, { n: { $lt: 0 } }] }, ['d', 'e']],
];

/** A suite whose every test gets a store of its own and a fresh name prefix. */
export function contractSuite(title: string, makeStore: () => Promise<ReadStoreUnderTest>) {
  const test = suite<Ctx>(title);
  test.before.each(async (ctx) => {
    ctx.sut = await makeStore();
    ctx.store = ctx.sut.store;
    ctx.p = `t${randomUUID().slice(0, 8)}.`;
  });
  test.after.each(async (ctx) => {
    await ctx.sut.cleanup();
  });
  return test;
}

/** Documents: writes, filters, sorts, updates and indexes (units: read-store-units.contract.ts). */
export function readStoreContract(name: string, makeStore: () => Promise<ReadStoreUnderTest>) {
  const test = contractSuite(`read store contract: ${name}`, makeStore);

  const fruit = async (store: ReadStore, p: string): Promise<Collection> => {
    const c = store.collection(`${p}fruit`);
    for (const doc of FRUIT) await c.insertOne(doc);
    return c;
  };

  test('insertOne then findOne by _id returns an equal copy', async ({ store, p }) => {
    const c = store.collection(`${p}things`);
    const doc = { _id: 'one', title: 'hello', n: 1, nested: { list: [1, 2] } };
    await c.insertOne(doc);
    doc.title = 'changed after insert';
    const found = await c.findOne({ _id: 'one' });
    assert.equal(found, { _id: 'one', title: 'hello', n: 1, nested: { list: [1, 2] } });
    found!.title = 'changed after read';
    assert.is((await c.findOne({ _id: 'one' }))!.title, 'hello');
    assert.is(await c.findOne({ _id: 'two' }), null);
  });

  test('filters mean what they mean on MongoDB', async ({ store, p }) => {
    const c = await fruit(store, p);
    for (const [what, filter, want] of FILTERS) {
      assert.equal(sortedIds(await c.find(filter)), want, what);
      assert.is(await c.count(filter), want.length, `count: ${what}`);
    }
  });

  test('filters mean the same with indexes on the fields', async ({ store, p }) => {
    const c = await fruit(store, p);
    const indexes: Record<string, 1 | -1>[] = [{ n: 1 }, { s: 1 }, { tags: 1 }, { 'nested.k': 1 }, { 'list.q': 1 }, { opt: 1 }, { s: -1, n: 1 }];
    for (const keys of indexes) await c.createIndex({ keys });
    for (const [what, filter, want] of FILTERS) {
      assert.equal(sortedIds(await c.find(filter)), want, what);
      assert.is(await c.count(filter), want.length, `count: ${what}`);
    }
  });

  test('a bad filter, option or name is refused', async ({ store, p }) => {
    const c = await fruit(store, p);
    await rejects(c.find({ n: { $bogus: 1 } }));
    await rejects(c.find({ n: undefined }));
    await rejects(c.deleteMany({ n: undefined }));
    await rejects(c.find({}, { limit: -1 }));
    await rejects(c.find({}, { skip: 1.5 }));
    assert.throws(() => store.collection(''));
    assert.throws(() => store.collection('a$b'));
    assert.is(await c.count({}), 5, 'nothing was deleted');
  });

  test('sort, skip and limit', async ({ store, p }) => {
    const c = await fruit(store, p);
    const numeric = { n: { $type: 'number' } };
    assert.equal(ids(await c.find(numeric, { sort: { n: 1 } })), ['d', 'a', 'b', 'c']);
    assert.equal(ids(await c.find(numeric, { sort: { n: -1 } })), ['c', 'b', 'a', 'd']);
    assert.equal(ids(await c.find(numeric, { sort: { n: 1 }, skip: 1, limit: 2 })), ['a', 'b']);
    assert.equal(ids(await c.find(numeric, { sort: { n: 1 }, limit: 0 })), ['d', 'a', 'b', 'c'], 'limit 0 means no limit');
    assert.equal(ids(await c.find({}, { sort: { s: 1 } })), ['d', 'e', 'a', 'b', 'c'], 'strings in byte order');
    assert.equal(ids(await c.find({}, { sort: { _id: -1 }, limit: 2 })), ['e', 'd']);
    assert.equal(ids(await c.find({}, { sort: { _id: 1 }, skip: 4 })), ['e']);
    assert.equal(ids(await c.find({}, { skip: 9 })), []);
  });

  test('sort orders mixed types as MongoDB does, ties by _id', async ({ store, p }) => {
    const c = store.collection(`${p}mixed`);
    const docs: Doc[] = [
      { _id: '1', v: true },
      { _id: '2', v: 'b' },
      { _id: '3', v: 5 },
      { _id: '4' },
      { _id: '5', v: null },
      { _id: '6', v: { a: 1 } },
      { _id: '7', v: 'a' },
      { _id: '8', v: -1 },
      { _id: '9', v: 5, w: 1 },
    ];
    for (const d of docs) await c.insertOne(d);
    const asc = ids(await c.find({}, { sort: { v: 1, _id: 1 } }));
    assert.equal(asc, ['4', '5', '8', '3', '9', '7', '2', '6', '1']);
    assert.equal(ids(await c.find({ v: { $type: 'number' } }, { sort: { v: -1, _id: 1 } })), ['3', '9', '8']);
  });

  test('projection keeps _id and the chosen paths, in document order', async ({ store, p }) => {
    const c = await fruit(store, p);
    const a = await c.findOne({ _id: 'a' }, { projection: { s: 1, n: 1 } });
    assert.equal(a, { _id: 'a', n: 1, s: 'apple' });
    assert.equal(Object.keys(a!), ['_id', 'n', 's']);
    assert.equal(await c.findOne({ _id: 'a' }, { projection: { 'nested.k': 1 } }), { _id: 'a', nested: { k: 'v1' } });
    assert.equal(await c.findOne({ _id: 'd' }, { projection: { 'list.q': 1 } }), { _id: 'd', list: [{ q: 1 }, { q: 2 }] });
    assert.equal(await c.findOne({ _id: 'e' }, { projection: { missing: 1 } }), { _id: 'e' });
    assert.equal(await c.find({ n: { $type: 'number' } }, { sort: { n: -1 }, limit: 2, projection: { n: 1 } }), [
      { _id: 'c', n: 10 },
      { _id: 'b', n: 2 },
    ]);
  });

  test('$set, $unset, $inc, $push', async ({ store, p }) => {
    const c = store.collection(`${p}ops`);
    await c.insertOne({ _id: 'x', a: 1, list: [1], keep: 'k', gone: 'g', sub: { b: 1 } });
    let r = await c.updateOne({ _id: 'x' }, { $set: { a: 2, 'sub.c': 'new', 'deep.er': true } });
    assert.equal(r, { matched: 1, modified: 1 });
    r = await c.updateOne({ _id: 'x' }, { $unset: { gone: '', 'sub.b': '', absent: '' } });
    assert.equal(r, { matched: 1, modified: 1 });
    r = await c.updateOne({ _id: 'x' }, { $inc: { a: 3, fresh: 2, 'sub.n': -1 } });
    assert.equal(r, { matched: 1, modified: 1 });
    r = await c.updateOne({ _id: 'x' }, { $push: { list: 2, newList: 'first' } });
    assert.equal(r, { matched: 1, modified: 1 });
    r = await c.updateOne({ _id: 'x' }, { $push: { list: { $each: [3, 4] } } });
    assert.equal(r, { matched: 1, modified: 1 });
    r = await c.updateOne({ _id: 'x' }, { $set: { keep: 'k' } });
    assert.equal(r, { matched: 1, modified: 0 }, 'setting the same value modifies nothing');
    r = await c.updateOne({ _id: 'x' }, { $setOnInsert: { ignored: 1 }, $set: { a: 6 } });
    assert.equal(r, { matched: 1, modified: 1 });
    assert.equal(await c.findOne({ _id: 'x' }), {
      _id: 'x',
      a: 6,
      list: [1, 2, 3, 4],
      keep: 'k',
      sub: { c: 'new', n: -1 },
      deep: { er: true },
      fresh: 2,
      newList: ['first'],
    });
    assert.equal(await c.updateOne({ _id: 'nope' }, { $set: { a: 1 } }), { matched: 0, modified: 0 });
    assert.is(await c.count({}), 1);
  });

  test('updates MongoDB refuses are refused and change nothing', async ({ store, p }) => {
    const c = store.collection(`${p}ops`);
    const doc = { _id: 'x', s: 'text', n: 1, scalar: 3 };
    await c.insertOne(doc);
    await rejects(c.updateOne({ _id: 'x' }, { $inc: { s: 1 } }), '$inc of a string');
    await rejects(c.updateOne({ _id: 'x' }, { $push: { n: 1 } }), '$push to a number');
    await rejects(c.updateOne({ _id: 'x' }, { $set: { 'scalar.inner': 1 } }), 'a field inside a number');
    await rejects(c.updateOne({ _id: 'x' }, { $set: { _id: 'y' } }), 'changing _id');
    await rejects(c.updateOne({ _id: 'x' }, { $set: { n: 2 }, $inc: { n: 1 } }), 'conflicting paths');
    await rejects(c.updateOne({ _id: 'x' }, { $rename: { n: 'm' } } as never), 'an unsupported operator');
    await rejects(c.updateOne({ _id: 'x' }, {}), 'an empty update');
    await rejects(c.updateOne({ _id: 'x' }, { n: 2 } as never), 'a replacement passed as an update');
    await rejects(c.insertOne({ _id: 7 } as never), 'a number _id');
    await rejects(c.insertOne({ n: 1 } as never), 'a missing _id');
    await rejects(c.replaceOne({ _id: 'x' }, { _id: 'other', n: 1 }), 'a replacement changing _id');
    assert.equal(await c.findOne({ _id: 'x' }), doc);
  });

  test('upsert builds the document from the filter equalities and the update', async ({ store, p }) => {
    const c = store.collection(`${p}ups`);
    let r = await c.updateOne(
      { _id: 'u1', world: 'town', 'where.room': 'hall', n: { $gt: 5 }, kind: { $eq: 'card' } },
      { $set: { x: 1 }, $setOnInsert: { created: 7 }, $inc: { hits: 1 } },
      { upsert: true },
    );
    assert.equal(r, { matched: 0, modified: 0, upsertedId: 'u1' });
    assert.equal(await c.findOne({ _id: 'u1' }), { _id: 'u1', world: 'town', where: { room: 'hall' }, kind: 'card', x: 1, created: 7, hits: 1 } as Doc);
    r = await c.updateOne({ _id: 'u1' }, { $setOnInsert: { created: 99 }, $inc: { hits: 1 } }, { upsert: true });
    assert.equal(r, { matched: 1, modified: 1 });
    const again = await c.findOne({ _id: 'u1' });
    assert.is(again!.created, 7, '$setOnInsert only applies when inserting');
    assert.is(again!.hits, 2);

    r = await c.updateOne({ name: 'zed' }, { $set: { v: 1 } }, { upsert: true });
    assert.type(r.upsertedId, 'string');
    assert.equal(await c.findOne({ name: 'zed' }), { _id: r.upsertedId!, name: 'zed', v: 1 });

    assert.equal(await c.updateOne({ _id: 'u2' }, { $set: { v: 1 } }), { matched: 0, modified: 0 }, 'no upsert, no insert');
    assert.is(await c.findOne({ _id: 'u2' }), null);
  });

  test('replaceOne replaces the whole document, upserting when asked', async ({ store, p }) => {
    const c = store.collection(`${p}rep`);
    assert.equal(await c.replaceOne({ _id: 'r1' }, { _id: 'r1', a: 1 }), { matched: 0, modified: 0 });
    assert.is(await c.count({}), 0);
    assert.equal(await c.replaceOne({ _id: 'r1' }, { _id: 'r1', a: 1 }, { upsert: true }), { matched: 0, modified: 0, upsertedId: 'r1' });
    assert.equal(await c.replaceOne({ _id: 'r1' }, { _id: 'r1', b: 2 }, { upsert: true }), { matched: 1, modified: 1 });
    assert.equal(await c.findOne({ _id: 'r1' }), { _id: 'r1', b: 2 });
    assert.equal(await c.replaceOne({ b: 2 }, { _id: 'r1', b: 2 }), { matched: 1, modified: 0 });
    assert.equal(await c.replaceOne({ _id: 'r2' }, { c: 3 } as never, { upsert: true }), { matched: 0, modified: 0, upsertedId: 'r2' });
    assert.equal(await c.findOne({ _id: 'r2' }), { _id: 'r2', c: 3 });
  });

  test('deleteMany deletes what matches and counts it', async ({ store, p }) => {
    const c = await fruit(store, p);
    assert.is(await c.deleteMany({ tags: 'x' }), 2);
    assert.equal(sortedIds(await c.find({})), ['b', 'c', 'e']);
    assert.is(await c.deleteMany({ tags: 'x' }), 0);
    assert.is(await c.deleteMany({}), 3);
    assert.is(await c.count({}), 0);
  });

  test('putMany inserts and replaces whole documents by _id, in and out of units', async ({ store, p }) => {
    const name = `${p}put`;
    const c = store.collection(name);
    await c.createIndex({ keys: { tag: 1 }, name: 'tag' });
    await c.insertOne({ _id: 'a', tag: 'old', gone: true });
    const mine = { _id: 'b', tag: 'new', nested: { k: [1, 2] }, skip: undefined };
    await c.putMany([{ _id: 'a', tag: 'new' }, mine]);
    // Stored as written at the call: a later change to the caller's object is not seen.
    mine.nested.k.push(3);
    assert.equal(await c.find({}, { sort: { _id: 1 } }), [
      { _id: 'a', tag: 'new' },
      { _id: 'b', tag: 'new', nested: { k: [1, 2] } },
    ]);
    // Index entries follow the replacement: the old value finds nothing, the new one both.
    assert.is(await c.count({ tag: 'old' }), 0);
    assert.equal(sortedIds(await c.find({ tag: 'new' })), ['a', 'b']);
    await c.putMany([]);
    await store.unit(async (u) => {
      const uc = u.collection(name);
      await uc.putMany([
        { _id: 'c', tag: 'unit' },
        { _id: 'a', tag: 'unit' },
      ]);
      // A unit reads its own bulk writes.
      assert.equal(sortedIds(await uc.find({ tag: 'unit' })), ['a', 'c']);
      u.setCheckpoint(`${p}put`, 9n);
    });
    assert.equal(sortedIds(await c.find({ tag: 'unit' })), ['a', 'c']);
    assert.is(await c.count({}), 3);
    assert.is(await store.checkpoint(`${p}put`), 9n);
  });

  test('putMany refuses bad documents, one _id twice and unique duplicates', async ({ store, p }) => {
    const name = `${p}putbad`;
    const c = store.collection(name);
    await c.createIndex({ keys: { handle: 1 }, unique: true });
    await c.insertOne({ _id: 'a', handle: 'one' });
    const twice = await rejects(
      c.putMany([
        { _id: 'x', v: 1 },
        { _id: 'x', v: 2 },
      ]),
    );
    assert.instance(twice, TypeError);
    await rejects(c.putMany([{ _id: 'y', 'a.b': 1 }]));
    await rejects(c.putMany([{ _id: 7 } as unknown as Doc]));
    await rejects(c.putMany({ _id: 'z' } as unknown as Doc[]));
    assert.equal(sortedIds(await c.find({})), ['a']);
    // Outside a unit the other documents may or may not land (unordered); in a unit, none does.
    await duplicate(c.putMany([{ _id: 'b', handle: 'one' }]), name);
    await duplicate(
      store.unit(async (u) => {
        const uc = u.collection(name);
        await uc.putMany([
          { _id: 'c', handle: 'three' },
          { _id: 'd', handle: 'three' },
        ]);
        u.setCheckpoint(`${p}putbad`, 1n);
      }),
      name,
    );
    assert.equal(sortedIds(await c.find({})), ['a']);
    assert.is(await store.checkpoint(`${p}putbad`), undefined);
    // (Moving a unique value between documents in one call is left out: MongoDB checks unique
    // keys operation by operation, in an order an unordered bulk write does not promise.)
  });

  test('putMany with handOver stores what it stores without it, and refuses what it refuses', async ({ store, p }) => {
    const name = `${p}handed`;
    const c = store.collection(name);
    await c.createIndex({ keys: { tag: 1 }, name: 'tag' });
    // Plain documents, and ones JSON would change (an undefined member or item, -0, a Date):
    // each reads back as JSON makes it, in a unit and out of one.
    const odd = { _id: 'odd', tag: 'x', skip: undefined, zero: -0, at: new Date(0), list: [1, undefined, 3], nested: { k: [{ u: undefined, v: 1 }] } };
    await c.putMany([{ _id: 'a', tag: 'x', nested: { k: [1, 2] } }, odd as unknown as Doc], { handOver: true });
    await store.unit(async (u) => {
      await u.collection(name).putMany([{ _id: 'b', tag: 'y', deep: { a: [[{ b: 'c' }]] } }], { handOver: true });
      // The unit reads its own handed-over write as stored.
      assert.equal(await u.collection(name).findOne({ _id: 'b' }), { _id: 'b', tag: 'y', deep: { a: [[{ b: 'c' }]] } });
      u.setCheckpoint(name, 3n);
    });
    assert.equal(await c.find({}, { sort: { _id: 1 } }), [
      { _id: 'a', tag: 'x', nested: { k: [1, 2] } },
      { _id: 'b', tag: 'y', deep: { a: [[{ b: 'c' }]] } },
      { _id: 'odd', tag: 'x', zero: 0, at: '1970-01-01T00:00:00.000Z', list: [1, null, 3], nested: { k: [{ v: 1 }] } },
    ]);
    assert.equal(sortedIds(await c.find({ tag: 'x' })), ['a', 'odd']);
    // The same refusals: a field name a document may not hold (at any depth), a non-string _id,
    // one _id twice, a duplicate unique key, a document too deep.
    await rejects(c.putMany([{ _id: 'y', 'a.b': 1 }], { handOver: true }));
    await rejects(c.putMany([{ _id: 'y', a: [{ $b: 1 }] }], { handOver: true }));
    await rejects(c.putMany([{ _id: 7 } as unknown as Doc], { handOver: true }));
    assert.instance(
      await rejects(
        c.putMany(
          [
            { _id: 'x', v: 1 },
            { _id: 'x', v: 2 },
          ],
          { handOver: true },
        ),
      ),
      TypeError,
    );
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { s: deep };
    assert.instance(await rejects(c.putMany([{ _id: 'deep', v: deep }], { handOver: true })), RangeError);
    assert.equal(sortedIds(await c.find({})), ['a', 'b', 'odd']);
    const handles = store.collection(`${name}u`);
    await handles.createIndex({ keys: { handle: 1 }, unique: true });
    await handles.putMany([{ _id: 'h1', handle: 'one' }], { handOver: true });
    await duplicate(
      store.unit(async (u) => {
        await u.collection(`${name}u`).putMany([{ _id: 'h2', handle: 'one' }], { handOver: true });
      }),
      `${name}u`,
    );
    assert.equal(sortedIds(await handles.find({})), ['h1']);
  });

  test('a document nested deeper than 100 levels (objects and arrays alike) is refused, as MongoDB refuses it', async ({ store, p }) => {
    const c = store.collection(`${p}deep`);
    // The document is level 1; each object or array inside adds one (MongoDB's count).
    const nest = (levels: number, leaf: unknown = 1, array = false): unknown => {
      let v = leaf;
      for (let i = 0; i < levels; i++) v = array && i % 2 ? [v] : { s: v };
      return v;
    };
    await c.insertOne({ _id: 'at-limit', v: nest(99) });
    assert.equal(JSON.stringify((await c.findOne({ _id: 'at-limit' }))!.v).length, JSON.stringify(nest(99)).length);
    const tooDeep = [
      { _id: 'objects', v: nest(100) },
      { _id: 'arrays', v: nest(100, 1, true) },
      { _id: 'empty', v: nest(99, {}) },
    ];
    for (const doc of tooDeep) {
      assert.instance(await rejects(c.insertOne(doc)), RangeError, doc._id);
      assert.instance(await rejects(c.putMany([{ _id: 'fine' }, doc])), RangeError, doc._id);
      assert.instance(await rejects(c.replaceOne({ _id: 'at-limit' }, doc)), RangeError, doc._id);
    }
    await c.insertOne({ _id: 'shallow', a: { b: {} } });
    // An update lands its value below its path: a.b.x is level 4, so its value may be 97 deep.
    await c.updateOne({ _id: 'shallow' }, { $set: { 'a.b.x': nest(97) } });
    assert.instance(await rejects(c.updateOne({ _id: 'shallow' }, { $set: { 'a.b.y': nest(98) } })), RangeError);
    await c.updateOne({ _id: 'shallow' }, { $push: { list: nest(98) } });
    assert.instance(await rejects(c.updateOne({ _id: 'shallow' }, { $push: { list: nest(99) } })), RangeError);
    assert.instance(await rejects(c.updateOne({ _id: 'shallow' }, { $push: { list: { $each: [1, nest(99)] } } })), RangeError);
    assert.instance(await rejects(c.updateOne({ _id: 'new' }, { $set: { v: nest(100) } }, { upsert: true })), RangeError);
    // In a unit the refusal dooms the unit: nothing of it is written.
    await rejects(
      store.unit(async (u) => {
        await u.collection(`${p}deep`).insertOne({ _id: 'in-unit' });
        await u.collection(`${p}deep`).putMany([{ _id: 'deep-in-unit', v: nest(100) }]);
        u.setCheckpoint(`${p}deep`, 1n);
      }),
    );
    assert.equal(ids(await c.find({}, { sort: { _id: 1 } })), ['at-limit', 'shallow']);
    assert.is(await store.checkpoint(`${p}deep`), undefined);
  });

  test('a duplicate _id is refused with DuplicateKey', async ({ store, p }) => {
    const c = store.collection(`${p}dup`);
    await c.insertOne({ _id: 'k', v: 1 });
    const error = await duplicate(c.insertOne({ _id: 'k', v: 2 }), `${p}dup`);
    assert.match(error.key, 'k');
    assert.equal(await c.findOne({ _id: 'k' }), { _id: 'k', v: 1 });
    // An upsert whose filter misses but whose _id exists.
    await duplicate(c.updateOne({ _id: 'k', v: 5 }, { $set: { w: 1 } }, { upsert: true }), `${p}dup`);
    assert.equal(await c.findOne({ _id: 'k' }), { _id: 'k', v: 1 });
  });

  test('a unique index refuses duplicates on insert, update, replace and upsert', async ({ store, p }) => {
    const name = `${p}people`;
    const c = store.collection(name);
    await c.createIndex({ keys: { email: 1 }, unique: true });
    await c.createIndex({ keys: { email: 1 }, unique: true }); // the same index again is a no-op
    await c.insertOne({ _id: 'p1', email: 'a@x' });
    await c.insertOne({ _id: 'p2', email: 'b@x' });
    const error = await duplicate(c.insertOne({ _id: 'p3', email: 'a@x' }), name);
    assert.match(error.key, 'a@x');
    await duplicate(c.updateOne({ _id: 'p2' }, { $set: { email: 'a@x' } }), name);
    await duplicate(c.replaceOne({ _id: 'p2' }, { _id: 'p2', email: 'a@x' }), name);
    await duplicate(c.updateOne({ _id: 'p9' }, { $set: { email: 'a@x' } }, { upsert: true }), name);
    assert.equal(sortedIds(await c.find({})), ['p1', 'p2']);
    assert.is((await c.findOne({ _id: 'p2' }))!.email, 'b@x');
    // Changing a document's own key, or keeping it, is not a duplicate.
    await c.updateOne({ _id: 'p1' }, { $set: { email: 'a@x', name: 'A' } });
    await c.updateOne({ _id: 'p1' }, { $set: { email: 'c@x' } });
    await c.insertOne({ _id: 'p3', email: 'a@x' });
    assert.is(await c.count({ email: 'a@x' }), 1);
  });

  test('a unique compound index and a unique index over existing duplicates', async ({ store, p }) => {
    const name = `${p}names`;
    const c = store.collection(name);
    await c.createIndex({ keys: { world: 1, name: 1 }, unique: true });
    await c.insertOne({ _id: '1', world: 'town', name: 'bob' });
    await c.insertOne({ _id: '2', world: 'other', name: 'bob' });
    await duplicate(c.insertOne({ _id: '3', world: 'town', name: 'bob' }), name);
    const other = store.collection(`${p}dups`);
    await other.insertOne({ _id: '1', tag: 'same' });
    await other.insertOne({ _id: '2', tag: 'same' });
    await duplicate(other.createIndex({ keys: { tag: 1 }, unique: true }), `${p}dups`);
    await other.insertOne({ _id: '3', tag: 'same' }); // the refused index does not exist
  });

  test('1,000 documents page in sort order without gaps or repeats', async ({ store, p }) => {
    const name = `${p}cards`;
    const c = store.collection(name);
    await c.createIndex({ keys: { world: 1, id: 1 } });
    await store.unit(async (u) => {
      const uc = u.collection(name);
      for (let i = 0; i < 1000; i++) {
        const id = `card-${String((i * 7919) % 1000).padStart(4, '0')}`;
        await uc.insertOne({ _id: id, id, world: i % 3 === 0 ? 'other' : 'town', rank: i % 10 });
      }
    });
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const page = await c.find({ world: 'town', id: { $gt: after } }, { sort: { id: 1 }, limit: 64 });
      seen.push(...page.map((d) => d.id as string));
      if (page.length < 64) break;
      after = page[page.length - 1]!.id as string;
    }
    const town = await c.count({ world: 'town' });
    assert.is(town, 666);
    assert.is(seen.length, town);
    assert.equal(seen, [...seen].sort());
    assert.is(new Set(seen).size, seen.length);
    // Backwards with skip/limit over a non-unique key, ties broken by _id.
    const all: string[] = [];
    for (let skip = 0; skip < 1000; skip += 100) {
      all.push(...ids(await c.find({}, { sort: { rank: -1, _id: 1 }, skip, limit: 100 })));
    }
    assert.is(new Set(all).size, 1000);
    const full = ids(await c.find({}, { sort: { rank: -1, _id: 1 } }));
    assert.equal(all, full);
  });

  test('createIndexes builds several indexes over the documents there, which later writes keep up to date', async ({ store, p }) => {
    const name = `${p}built`;
    const c = store.collection(name);
    // Strings whose UTF-16 and UTF-8 orders differ (a surrogate pair against U+FFFD), numbers of
    // both signs, missing fields and arrays (multikey), so the entries' order is what the store's is.
    const tags = ['b', 'a', '\uFFFD', '\u{1F600}', 'é', '', 'a'.repeat(150), undefined];
    const docs: Doc[] = [];
    for (let i = 0; i < 240; i++) {
      const tag = tags[i % tags.length];
      docs.push({
        _id: `d${String(i).padStart(3, '0')}`,
        world: i % 3 === 0 ? 'other' : 'town',
        n: (i % 17) - 8 + (i % 2 ? 0.5 : 0),
        ...(tag === undefined ? {} : { tag }),
        list: [i % 5, `x${i % 4}`],
      });
    }
    for (let i = 0; i < docs.length; i += 60) await c.putMany(docs.slice(i, i + 60));
    await c.createIndexes([
      { keys: { tag: 1 }, name: 'tag' },
      { keys: { world: 1, n: -1 }, name: 'world_n' },
      { keys: { list: 1 }, name: 'list' },
    ]);
    // The same indexes again, in another order: nothing to do.
    await c.createIndexes([
      { keys: { list: 1 }, name: 'list' },
      { keys: { tag: 1 }, name: 'tag' },
    ]);
    const expect = async (filter: Filter, test: (d: Doc) => boolean, what: string) => {
      const want = docs
        .filter(test)
        .map((d) => d._id)
        .sort();
      assert.equal(sortedIds(await c.find(filter)), want, what);
    };
    await expect({ tag: 'a' }, (d) => d.tag === 'a', 'equality');
    await expect({ tag: '\u{1F600}' }, (d) => d.tag === '\u{1F600}', 'a surrogate pair');
    await expect({ tag: 'a'.repeat(150) }, (d) => d.tag === 'a'.repeat(150), 'a long string');
    await expect({ tag: null }, (d) => d.tag === undefined, 'a missing field');
    await expect({ world: 'town', n: { $gte: -2, $lt: 3 } }, (d) => d.world === 'town' && (d.n as number) >= -2 && (d.n as number) < 3, 'a compound range');
    await expect({ list: 'x1' }, (d) => (d.list as unknown[]).includes('x1'), 'an element of an array');
    const page = await c.find({ world: 'town' }, { sort: { n: -1, _id: 1 }, limit: 20 });
    const sorted = docs
      .filter((d) => d.world === 'town')
      .sort((a, b) => (b.n as number) - (a.n as number) || (a._id < b._id ? -1 : 1))
      .slice(0, 20);
    assert.equal(ids(page), ids(sorted), 'sorted through the compound index');
    // Writes after the build move, add and remove entries as ever.
    await c.updateOne({ _id: 'd001' }, { $set: { tag: 'moved' } });
    await c.insertOne({ _id: 'late', world: 'town', n: 100, tag: 'a', list: ['x1'] });
    await c.deleteMany({ _id: 'd002' });
    docs.find((d) => d._id === 'd001')!.tag = 'moved';
    docs.push({ _id: 'late', world: 'town', n: 100, tag: 'a', list: ['x1'] });
    docs.splice(
      docs.findIndex((d) => d._id === 'd002'),
      1,
    );
    await expect({ tag: 'moved' }, (d) => d.tag === 'moved', 'a moved entry');
    await expect({ tag: 'a' }, (d) => d.tag === 'a', 'an added entry');
    await expect({ list: 'x1' }, (d) => (d.list as unknown[]).includes('x1'), 'an added multikey entry');
    await expect({ world: 'town', n: { $gt: 50 } }, (d) => d.world === 'town' && (d.n as number) > 50, 'an added compound entry');
  });

  test('createIndexes refuses a clash or a duplicate and then builds none of its indexes', async ({ store, p }) => {
    const name = `${p}refused`;
    const c = store.collection(name);
    await c.putMany([
      { _id: '1', tag: 'same', v: 1 },
      { _id: '2', tag: 'same', v: 2 },
    ]);
    await c.createIndex({ keys: { v: 1 }, name: 'v' });
    // A name taken with other keys, the same keys under another name, two specs of one call that clash.
    await rejects(
      c.createIndexes([
        { keys: { w: 1 }, name: 'w' },
        { keys: { tag: 1 }, name: 'v' },
      ]),
      'a name clash',
    );
    await rejects(
      c.createIndexes([
        { keys: { w: 1 }, name: 'w' },
        { keys: { v: 1 }, name: 'other' },
      ]),
      'a keys clash',
    );
    await rejects(
      c.createIndexes([
        { keys: { w: 1 }, name: 'w' },
        { keys: { x: 1 }, name: 'w' },
      ]),
      'a clash inside the call',
    );
    // A unique index over duplicates: DuplicateKey, and the call's other index is not there.
    await duplicate(
      c.createIndexes([
        { keys: { w: 1 }, name: 'w' },
        { keys: { tag: 1 }, name: 'tag', unique: true },
      ]),
      name,
    );
    // Had 'w' been built, an index of that name on other keys would be refused.
    await c.createIndex({ keys: { x: 1 }, name: 'w' });
    await c.insertOne({ _id: '3', tag: 'same' }); // no unique index on tag either
    const error = await rejects(c.createIndexes({ keys: { tag: 1 } } as never), 'not an array');
    assert.instance(error, TypeError);
    await c.createIndexes([]); // nothing to build
    // An index whose entries sort before those there (built by search, not appended).
    await c.createIndexes([{ keys: { tag: 1 }, name: 'a_tag' }]);
    assert.is(await c.count({ tag: 'same' }), 3);
    assert.equal(sortedIds(await c.find({ tag: 'same', v: { $gte: 1 } })), ['1', '2']);
  });

  return test;
}

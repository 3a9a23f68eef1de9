/**
 * The ReadStore contract, its second half: units of work, checkpoints and versions, reopening and
 * dropping (the first half, documents and queries, is read-store.contract.ts). Run against the
 * same adapters (test/stores/read-store-contract.test.ts).
 */
import * as assert from 'uvu/assert';
import { contractSuite, duplicate, ids, rejects, type ReadStoreUnderTest } from './read-store.contract.js';

export function readStoreUnitsContract(name: string, makeStore: () => Promise<ReadStoreUnderTest>) {
  const test = contractSuite(`read store contract (units, checkpoints, versions): ${name}`, makeStore);

  test('a unit that throws leaves nothing written and no checkpoint', async ({ store, p }) => {
    const c = store.collection(`${p}unit`);
    await c.insertOne({ _id: 'before', v: 0 });
    const error = await rejects(
      store.unit(async (u) => {
        const uc = u.collection(`${p}unit`);
        await uc.insertOne({ _id: 'a', v: 1 });
        await uc.updateOne({ _id: 'before' }, { $set: { v: 1 } });
        await u.collection(`${p}other`).insertOne({ _id: 'b' });
        u.setCheckpoint(`${p}proj`, 10n);
        throw new Error('projection failed');
      }),
    );
    assert.is(error.message, 'projection failed');
    assert.equal(await c.find({}), [{ _id: 'before', v: 0 }]);
    assert.is(await store.collection(`${p}other`).count({}), 0);
    assert.is(await store.checkpoint(`${p}proj`), undefined);
  });

  test('a unit whose write was refused commits nothing, even if the work caught the refusal', async ({ store, p }) => {
    const c = store.collection(`${p}unit`);
    await c.insertOne({ _id: 'taken' });
    await duplicate(
      store.unit(async (u) => {
        const uc = u.collection(`${p}unit`);
        await uc.insertOne({ _id: 'fresh' });
        try {
          await uc.insertOne({ _id: 'taken' });
        } catch {
          // swallowed by a careless projection
        }
        u.setCheckpoint(`${p}proj`, 5n);
      }),
      `${p}unit`,
    );
    assert.equal(ids(await c.find({})), ['taken']);
    assert.is(await store.checkpoint(`${p}proj`), undefined);
  });

  test('a unit commits its writes and checkpoint together and reads its own writes', async ({ store, p }) => {
    const name = `${p}unit`;
    const c = store.collection(name);
    await c.insertOne({ _id: 'old1', n: 1 });
    await c.insertOne({ _id: 'old2', n: 4 });
    const result = await store.unit(async (u) => {
      const uc = u.collection(name);
      await uc.insertOne({ _id: 'new', n: 2 });
      await uc.updateOne({ _id: 'old2' }, { $inc: { n: 10 } });
      await uc.deleteMany({ _id: 'old1' });
      assert.equal(await uc.findOne({ _id: 'new' }), { _id: 'new', n: 2 });
      assert.equal(ids(await uc.find({}, { sort: { n: 1 } })), ['new', 'old2']);
      assert.equal(ids(await uc.find({ n: { $gt: 1 } }, { sort: { n: -1 }, limit: 1 })), ['old2']);
      assert.is(await uc.count({}), 2);
      assert.is(await uc.count({ n: { $gte: 2 } }), 2);
      assert.is((await uc.findOne({ _id: 'old2' }))!.n, 14);
      // Outside the unit nothing has changed yet.
      assert.equal(ids(await c.find({})), ['old1', 'old2']);
      u.setCheckpoint(`${p}proj`, 42n);
      return 'done';
    });
    assert.is(result, 'done');
    assert.equal(await c.find({}, { sort: { _id: 1 } }), [
      { _id: 'new', n: 2 },
      { _id: 'old2', n: 14 },
    ]);
    assert.is(await store.checkpoint(`${p}proj`), 42n);
  });

  test('a unit may move a unique value from one document to another', async ({ store, p }) => {
    const name = `${p}handles`;
    const c = store.collection(name);
    await c.createIndex({ keys: { handle: 1 }, unique: true });
    await c.insertOne({ _id: 'a', handle: 'one' });
    await c.insertOne({ _id: 'b', handle: 'two' });
    await store.unit(async (u) => {
      const uc = u.collection(name);
      await uc.updateOne({ _id: 'a' }, { $set: { handle: 'tmp' } });
      await uc.updateOne({ _id: 'b' }, { $set: { handle: 'one' } });
      await uc.updateOne({ _id: 'a' }, { $set: { handle: 'two' } });
    });
    assert.equal(await c.find({}, { sort: { _id: 1 } }), [
      { _id: 'a', handle: 'two' },
      { _id: 'b', handle: 'one' },
    ]);
    // Inside a unit, the unit's own pending values count as taken.
    await duplicate(
      store.unit(async (u) => {
        const uc = u.collection(name);
        await uc.insertOne({ _id: 'c', handle: 'three' });
        await uc.insertOne({ _id: 'd', handle: 'three' });
      }),
      name,
    );
    assert.is(await c.count({}), 2);
  });

  test('concurrent units do not interleave', async ({ store, p }) => {
    const name = `${p}counter`;
    await store.collection(name).insertOne({ _id: 'n', v: 0 });
    const bump = () =>
      store.unit(async (u) => {
        const uc = u.collection(name);
        const doc = await uc.findOne({ _id: 'n' });
        await new Promise((r) => setTimeout(r, 5));
        await uc.updateOne({ _id: 'n' }, { $set: { v: (doc!.v as number) + 1 } });
      });
    await Promise.all([bump(), bump(), bump()]);
    assert.is((await store.collection(name).findOne({ _id: 'n' }))!.v, 3);
  });

  test('checkpoints round-trip as bigints above 2^53', async ({ store, p }) => {
    const big = 2n ** 53n + 12345n;
    assert.is(await store.checkpoint(`${p}proj`), undefined);
    await store.unit(async (u) => u.setCheckpoint(`${p}proj`, big));
    assert.is(await store.checkpoint(`${p}proj`), big);
    await store.unit(async (u) => u.setCheckpoint(`${p}proj`, big * 1000n + 1n));
    assert.is(await store.checkpoint(`${p}proj`), big * 1000n + 1n);
    assert.is(await store.checkpoint(`${p}other`), undefined);
    await rejects(store.unit(async (u) => u.setCheckpoint(`${p}proj`, -1n)));
    await rejects(store.unit(async (u) => u.setCheckpoint(`${p}proj`, 5 as never)));
    assert.is(await store.checkpoint(`${p}proj`), big * 1000n + 1n);
  });

  test('versions are kept beside checkpoints, set with or without one, and refused when not integers', async ({ store, p }) => {
    assert.is(await store.version(`${p}proj`), undefined);
    await store.unit(async (u) => u.setVersion(`${p}proj`, 3));
    assert.is(await store.version(`${p}proj`), 3);
    assert.is(await store.checkpoint(`${p}proj`), undefined, 'a version alone sets no checkpoint');
    await store.unit(async (u) => {
      u.setCheckpoint(`${p}proj`, 12n);
      u.setVersion(`${p}other`, 0);
    });
    assert.is(await store.version(`${p}proj`), 3, 'a checkpoint leaves the version as it was');
    assert.is(await store.checkpoint(`${p}proj`), 12n);
    assert.is(await store.version(`${p}other`), 0);
    assert.is(await store.checkpoint(`${p}other`), undefined);
    await store.unit(async (u) => {
      u.setVersion(`${p}proj`, 4);
      u.setCheckpoint(`${p}proj`, 13n);
    });
    assert.is(await store.version(`${p}proj`), 4);
    assert.is(await store.checkpoint(`${p}proj`), 13n);
    for (const bad of [-1, 1.5, Number.NaN, '2' as never]) await rejects(store.unit(async (u) => u.setVersion(`${p}proj`, bad)));
    assert.is(await store.version(`${p}proj`), 4);
  });

  test('a unit that throws records no version', async ({ store, p }) => {
    await rejects(
      store.unit(async (u) => {
        u.setVersion(`${p}proj`, 2);
        throw new Error('no');
      }),
    );
    assert.is(await store.version(`${p}proj`), undefined);
  });

  test('reopening keeps documents, indexes, checkpoints and versions', async (ctx) => {
    const { p } = ctx;
    const name = `${p}keep`;
    const c = ctx.store.collection(name);
    await c.createIndex({ keys: { email: 1 }, unique: true });
    await c.createIndex({ keys: { world: 1, n: 1 } });
    await ctx.store.unit(async (u) => {
      for (let i = 0; i < 20; i++) await u.collection(name).insertOne({ _id: `d${i}`, email: `${i}@x`, world: i % 2 ? 'odd' : 'even', n: i });
      u.setCheckpoint(`${p}proj`, 77n);
      u.setVersion(`${p}proj`, 5);
    });
    await ctx.store.close();
    ctx.store = await ctx.sut.reopen();
    const again = ctx.store.collection(name);
    assert.is(await again.count({}), 20);
    assert.is(await ctx.store.checkpoint(`${p}proj`), 77n);
    assert.is(await ctx.store.version(`${p}proj`), 5);
    assert.equal(ids(await again.find({ world: 'odd', n: { $gt: 12 } }, { sort: { n: 1 } })), ['d13', 'd15', 'd17', 'd19']);
    await duplicate(again.insertOne({ _id: 'new', email: '3@x' }), name);
  });

  test('drop(prefix) removes those collections, their indexes, checkpoints and versions only', async ({ store, p }) => {
    const a = store.collection(`${p}cards.all`);
    const b = store.collection(`${p}cards.byOwner`);
    const keep = store.collection(`${p}feed.threads`);
    await a.createIndex({ keys: { tag: 1 }, unique: true });
    await a.insertOne({ _id: '1', tag: 't' });
    await b.insertOne({ _id: '1' });
    await keep.insertOne({ _id: '1' });
    await store.unit(async (u) => {
      u.setCheckpoint(`${p}cards`, 5n);
      u.setCheckpoint(`${p}feed`, 6n);
      u.setVersion(`${p}cards`, 2);
      u.setVersion(`${p}feed`, 7);
    });
    await store.drop(`${p}cards`);
    assert.is(await a.count({}), 0);
    assert.is(await b.count({}), 0);
    assert.is(await keep.count({}), 1);
    assert.is(await store.checkpoint(`${p}cards`), undefined);
    assert.is(await store.checkpoint(`${p}feed`), 6n);
    assert.is(await store.version(`${p}cards`), undefined);
    assert.is(await store.version(`${p}feed`), 7);
    // The unique index went with the collection.
    await a.insertOne({ _id: '1', tag: 't' });
    await a.insertOne({ _id: '2', tag: 't' });
    assert.is(await a.count({ tag: 't' }), 2);
  });

  return test;
}

/**
 * The ReadStore contract, its second half: units of work, checkpoints and versions, reopening and
 * dropping (the first half, documents and queries, is read-store.contract.ts). Run against the
 * same adapters (test/stores/read-store-contract.test.ts).
 */
import * as assert from 'uvu/assert';
import { CheckpointBehind, LeaseLost } from '../../src/stores/read-store.js';
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

  test('a checkpoint never moves backwards: such a unit is refused whole; the same position again is taken', async ({ store, p }) => {
    const c = store.collection(`${p}cp`);
    await store.unit(async (u) => u.setCheckpoint(`${p}proj`, 10n));
    const error = await rejects(
      store.unit(async (u) => {
        await u.collection(`${p}cp`).insertOne({ _id: 'late' });
        u.setCheckpoint(`${p}proj`, 9n);
        u.setVersion(`${p}proj`, 5);
      }),
    );
    assert.instance(error, CheckpointBehind, `${error.name}: ${error.message}`);
    assert.is((error as CheckpointBehind).projection, `${p}proj`);
    assert.is(await store.checkpoint(`${p}proj`), 10n);
    assert.is(await store.version(`${p}proj`), undefined);
    assert.is(await c.count({}), 0, 'nothing of the refused unit was written');
    // Replaying the same tail again (an idempotent projection) is fine, and so is going on.
    await store.unit(async (u) => u.setCheckpoint(`${p}proj`, 10n));
    await store.unit(async (u) => u.setCheckpoint(`${p}proj`, 2n ** 60n));
    assert.instance(await rejects(store.unit(async (u) => u.setCheckpoint(`${p}proj`, 2n ** 59n))), CheckpointBehind);
    assert.is(await store.checkpoint(`${p}proj`), 2n ** 60n);
    // Another projection's checkpoint is its own.
    await store.unit(async (u) => u.setCheckpoint(`${p}other`, 1n));
  });

  test('a lease: one holder at a time, taken over once it expires, its fencing token refusing the old holder', async ({ store, p }) => {
    const name = `${p}proj`;
    const a = await store.acquireLease(name, 'worker-a', 60_000);
    assert.ok(a, 'a free lease is taken');
    assert.is(a!.holder, 'worker-a');
    assert.is(await store.acquireLease(name, 'worker-b', 60_000), undefined, 'a held lease is not');
    const again = await store.acquireLease(name, 'worker-a', 60_000);
    assert.ok(again && again.token > a!.token, 'its holder takes it again with a new token');
    const renewed = await store.renewLease(again!, 60_000);
    assert.is(renewed?.token, again!.token);
    assert.is(await store.renewLease(a!, 60_000), undefined, 'the older token cannot renew');
    // A unit fenced with the lease commits; one fenced with an older token writes nothing.
    await store.unit(async (u) => {
      u.fence(again!);
      await u.collection(`${p}leased`).insertOne({ _id: 'by-a' });
      u.setCheckpoint(name, 1n);
    });
    const stale = await rejects(
      store.unit(async (u) => {
        u.fence(a!);
        await u.collection(`${p}leased`).insertOne({ _id: 'stale' });
        u.setCheckpoint(name, 2n);
      }),
    );
    assert.instance(stale, LeaseLost, `${stale.name}: ${stale.message}`);
    assert.equal(ids(await store.collection(`${p}leased`).find({})), ['by-a']);
    assert.is(await store.checkpoint(name), 1n);
    // Released, another takes it at once; expired, another takes it too.
    await store.releaseLease(renewed!);
    const b = await store.acquireLease(name, 'worker-b', 50);
    assert.ok(b && b.token > renewed!.token, 'released: taken at once, with a greater token');
    assert.is(await store.acquireLease(name, 'worker-c', 50), undefined);
    await new Promise((r) => setTimeout(r, 120));
    const c = await store.acquireLease(name, 'worker-c', 60_000);
    assert.ok(c && c.token > b!.token, 'expired: taken over');
    assert.is(await store.renewLease(b!, 60_000), undefined, 'the holder that let it expire has lost it');
    assert.instance(
      await rejects(
        store.unit(async (u) => {
          u.fence(b!);
          u.setCheckpoint(name, 3n);
        }),
      ),
      LeaseLost,
    );
    // Leases of other projections are their own; bad arguments are refused.
    assert.ok(await store.acquireLease(`${p}other`, 'worker-b', 60_000));
    await rejects(store.acquireLease(name, '', 1000));
    await rejects(store.acquireLease(name, 'worker-d', 0));
    await rejects(store.unit(async (u) => u.fence({ ...c!, token: 0 })));
    assert.throws(() => store.collection('leases'));
    // Dropping every read model keeps the leases: a token never repeats.
    await store.drop('');
    await store.releaseLease(c!);
    const d = await store.acquireLease(name, 'worker-d', 60_000);
    assert.ok(d && d.token > c!.token, 'tokens go on growing after a drop');
  });

  test('waitForCheckpoint: true at once when reached, true when a unit reaches it, false after the timeout', async ({ store, p }) => {
    const name = `${p}proj`;
    await store.unit(async (u) => u.setCheckpoint(name, 5n));
    assert.is(await store.waitForCheckpoint(name, 5n, 10), true);
    const started = Date.now();
    assert.is(await store.waitForCheckpoint(name, 6n, 60), false);
    assert.ok(Date.now() - started >= 55, 'waited its timeout');
    const waiting = store.waitForCheckpoint(name, 8n, 5000);
    setTimeout(() => void store.unit(async (u) => u.setCheckpoint(name, 9n)), 30);
    const t0 = Date.now();
    assert.is(await waiting, true);
    assert.ok(Date.now() - t0 < 1000, `heard within a second (${Date.now() - t0} ms)`);
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

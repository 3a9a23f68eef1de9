/**
 * The ReadStore contract, its second half: units of work, checkpoints and versions, reopening and
 * dropping (the first half, documents and queries, is read-store.contract.ts). Run against the
 * same adapters (test/stores/read-store-contract.test.ts).
 */
import * as assert from 'uvu/assert';
import { CheckpointBehind, DuplicateKey, LeaseLost, UnitTooLarge } from '../../src/stores/read-store.js';
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
    assert.throws(() => store.collection('fences'));
    // Dropping every read model keeps the leases: a token never repeats.
    await store.drop('');
    await store.releaseLease(c!);
    const d = await store.acquireLease(name, 'worker-d', 60_000);
    assert.ok(d && d.token > c!.token, 'tokens go on growing after a drop');
  });

  test('a lease renewed while a unit fenced with it is open does not make the unit run again', async ({ store, p }) => {
    const name = `${p}proj`;
    const lease = (await store.acquireLease(name, 'worker-a', 60_000))!;
    let runs = 0;
    let renewal: Promise<unknown> | undefined;
    await store.unit(async (u) => {
      runs++;
      u.fence(lease);
      await u.collection(`${p}leased`).insertOne({ _id: `run-${runs}` });
      // The keeper renews on its timer, whatever the unit does; where units are transactions the
      // renewal commits while this one is open (elsewhere it waits for the unit).
      renewal ??= store.renewLease(lease, 60_000);
      await Promise.race([renewal, new Promise((r) => setTimeout(r, 200))]);
      u.setCheckpoint(name, 1n);
    });
    assert.ok(await renewal, 'renewed');
    assert.is(runs, 1, 'the unit ran once: the renewal wrote nothing it wrote');
    assert.equal(ids(await store.collection(`${p}leased`).find({})), ['run-1']);
  });

  test('onCommit: run in order once the unit commits (also when it wrote nothing), never when it does not', async ({ store, p }) => {
    const c = store.collection(`${p}oc`);
    const heard: string[] = [];
    const result = await store.unit(async (u) => {
      await u.collection(`${p}oc`).insertOne({ _id: 'a' });
      u.onCommit(() => heard.push('first'));
      u.onCommit(() => heard.push('second'));
      u.setCheckpoint(`${p}oc`, 1n);
      assert.equal(heard, [], 'not while the work runs');
      return 'done';
    });
    assert.is(result, 'done');
    assert.equal(heard, ['first', 'second'], 'run before unit() resolves, in order');
    await store.unit(async (u) => u.onCommit(() => heard.push('empty')));
    assert.equal(heard, ['first', 'second', 'empty']);
    // A unit that fails runs none of its callbacks, whatever failed.
    await rejects(
      store.unit(async (u) => {
        u.onCommit(() => heard.push('threw'));
        throw new Error('fold failed');
      }),
    );
    await rejects(
      store.unit(async (u) => {
        u.onCommit(() => heard.push('duplicate'));
        await u.collection(`${p}oc`).insertOne({ _id: 'a' });
      }),
    );
    await rejects(
      store.unit(async (u) => {
        u.onCommit(() => heard.push('behind'));
        await u.collection(`${p}oc`).insertOne({ _id: 'behind' });
        u.setCheckpoint(`${p}oc`, 0n);
      }),
    );
    const old = (await store.acquireLease(`${p}oc`, 'worker-a', 60_000))!;
    await store.acquireLease(`${p}oc`, 'worker-a', 60_000);
    assert.instance(
      await rejects(
        store.unit(async (u) => {
          u.fence(old);
          u.onCommit(() => heard.push('fenced out'));
          await u.collection(`${p}oc`).insertOne({ _id: 'fenced' });
        }),
      ),
      LeaseLost,
    );
    assert.equal(heard, ['first', 'second', 'empty']);
    assert.equal(ids(await c.find({})), ['a']);
    // A callback that throws: the unit committed, the other callbacks ran, unit() rejects with its error.
    const error = await rejects(
      store.unit(async (u) => {
        await u.collection(`${p}oc`).insertOne({ _id: 'b' });
        u.onCommit(() => {
          throw new Error('callback failed');
        });
        u.onCommit(() => heard.push('after the throw'));
      }),
    );
    assert.is(error.message, 'callback failed');
    assert.equal(ids(await c.find({}, { sort: { _id: 1 } })), ['a', 'b']);
    assert.equal(heard.at(-1), 'after the throw');
    // Too late once the work has ended, and only functions.
    let kept: import('../../src/stores/read-store.js').Unit | undefined;
    await store.unit(async (u) => {
      kept = u;
    });
    assert.throws(() => kept!.onCommit(() => undefined));
    await rejects(store.unit(async (u) => u.onCommit('nope' as never)));
  });

  test('unit limits: a unit past its writes or bytes is refused whole with UnitTooLarge; writes outside units are not counted', async ({ sut, store, p }) => {
    const limits = store.unitLimits;
    assert.ok(limits === undefined || (limits.ops > 0 && limits.bytes > 0), 'the store tells its limits, if any');
    const small = await sut.limited({ ops: 3, bytes: 2048 });
    try {
      const s = small.store;
      assert.equal(s.unitLimits, { ops: 3, bytes: 2048 });
      // Three writes (a putMany is one, however many documents it carries) fit.
      await s.unit(async (u) => {
        const c = u.collection(`${p}lim`);
        await c.putMany([{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }]);
        await c.updateOne({ _id: 'a' }, { $set: { n: 1 } });
        await c.deleteMany({ _id: 'c' });
        u.setCheckpoint(`${p}lim`, 1n);
      });
      assert.equal(ids(await s.collection(`${p}lim`).find({}, { sort: { _id: 1 } })), ['a', 'b']);
      // A fourth is refused, and the unit with it, even when the work catches the refusal.
      let heard = false;
      const many = await rejects(
        s.unit(async (u) => {
          const c = u.collection(`${p}lim`);
          u.onCommit(() => {
            heard = true;
          });
          for (const id of ['d', 'e', 'f']) await c.insertOne({ _id: id });
          await c.insertOne({ _id: 'g' }).catch(() => undefined);
          u.setCheckpoint(`${p}lim`, 2n);
        }),
      );
      assert.instance(many, UnitTooLarge, `${many.name}: ${many.message}`);
      assert.is((many as UnitTooLarge).ops, 4);
      assert.equal((many as UnitTooLarge).limits, { ops: 3, bytes: 2048 });
      // Bytes: one putMany of documents over 2 KiB.
      const big = await rejects(
        s.unit(async (u) => {
          await u.collection(`${p}lim`).putMany([
            { _id: 'h', text: 'x'.repeat(1200) },
            { _id: 'i', text: 'y'.repeat(1200) },
          ]);
        }),
      );
      assert.instance(big, UnitTooLarge);
      assert.ok((big as UnitTooLarge).bytes > 2048, String((big as UnitTooLarge).bytes));
      assert.not.ok(heard, 'a refused unit runs no onCommit');
      assert.equal(ids(await s.collection(`${p}lim`).find({}, { sort: { _id: 1 } })), ['a', 'b']);
      assert.is(await s.checkpoint(`${p}lim`), 1n);
      // Outside units nothing is counted.
      for (let i = 0; i < 5; i++) await s.collection(`${p}lim`).insertOne({ _id: `out-${i}`, text: 'z'.repeat(1000) });
      assert.is(await s.collection(`${p}lim`).count({}), 7);
      // A refused write is the unit's failure, not a duplicate or a bad document's.
      assert.not.instance(many, DuplicateKey);
    } finally {
      await small.close();
    }
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

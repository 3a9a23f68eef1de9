/**
 * The ReadStore contract, generations (read-store-generations.ts): a generation's collections,
 * indexes, checkpoints and versions are its own; switching is durable and moves the store's
 * own methods; drops stay inside a generation. Run against the same adapters as the rest of
 * the contract (test/stores/read-store-contract.test.ts).
 */
import * as assert from 'uvu/assert';
import { contractSuite, duplicate, ids, rejects, type ReadStoreUnderTest } from './read-store.contract.js';

export function readStoreGenerationsContract(name: string, makeStore: () => Promise<ReadStoreUnderTest>) {
  const test = contractSuite(`read store contract (generations): ${name}`, makeStore);

  test('a generation is a namespace of its own: documents, indexes, checkpoints, versions', async ({ store, p }) => {
    assert.is(store.generation, 0);
    const next = store.at(1);
    assert.is(next.generation, 1);
    assert.is(store.at(0).generation, 0);
    await store.collection(`${p}cards.all`).insertOne({ _id: 'a', tag: 't', in: 0 });
    await next.collection(`${p}cards.all`).createIndex({ keys: { tag: 1 }, unique: true });
    await next.unit(async (u) => {
      await u.collection(`${p}cards.all`).insertOne({ _id: 'b', tag: 't', in: 1 });
      u.setCheckpoint(`${p}cards`, 9n);
      u.setVersion(`${p}cards`, 3);
    });
    await store.unit(async (u) => u.setCheckpoint(`${p}cards`, 4n));
    assert.equal(ids(await store.collection(`${p}cards.all`).find({})), ['a']);
    assert.equal(ids(await next.collection(`${p}cards.all`).find({})), ['b']);
    assert.is(await store.checkpoint(`${p}cards`), 4n);
    assert.is(await next.checkpoint(`${p}cards`), 9n);
    assert.is(await store.version(`${p}cards`), undefined);
    assert.is(await next.version(`${p}cards`), 3);
    // The unique index is generation 1's alone.
    await store.collection(`${p}cards.all`).insertOne({ _id: 'c', tag: 't' });
    await duplicate(next.collection(`${p}cards.all`).insertOne({ _id: 'c', tag: 't' }), `g1.${p}cards.all`);
  });

  test('switchGeneration moves the store, durably; other generations stay reachable with at()', async (ctx) => {
    const { p } = ctx;
    await ctx.store.collection(`${p}feed.posts`).insertOne({ _id: 'old' });
    await ctx.store.unit(async (u) => u.setCheckpoint(`${p}feed`, 1n));
    await ctx.store.at(2).unit(async (u) => {
      await u.collection(`${p}feed.posts`).insertOne({ _id: 'new' });
      u.setCheckpoint(`${p}feed`, 2n);
    });
    await ctx.store.switchGeneration(2);
    assert.is(ctx.store.generation, 2);
    assert.equal(ids(await ctx.store.collection(`${p}feed.posts`).find({})), ['new']);
    assert.is(await ctx.store.checkpoint(`${p}feed`), 2n);
    assert.equal(ids(await ctx.store.at(0).collection(`${p}feed.posts`).find({})), ['old']);
    // Units of the store write the current generation.
    await ctx.store.unit(async (u) => u.collection(`${p}feed.posts`).insertOne({ _id: 'newer' }));
    assert.is(await ctx.store.at(2).collection(`${p}feed.posts`).count({}), 2);
    await ctx.store.close();
    ctx.store = await ctx.sut.reopen();
    assert.is(ctx.store.generation, 2, 'a store opened later starts at the generation switched to');
    assert.equal(ids(await ctx.store.collection(`${p}feed.posts`).find({})), ['new', 'newer']);
    assert.is(await ctx.store.at(0).checkpoint(`${p}feed`), 1n);
  });

  test('a drop stays inside its generation, even drop() of everything in generation 0', async ({ store, p }) => {
    for (const g of [0, 1, 2]) {
      await store.at(g).unit(async (u) => {
        await u.collection(`${p}cards.all`).insertOne({ _id: `in${g}` });
        u.setCheckpoint(`${p}cards`, BigInt(g + 10));
        u.setVersion(`${p}cards`, g);
      });
    }
    await store.at(1).drop(`${p}cards`);
    assert.is(await store.at(1).collection(`${p}cards.all`).count({}), 0);
    assert.is(await store.at(1).checkpoint(`${p}cards`), undefined);
    assert.is(await store.at(1).version(`${p}cards`), undefined);
    await store.at(0).drop();
    assert.is(await store.collection(`${p}cards.all`).count({}), 0);
    assert.is(await store.checkpoint(`${p}cards`), undefined);
    assert.equal(ids(await store.at(2).collection(`${p}cards.all`).find({})), ['in2']);
    assert.is(await store.at(2).checkpoint(`${p}cards`), 12n);
    assert.is(await store.at(2).version(`${p}cards`), 2);
  });

  test('refuses names that look like a generation, bad generations, and a view switching', async ({ store, p }) => {
    assert.instance(await rejects((async () => store.collection(`g1.${p}x`))()), TypeError);
    assert.instance(await rejects(store.checkpoint('g3.cards')), TypeError);
    assert.instance(await rejects((async () => store.at(-1))()), TypeError);
    assert.instance(await rejects((async () => store.at(1.5))()), TypeError);
    assert.instance(await rejects(store.switchGeneration(-2)), TypeError);
    assert.instance(await rejects(store.at(1).switchGeneration(1)), TypeError);
    assert.is(store.generation, 0);
  });

  return test;
}

import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FoldCache } from '../../src/identity/fold-cache.js';
import { activeCredential } from '../../src/commands/credential.js';
import { credentialKind } from '../../src/identity/kinds.js';
import type { EventStore } from '../../src/stores/event-store.js';
import { tempStore, type TempStore } from './support.js';

const test = suite<{ temp: TempStore; reads: number; counted: EventStore }>('fold cache');

test.before.each(async (ctx) => {
  ctx.temp = await tempStore();
  ctx.reads = 0;
  // The same store, counting the stream reads a fold makes.
  const store = ctx.temp.store;
  ctx.counted = Object.assign(Object.create(store) as EventStore, {
    readStream: (...args: Parameters<EventStore['readStream']>) => {
      ctx.reads++;
      return store.readStream(...args);
    },
  });
});
test.after.each(async (ctx) => ctx.temp.cleanup());

const stream = 'credential-abc';
const issued = { type: 'CredentialIssued', data: { name: 'ada', claimId: 'c1', at: 1 } };
const revoked = { type: 'CredentialRevoked', data: { why: 'guest', at: 2 } };
const append = (ctx: { temp: TempStore }, event: { type: string; data: unknown }, expected: 'noStream' | bigint) =>
  ctx.temp.store.append(stream, [{ id: randomUUID(), ...event }], expected);

test('a stream that does not exist is the initial state, and nothing is read', async (ctx) => {
  const cache = new FoldCache(ctx.counted);
  assert.equal(await cache.state(stream, credentialKind), credentialKind.decider.initialState());
  assert.is(ctx.reads, 0);
});

test('given a folded stream, when nothing was appended, then it is not read again', async (ctx) => {
  await append(ctx, issued, 'noStream');
  const cache = new FoldCache(ctx.counted);
  const first = await cache.state(stream, credentialKind);
  const again = await cache.state(stream, credentialKind);
  assert.is(again, first);
  assert.is(ctx.reads, 1);
});

test('given two fronts that folded a credential, when one revokes, then both see it at once', async (ctx) => {
  await append(ctx, issued, 'noStream');
  const a = new FoldCache(ctx.counted);
  const b = new FoldCache(ctx.counted);
  assert.is(activeCredential(await a.state(stream, credentialKind))?.name, 'ada');
  assert.is(activeCredential(await b.state(stream, credentialKind))?.name, 'ada');
  await append(ctx, revoked, 0n);
  assert.is(activeCredential(await a.state(stream, credentialKind)), undefined);
  assert.is(activeCredential(await b.state(stream, credentialKind)), undefined);
  assert.is(ctx.reads, 4);
});

test('past its size the cache starts over, and still answers right', async (ctx) => {
  const cache = new FoldCache(ctx.counted, 2);
  const names = ['credential-a', 'credential-b', 'credential-c'];
  for (const name of names) await ctx.temp.store.append(name, [{ id: randomUUID(), ...issued }], 'noStream');
  for (const name of names) await cache.state(name, credentialKind);
  for (const name of names) await cache.state(name, credentialKind);
  // a, b fill it; c clears it; a is folded again, b too, c again after b cleared it.
  assert.is(ctx.reads, 6);
  for (const name of names) assert.is(activeCredential(await cache.state(name, credentialKind))?.name, 'ada');
});

test.run();

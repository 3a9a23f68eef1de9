/**
 * A lease keeper trusts its lease by its own monotonic clock, from when it last asked the store,
 * never by comparing the store's `expiresAt` (MongoDB's server clock) with this host's wall
 * clock: a store whose clock runs an hour behind or an hour ahead changes nothing. The store
 * here answers with such an `expiresAt`, then stops answering renewals.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LeaseKeeper } from '../../src/projections/lease-keeper.js';
import type { Lease, ReadStore } from '../../src/stores/read-store.js';

const TTL = 300;
const hour = 3_600_000;

/** The lease methods of a store whose clock is `skewMs` off this host's; renewals fail once `down`. */
function skewedStore(skewMs: number) {
  let token = 0;
  const state = { down: false, renewals: 0 };
  const lease = (projection: string, holder: string, ttlMs: number): Lease => ({ projection, holder, token, expiresAt: Date.now() + skewMs + ttlMs });
  const store = {
    acquireLease: async (projection: string, holder: string, ttlMs: number) => {
      token++;
      return lease(projection, holder, ttlMs);
    },
    renewLease: async (l: Lease, ttlMs: number) => {
      state.renewals++;
      if (state.down) throw new Error('no answer from the store');
      return lease(l.projection, l.holder, ttlMs);
    },
    releaseLease: async () => undefined,
  } as unknown as ReadStore;
  return { store, state };
}

const tick = () => new Promise((r) => setTimeout(r, TTL / 3 + 60));

for (const [what, skew] of [
  ['an hour behind', -hour],
  ['an hour ahead', hour],
] as const) {
  test(`a store whose clock runs ${what}: the lease is trusted for its time to live from when it was asked for, no less, no more`, async () => {
    const { store, state } = skewedStore(skew);
    let clock = 1_000;
    const keeper = new LeaseKeeper(store, ['p'], { holder: 'me', ttlMs: TTL, now: () => clock });
    const lost: Error[] = [];
    keeper.onLost((e) => lost.push(e));
    try {
      assert.ok(await keeper.take());
      assert.is(keeper.trustedUntilOf('p'), 1_000 + TTL);
      // A renewal that answers moves the deadline to its own asking time + ttl.
      clock = 1_100;
      const before = state.renewals;
      while (state.renewals === before) await tick();
      assert.is(keeper.trustedUntilOf('p'), 1_100 + TTL);
      // The store stops answering: still trusted until that deadline, whatever `expiresAt` says.
      state.down = true;
      clock = 1_100 + TTL - 1;
      const failing = state.renewals;
      while (state.renewals === failing) await tick();
      await tick();
      assert.equal(lost, [], 'trusted while its time to live lasts on this clock');
      assert.is(keeper.leases.length, 1);
      clock = 1_100 + TTL + 1;
      for (let i = 0; i < 20 && !lost.length; i++) await tick();
      assert.is(lost.length, 1, 'lost once its time to live has passed on this clock');
      assert.is(lost[0]!.message, 'no answer from the store');
      assert.is(keeper.leases.length, 0);
      assert.is(keeper.trustedUntilOf('p'), undefined);
    } finally {
      keeper.abandon();
    }
  });
}

test.run();

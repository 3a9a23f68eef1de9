/**
 * The embedded read store's leases (ReadStore.acquireLease): who folds a projection, and the
 * fencing token its units carry. Each change is one synchronous LMDB write transaction, so it
 * reads and writes the lease under LMDB's writer lock: two processes asking at once (a worker
 * and its standby, docs/decisions/embedded-workers.md) cannot both take it.
 *
 * A lease is void before it expires when the process that took it is gone (same machine, same
 * boot, no such pid): a worker killed with SIGKILL is taken over at once, not after its time
 * to live, and a town restarted after a crash does not wait for its old threads' leases.
 */
import type { Lease } from '../read-store.js';
import type { StoredLease } from './read-commit.js';
import type { ReadEnv } from './read-env.js';
import { bootId, processAlive } from './lock.js';

const boot = bootId();

/** Takes the lease for `holder` (a new token), or undefined while another live holder has it. */
export function takeLease(lmdb: ReadEnv, projection: string, holder: string, ttlMs: number): Lease | undefined {
  return lmdb.env.transactionSync(() => {
    const now = Date.now();
    const have = lmdb.meta.get(['lease', projection]) as StoredLease | undefined;
    if (have && have.holder !== holder && have.expiresAt > now && holderAlive(have)) return undefined;
    const next: StoredLease = { holder, token: (have?.token ?? 0) + 1, expiresAt: now + ttlMs, pid: process.pid, ...(boot ? { boot } : {}) };
    lmdb.meta.putSync(['lease', projection], next);
    return { projection, holder, token: next.token, expiresAt: next.expiresAt };
  });
}

/** Extends a lease still held with its token, or undefined when it was taken over. */
export function renewLease(lmdb: ReadEnv, lease: Lease, ttlMs: number): Lease | undefined {
  return lmdb.env.transactionSync(() => {
    const have = lmdb.meta.get(['lease', lease.projection]) as StoredLease | undefined;
    if (have?.holder !== lease.holder || have.token !== lease.token) return undefined;
    const next: StoredLease = { ...have, expiresAt: Date.now() + ttlMs };
    lmdb.meta.putSync(['lease', lease.projection], next);
    return { projection: lease.projection, holder: next.holder, token: next.token, expiresAt: next.expiresAt };
  });
}

/** Gives a lease up (it expires now), when it is still the one held. */
export function releaseLease(lmdb: ReadEnv, lease: Lease): void {
  lmdb.env.transactionSync(() => {
    const have = lmdb.meta.get(['lease', lease.projection]) as StoredLease | undefined;
    if (have?.holder !== lease.holder || have.token !== lease.token) return;
    lmdb.meta.putSync(['lease', lease.projection], { ...have, expiresAt: 0 });
  });
}

/**
 * Whether the process that took a lease may still be folding: this process (another thread of
 * it, or itself), or a live process of this boot. A lease from an earlier boot is void.
 */
function holderAlive(lease: StoredLease): boolean {
  if (lease.pid === process.pid) return true;
  if (lease.boot === undefined || lease.boot !== boot) return false;
  return processAlive(lease.pid);
}

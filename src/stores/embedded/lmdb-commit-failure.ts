/**
 * A failed LMDB commit must not end the process. When a commit fails (a full disk: ENOSPC, or
 * EIO), lmdb rejects every promise of its batch with "Commit failed (see commitError for
 * details)", including promises lmdb makes for itself and nobody holds (found with the town's
 * data on a full tmpfs: test/faults/disk.test.ts). Node ends the process on an unhandled
 * rejection, so a full disk killed the server instead of refusing its writes. The writes the
 * stores make are awaited and fail properly (embedded/read-commit.ts); these orphans are only
 * noted here. Any other unhandled rejection still ends the process, as before.
 */
let installed = false;

const isCommitFailure = (reason: unknown): boolean =>
  reason instanceof Error && reason.message.startsWith('Commit failed (see commitError for details)') && 'commitError' in reason;

export function survivingCommitFailures(): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    if (!isCommitFailure(reason)) throw reason;
    const cause = (reason as { commitError?: Promise<unknown> }).commitError;
    // The errno's own promise is an orphan too.
    cause?.catch(() => {});
    process.emitWarning(`an LMDB commit failed with nobody waiting for it (the writes that were awaited failed too): ${(reason as Error).message}`);
  });
}

/** LMDB's MDB_BAD_TXN: the transaction was aborted whole (see `committed`). */
const MDB_BAD_TXN = -30782;
/** How many times a transaction lmdb aborted with MDB_BAD_TXN is queued again before the write fails. */
const badTxnRetries = 3;

/**
 * Queues one transaction's writes (`queue` puts them all in one event turn) and waits until it
 * is durable. lmdb 3.5 can abort a commit with MDB_BAD_TXN ("reserved freelist had a data entry
 * with zero-size") when another transaction pins an old snapshot while its free-page list is in
 * some states: found starting a 200,000-entry town, whose projector thread's first lease write
 * failed that way while the main thread replayed (docs/decisions/lmdb-defects.md).
 * LMDB aborted the whole transaction, so nothing of it is
 * on disk, and the next commit succeeds: the same writes are queued again, a few times at most.
 * Any other failure (a full disk) fails the write at once, with the errno's error.
 */
export async function committed<T>(queue: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await queue();
    } catch (error) {
      const real = await commitFailure(error);
      if (attempt >= badTxnRetries || (real as { code?: unknown } | undefined)?.code !== MDB_BAD_TXN) throw real;
    }
  }
}

/**
 * lmdb rejects the writes of a commit that failed (a full disk: ENOSPC) with "Commit failed" and
 * puts the errno's error on a promise of its own (`commitError`), rejected in the same callback.
 * Nobody else holds that promise: left alone it is an unhandled rejection, which ends the
 * process (found with the town's data on a full tmpfs, test/faults/disk.test.ts). It is taken
 * here, and the unit fails with the errno's error, so the caller can tell a full disk.
 */
async function commitFailure(error: unknown): Promise<unknown> {
  const cause = (error as { commitError?: Promise<unknown> } | undefined)?.commitError;
  if (!cause || typeof cause.then !== 'function') return error;
  const settled = cause.then(
    () => error,
    (real: unknown) => real,
  );
  // Should lmdb ever leave it pending, the write still fails (with lmdb's own error) at once.
  return Promise.race([settled, new Promise<unknown>((resolve) => setImmediate(() => resolve(error)))]);
}

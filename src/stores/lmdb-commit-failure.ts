/**
 * A failed LMDB commit must not end the process. When a commit fails (a full disk: ENOSPC, or
 * EIO), lmdb rejects every promise of its batch with "Commit failed (see commitError for
 * details)", including promises lmdb makes for itself and nobody holds (found with the town's
 * data on a full tmpfs: test/faults/disk.test.ts). Node ends the process on an unhandled
 * rejection, so a full disk killed the server instead of refusing its writes. The writes the
 * stores make are awaited and fail properly (embedded-read-commit.ts); these orphans are only
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

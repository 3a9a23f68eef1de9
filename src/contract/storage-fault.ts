/**
 * A failure of the town's own storage (the journal or the read store cannot write: a full disk,
 * an I/O error, a read-only or over-quota file system), told apart from a bug so that the front
 * answers it 503 `hostUnavailable` (spec 7.1; the host cannot take turns now) rather than 500
 * `internal`. Nothing is acknowledged on such a failure: the journal answers an append only once
 * it is on disk and cuts a failed group off again (embedded-journal.ts), so a resend of the same
 * intent is always safe. docs/decisions.md (faults).
 */

/** errno names of storage faults (Node's `code`), and their numbers as LMDB reports them. */
const faults = new Map<string | number, string>([
  ['ENOSPC', 'ENOSPC'],
  ['EIO', 'EIO'],
  ['EDQUOT', 'EDQUOT'],
  ['EROFS', 'EROFS'],
  ['EFBIG', 'EFBIG'],
  [28, 'ENOSPC'],
  [5, 'EIO'],
  [122, 'EDQUOT'],
  [30, 'EROFS'],
  [27, 'EFBIG'],
]);

/** The errno name when `error` (or an error it was caused by) is a storage fault, else undefined. */
export function storageFault(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    const known = typeof code === 'string' || typeof code === 'number' ? faults.get(code) : undefined;
    if (known) return known;
    // lmdb's asynchronous commit: the errno is on a promise (`commitError`), the message is fixed.
    if (e.message.startsWith('Commit failed (see commitError')) return 'commit failed';
  }
  return undefined;
}

/**
 * A failure of the town's own storage (the journal or the read store cannot write: a full disk,
 * an I/O error, a read-only or over-quota file system), told apart from a bug so that the front
 * answers it 503 `hostUnavailable` (spec 7.1; the host cannot take turns now) rather than 500
 * `internal`. Nothing is acknowledged on such a failure: the journal answers an append only once
 * it is on disk and cuts a failed group off again (embedded/journal.ts), so a resend of the same
 * intent is always safe. docs/decisions/request-order-and-failure-classes.md.
 */

/**
 * Storage faults: the errno name (Node's `code`), its number and its text. LMDB reports the
 * number as `code` with the text in the message; a number alone is not enough (gRPC's status 5,
 * NOT_FOUND, is not EIO), so a numeric code counts only beside its text.
 */
const faults: readonly [name: string, errno: number, text: RegExp][] = [
  ['ENOSPC', 28, /no space left on device/i],
  ['EIO', 5, /input\/output error/i],
  ['EDQUOT', 122, /quota exceeded/i],
  ['EROFS', 30, /read-only file system/i],
  ['EFBIG', 27, /file too large/i],
];

function faultOf(e: Error): string | undefined {
  const code = (e as { code?: unknown }).code;
  for (const [name, errno, text] of faults) {
    if (code === name || (code === errno && text.test(e.message))) return name;
  }
  // lmdb's asynchronous commit: the errno is on a promise (`commitError`), the message is fixed.
  if (e.message.startsWith('Commit failed (see commitError')) return 'commit failed';
  return undefined;
}

/** The errno name when `error` (or an error it was caused by) is a storage fault, else undefined. */
export function storageFault(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const fault = faultOf(e);
    if (fault) return fault;
  }
  return undefined;
}

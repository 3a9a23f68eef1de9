/**
 * `committed`: a transaction lmdb aborted with MDB_BAD_TXN is queued again; any other commit
 * failure fails the write at once with the errno's error. The real failure needs a free-page
 * list in a state lmdb 3.5 mishandles (a 533 MB read store from a 200,000-entry town); here the
 * failure is lmdb's shape: "Commit failed" with the errno's error on `commitError`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committed } from '../../src/stores/embedded/lmdb-commit-failure.js';

/** A rejected write as lmdb makes it: its own error, the errno's on a promise beside it. */
function lmdbFailure(code: number, message: string): Promise<never> {
  const real = Object.assign(new Error(message), { code });
  const error = Object.assign(new Error('Commit failed (see commitError for details)'), { commitError: Promise.reject(real) });
  return Promise.reject(error);
}

test('a transaction aborted with MDB_BAD_TXN is queued again and its result returned', async () => {
  let queued = 0;
  const result = await committed(() =>
    ++queued < 3 ? lmdbFailure(-30782, 'MDB_BAD_TXN: reserved freelist had a data entry with zero-size') : Promise.resolve('done'),
  );
  assert.is(result, 'done');
  assert.is(queued, 3);
});

test('MDB_BAD_TXN every time: the write fails with it after a few tries, not forever', async () => {
  let queued = 0;
  const error = await committed(() => {
    queued++;
    return lmdbFailure(-30782, 'MDB_BAD_TXN');
  }).catch((e: unknown) => e as Error & { code: number });
  assert.is(error.code, -30782);
  assert.is(queued, 4);
});

test('a full disk is not queued again: the write fails at once with the errno', async () => {
  let queued = 0;
  const error = await committed(() => {
    queued++;
    return lmdbFailure(-28, 'ENOSPC: no space left on device');
  }).catch((e: unknown) => e as Error & { code: number });
  assert.is(error.code, -28);
  assert.is(queued, 1);
});

test('a refusal thrown before anything is queued passes through untouched', async () => {
  const refusal = new Error('duplicate key');
  const error = await committed(() => Promise.reject(refusal)).catch((e: unknown) => e);
  assert.is(error, refusal);
});

test.run();

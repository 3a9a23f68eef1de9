/**
 * The front's answer to a storage fault, whatever raised it: 503 `hostUnavailable` in the
 * envelope with Retry-After (HostUnavailable on `/xrpc`, the error page for a browser), logged
 * as a storage fault with its code; any other failure stays 500 `internal`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { storageFault } from '../../src/contract/storage-fault.js';
import type { SomeHandlers } from '../../src/http/route-types.js';
import { raw, req, startTown, type Town } from '../http/helpers.js';

const errno = (code: string | number, message = 'write failed') => Object.assign(new Error(message), { code });
let next: unknown;
const handlers: SomeHandlers = {
  turn: async () => {
    throw next;
  },
  xrpc: async () => {
    throw next;
  },
  playPost: async () => {
    throw next;
  },
};

let town: Town;
test.before(async () => {
  town = await startTown({ handlers });
});
test.after(async () => {
  await town.close();
});

const turn = () =>
  raw(
    town.port,
    req('POST', '/AGENTS.md/world/lamp/light', {
      headers: { Authorization: 'Bearer ada-credential', 'Content-Type': 'application/json' },
      body: '{"intent":"i"}',
    }),
  );

test('storage faults are told apart: Node codes, LMDB errno numbers, lmdb commit failures, causes', () => {
  assert.is(storageFault(errno('ENOSPC')), 'ENOSPC');
  assert.is(storageFault(errno('EIO')), 'EIO');
  assert.is(storageFault(errno('EDQUOT')), 'EDQUOT');
  assert.is(storageFault(errno('EROFS')), 'EROFS');
  assert.is(storageFault(errno(28, 'No space left on device: Attempting to write page at position 331776')), 'ENOSPC');
  assert.is(storageFault(errno(5, 'Input/output error')), 'EIO');
  assert.is(storageFault(errno(5, 'NOT_FOUND: stream not found')), undefined, 'a number alone (gRPC status 5) is no storage fault');
  assert.is(storageFault(Object.assign(new Error('Commit failed (see commitError for details)'), { commitError: Promise.resolve() })), 'commit failed');
  assert.is(storageFault(new Error('journal unusable', { cause: errno('ENOSPC') })), 'ENOSPC');
  assert.is(storageFault(errno('ECONNRESET')), undefined);
  assert.is(storageFault(new Error('a bug')), undefined);
  assert.is(storageFault('ENOSPC'), undefined);
  assert.is(storageFault(undefined), undefined);
});

test('a turn that meets a full disk is 503 hostUnavailable with Retry-After, logged with its code', async () => {
  town.logged.length = 0;
  for (const fault of [errno('ENOSPC', 'ENOSPC: no space left on device, write'), errno(5, 'Input/output error')]) {
    next = fault;
    const r = await turn();
    assert.is(r.status, 503);
    assert.is(r.json.status, 'error');
    assert.is(r.json.class, 'hostUnavailable');
    assert.match(r.json.message, 'send the same request again');
    assert.is(r.headers['retry-after'], '5');
    assert.ok(r.json._links.self);
  }
  assert.equal(
    town.logged.map((l) => [l.message, l.fields.code]),
    [
      ['storage fault', 'ENOSPC'],
      ['storage fault', 'EIO'],
    ],
  );
});

test('any other failure stays 500 internal', async () => {
  next = new Error('a bug');
  const r = await turn();
  assert.is(r.status, 500);
  assert.is(r.json.class, 'internal');
});

test('on /xrpc it is HostUnavailable; a browser on a page gets the error page', async () => {
  next = errno('ENOSPC');
  const x = await raw(town.port, req('GET', '/xrpc/com.atproto.repo.describeRepo?repo=did:web:town.test'));
  assert.is(x.status, 503);
  assert.is(x.json.error, 'HostUnavailable');
  const page = await raw(
    town.port,
    req('POST', '/play/lamp', {
      headers: { Cookie: 'town_session=ada-session', Accept: 'text/html', 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://town.test' },
      body: 'do=light',
    }),
  );
  assert.is(page.status, 503);
  assert.match(page.headers['content-type'], 'text/html');
  assert.match(page.body, 'not answering');
});

test.run();

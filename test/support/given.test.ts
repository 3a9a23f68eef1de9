/** The given/when/then helper itself: it passes what holds and fails, naming why, what does not. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { credentialDecider } from '../../src/commands/credential.js';
import type { CredentialEvent } from '../../src/events/identity.js';
import { assertShape, refused, specification } from './given.js';

const credential = specification(credentialDecider);
const issued: CredentialEvent = { type: 'CredentialIssued', data: { name: 'ada', claimId: 'c1', at: 1 } };
const revoke = { type: 'revoke' as const, why: 'guest' as const, now: 2 };

/** uvu's `throws` passes its own assertion errors through; the helper's failures are those. */
function fails(run: () => unknown, message?: RegExp): void {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error, 'expected a failure');
  if (message) assert.match((error as Error).message, message);
}

test('then: exactly the events, or the refusal', () => {
  credential([issued])
    .when(revoke)
    .then([{ type: 'CredentialRevoked', data: { why: 'guest', at: 2 } }]);
  credential([]).when(revoke).then(refused('credential_unknown'));
  assert.is(credential([issued]).state.kind, 'active');
});

test('then fails on other events, a refusal where events were expected, and the other way round', () => {
  fails(() =>
    credential([issued])
      .when(revoke)
      .then([{ type: 'CredentialRevoked', data: { why: 'guest', at: 3 } }]),
  );
  fails(() => credential([issued]).when(revoke).then([]));
  fails(() => credential([]).when(revoke).then([]), /expected events/);
  fails(() => credential([issued]).when(revoke).then(refused('credential_unknown')), /expected a refusal/);
  fails(() => credential([]).when(revoke).then(refused('credential_exists')));
});

test('shapes: listed keys at any depth, lists in full', () => {
  assertShape({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } });
  assertShape([{ a: 1 }, { a: 2 }], [{}, { a: 2 }]);
  assertShape({ a: 1 }, { b: undefined });
  fails(() => assertShape({ a: 1, b: { c: 2 } }, { b: { c: 3 } }), /\$\.b\.c/);
  fails(() => assertShape([{ a: 1 }], [{ a: 1 }, { a: 2 }]), /2 items/);
  fails(() => assertShape({ a: 1 }, { a: undefined }));
  credential([issued])
    .when(revoke)
    .thenMatches([{ data: { why: 'guest' } }]);
  fails(() =>
    credential([issued])
      .when(revoke)
      .thenMatches([{ data: { why: 'unissued' } }]),
  );
});

test.run();

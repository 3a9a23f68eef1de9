/** Town mode and founding deciders; names, handles, dids; the secrets' shapes. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { foundingDecider, isOpen, townModeDecider } from '../../src/commands/town-mode.js';
import type { TownConfigEvent } from '../../src/events/identity.js';
import { didOf, handleOf, identityOf, isGuestName, principalOf } from '../../src/contract/names.js';
import { base32, invitationPrefix, newCredential, newInvitationCode, newSessionId, secretHash, sha256Hex } from '../../src/identity/secrets.js';
import { specification } from '../support/given.js';

const townMode = specification(townModeDecider);
const founding = specification(foundingDecider);

const t0 = Date.UTC(2026, 10, 23, 12);

test('town mode: invited until opened; setting the mode it has records nothing', () => {
  assert.is(isOpen(townMode([]).state), false);
  townMode([]).when({ type: 'setMode', open: false, now: t0 }).then([]);
  const open: TownConfigEvent = { type: 'TownModeSet', data: { open: true, at: t0 } };
  townMode([]).when({ type: 'setMode', open: true, now: t0 }).then([open]);
  assert.is(isOpen(townMode([open]).state), true);
  townMode([open]).when({ type: 'setMode', open: true, now: t0 }).then([]);
  townMode([open])
    .when({ type: 'setMode', open: false, now: t0 })
    .then([{ type: 'TownModeSet', data: { open: false, at: t0 } }]);
});

test('founding: once', () => {
  const founded = { type: 'TownFounded' as const, data: { invitationHash: 'h', at: t0 } };
  founding([]).when({ type: 'found', invitationHash: 'h', now: t0 }).then([founded]);
  founding([founded]).when({ type: 'found', invitationHash: 'g', now: t0 }).then([]);
});

test('principal, handle and did of a guest', () => {
  assert.is(principalOf('localhost:8080', 'ada'), 'guest:localhost:8080:ada');
  assert.is(handleOf('localhost:8080', 'ada'), 'ada.localhost');
  assert.is(handleOf('town.example', 'ada'), 'ada.town.example');
  assert.is(handleOf('[::1]:8080', 'ada'), 'ada.[::1]');
  assert.is(didOf('localhost:8080', 'ada'), 'did:web:localhost%3A8080:guest:ada');
  assert.is(didOf('town.example', 'ada'), 'did:web:town.example:guest:ada');
  assert.equal(identityOf('town.example', 'ada'), {
    name: 'ada',
    principal: 'guest:town.example:ada',
    handle: 'ada.town.example',
    did: 'did:web:town.example:guest:ada',
  });
});

test('the guest name rule of 2.1', () => {
  for (const good of ['a', 'ab', 'a-1', 'a--b', 'abcdefghijklmnopqrstuvwxyz012345']) assert.ok(isGuestName(good), good);
  for (const bad of ['', '-', 'a-', '0a', 'Ab', 'a b', 'a_b', 'abcdefghijklmnopqrstuvwxyz0123456', 'ab\n', undefined, 1]) {
    assert.not.ok(isGuestName(bad), JSON.stringify(bad));
  }
});

test('base32 is RFC 4648 (lowercase, unpadded)', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['f', 'my'],
    ['fo', 'mzxq'],
    ['foo', 'mzxw6'],
    ['foob', 'mzxw6yq'],
    ['fooba', 'mzxw6ytb'],
    ['foobar', 'mzxw6ytboi'],
  ];
  for (const [plain, encoded] of cases) assert.is(base32(Buffer.from(plain)), encoded);
});

test('secrets: codes carry 160 bits, credentials and sessions 256, and only hashes are kept', () => {
  const code = newInvitationCode();
  assert.match(code, /^svc_invite_[a-z2-7]{32}$/);
  assert.is.not(newInvitationCode(), code);
  assert.match(newCredential(), /^svc_key_[A-Za-z0-9_-]{43}$/);
  assert.match(newSessionId(), /^[A-Za-z0-9_-]{43}$/);
  assert.is(secretHash(code, invitationPrefix), sha256Hex(code));
  assert.is(secretHash('svc_key_x', invitationPrefix), undefined);
  assert.is(secretHash(`${invitationPrefix}${'x'.repeat(300)}`, invitationPrefix), undefined);
  assert.is(secretHash(12), undefined);
});

test.run();

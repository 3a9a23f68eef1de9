/**
 * The handle challenge of the earlier catalogue shape (spec 9), given/when/then: issued once,
 * verified once by a post that says exactly its text from its handle within 15 minutes; a free
 * name is claimed, a held one is its guest's only if held before the post; and who may post it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { GuestState } from '../../src/commands/guest.js';
import type { HandleChallengeEvent } from '../../src/events/identity.js';
import {
  challengeIdOf,
  challengePoster,
  challengeText,
  decideVerify,
  evolveHandleChallenge,
  handleChallengeDecider,
  type HandleChallengeState,
  initialHandleChallenge,
  nameOfHandle,
} from '../../src/identity/handle-challenge.js';
import { refused, specification } from '../support/given.js';

const host = 'town.test';
const id = 'abcdefabcdefabcdefabcdefab';
const now = 1_000_000;
const text = challengeText(host, 'cat', id);
const challenge = specification(handleChallengeDecider);
const issued: HandleChallengeEvent = { type: 'HandleChallenged', data: { name: 'cat', credentialHash: 'h', text, expires: now + 900_000, at: now } };
const stateOf = (events: HandleChallengeEvent[]): HandleChallengeState => events.reduce(evolveHandleChallenge, initialHandleChallenge);
const free: GuestState = { kind: 'free' };
const post = { uri: 'at://did:web:town.test/town.feed.post/x', text, author: 'guest:town.test:cat', at: now + 1000 };
const verify = (
  over: Partial<Parameters<typeof decideVerify>[1]> = {},
  state: Parameters<typeof decideVerify>[0] = { challenge: stateOf([issued]), guest: free },
) => decideVerify(state, { host, id, name: 'cat', post, claimId: 'claim-1', now: now + 2000, ...over });

test('issue: once per id, with the text to post and a 15-minute life', () => {
  challenge([]).when({ type: 'issue', host, id, name: 'cat', credentialHash: 'h', now }).then([issued]);
  challenge([issued]).when({ type: 'issue', host, id, name: 'cat', credentialHash: 'h', now }).then(refused('challenge_spent'));
  assert.is(challengeIdOf(text), id);
  assert.is(challengeIdOf(`${text} `), undefined);
  assert.is(challengeIdOf('hello'), undefined);
});

test('handles: a guest name or <name>.<host>', () => {
  assert.is(nameOfHandle(host, 'cat'), 'cat');
  assert.is(nameOfHandle(host, 'cat.town.test'), 'cat');
  assert.is(nameOfHandle('town.test:8080', 'cat.town.test'), 'cat');
  for (const bad of ['Cat', 'cat.other.test', '', 5, 'a-']) assert.is(nameOfHandle(host, bad), undefined, String(bad));
});

test('verify: a free name is claimed, the credential issued, the challenge spent', () => {
  const d = verify();
  assert.ok(d.ok);
  if (!d.ok) return;
  assert.equal(d.guest, [{ type: 'GuestClaimed', data: { name: 'cat', claimId: 'claim-1', source: { challenge: id }, at: now + 2000 } }]);
  assert.equal(d.credential, [{ type: 'CredentialIssued', data: { name: 'cat', claimId: 'claim-1', at: now + 2000 } }]);
  assert.equal(d.challenge, [{ type: 'HandleVerified', data: { name: 'cat', uri: post.uri, claimId: 'claim-1', at: now + 2000 } }]);
  assert.is(d.credentialHash, 'h');
  const spent = stateOf([issued, ...d.challenge]);
  assert.is(spent.kind, 'verified');
  assert.equal(verify({}, { challenge: spent, guest: free }), { ok: false, reason: 'challenge_spent' });
});

test('verify refuses: unknown, another handle, late, another text, another author', () => {
  assert.equal(verify({}, { challenge: initialHandleChallenge, guest: free }), { ok: false, reason: 'challenge_unknown' });
  assert.equal(verify({ name: 'dan' }), { ok: false, reason: 'handle_mismatch' });
  assert.equal(verify({ now: now + 900_000 }), { ok: false, reason: 'challenge_expired' });
  assert.equal(verify({ post: { ...post, text: `${text}!` } }), { ok: false, reason: 'post_text' });
  assert.equal(verify({ post: { ...post, author: 'guest:town.test:dan' } }), { ok: false, reason: 'post_author' });
  assert.equal(verify({ post: { ...post, at: now - 1 } }), { ok: false, reason: 'challenge_expired' });
});

test('verify on a held name: its guest\u2019s when held before the post, else taken', () => {
  const claim = (at: number): GuestState => ({ kind: 'held', claim: { name: 'cat', claimId: 'old', source: { invitation: 'x' }, at } });
  const mine = verify({}, { challenge: stateOf([issued]), guest: claim(now) });
  assert.ok(mine.ok);
  if (mine.ok) {
    assert.equal(mine.guest, [], 'no new claim');
    assert.equal(mine.credential, [{ type: 'CredentialIssued', data: { name: 'cat', claimId: 'old', at: now + 2000 } }]);
  }
  assert.equal(verify({}, { challenge: stateOf([issued]), guest: claim(post.at) }), { ok: false, reason: 'taken' });
  assert.equal(verify({}, { challenge: stateOf([issued]), guest: claim(post.at + 1) }), { ok: false, reason: 'taken' });
});

test('who may post: the challenge credential while the name is free, the name\u2019s own credential, no one else', () => {
  const c = stateOf([issued]);
  const held: GuestState = { kind: 'held', claim: { name: 'cat', claimId: 'old', source: { invitation: 'x' }, at: now } };
  assert.is(challengePoster(c, free, { credentialHash: 'h' }, now), 'cat');
  assert.is(challengePoster(c, held, { credentialHash: 'h' }, now), undefined);
  assert.is(challengePoster(c, held, { credentialHash: 'other', activeName: 'cat' }, now), 'cat');
  assert.is(challengePoster(c, free, { credentialHash: 'other', activeName: 'dan' }, now), undefined);
  assert.is(challengePoster(c, free, { credentialHash: 'h' }, now + 900_000), undefined, 'expired');
  assert.is(challengePoster(initialHandleChallenge, free, { credentialHash: 'h' }, now), undefined);
});

test.run();

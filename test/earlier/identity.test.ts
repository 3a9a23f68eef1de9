/**
 * Spec 9, "Identity": POST challenge {handle} gives a challenge text and a credential; the text,
 * posted exactly as the whole of a public post of the town's feed from that handle, and
 * POST verify {handle, uri} within 15 minutes make that credential speak for the guest. Every
 * failure is `identity` (400) with its reason; challenge and verify are limited per address.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLimiters } from '../../src/contract/rate-limit.js';
import type { TestTown } from '../world/support.js';
import { earlierGuest, startEarlierTown } from './support.js';

let t: TestTown;

test.before(async () => {
  t = await startEarlierTown();
});
test.after(async () => {
  await t.close();
});

const challenge = (handle: unknown) => t.request('POST', '/AGENTS.md/challenge', { json: { handle } });
const postText = (text: string, token?: string) => t.request('POST', '/AGENTS.md/challenge/post', { json: { text }, ...(token ? { token } : {}) });
const verify = (handle: unknown, uri: unknown) => t.request('POST', '/AGENTS.md/verify', { json: { handle, uri } });

function refusedIdentity(r: { status: number; json: any; text: string }, reason: string): void {
  assert.is(r.status, 400, r.text);
  assert.is(r.json.class, 'identity', r.text);
  assert.is(r.json.status, 'error');
  assert.is(r.json.reason, reason, r.text);
  assert.is(r.json.message, reason);
}

test('challenge, post, verify: the credential then speaks for the guest, who stands in the town', async () => {
  const c = await challenge('cat');
  assert.is(c.status, 200, c.text);
  assert.is(c.json.handle, 'cat.town.test');
  assert.type(c.json.challenge, 'string');
  assert.type(c.json.credential, 'string');
  assert.is(c.json.expires, new Date(t.clock() + 15 * 60_000).toISOString());
  // Until verified the credential speaks for no one.
  assert.is((await t.get('/AGENTS.md/me', c.json.credential)).status, 401);
  const posted = await postText(c.json.challenge, c.json.credential);
  assert.is(posted.status, 200, posted.text);
  assert.match(posted.json.uri, /^at:\/\//);
  assert.is((await t.get('/AGENTS.md/me', c.json.credential)).status, 401, 'posting does not verify');
  const v = await verify('cat.town.test', posted.json.uri);
  assert.is(v.status, 200, v.text);
  assert.is(v.json.principal, 'guest:town.test:cat');
  assert.is(v.json.credential, undefined, 'the credential was shown once, by the challenge');
  const me = await t.get('/AGENTS.md/me', c.json.credential);
  assert.is(me.status, 200, me.text);
  assert.is(me.json.principal, 'guest:town.test:cat');
  // The guest acts as any other: a turn in the town.
  const turn = await t.post('/AGENTS.md/world/lamp/light', c.json.credential, { intent: 'cat-1' });
  assert.is(turn.status, 200, turn.text);
  assert.is(turn.json.status, 'done', turn.text);
  // The arrivals reactor made the guest's avatar, as for any admission.
  let avatar = false;
  for (let i = 0; i < 40 && !avatar; i++) {
    avatar = t.town.world.current.avatars.has('guest:town.test:cat');
    if (!avatar) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(avatar, 'an avatar in the town');
  // A verified challenge is spent.
  refusedIdentity(await verify('cat', posted.json.uri), 'challenge_spent');
  // Revoke works as ever.
  assert.is((await t.post('/AGENTS.md/revoke', c.json.credential, {})).status, 200);
  assert.is((await t.get('/AGENTS.md/me', c.json.credential)).status, 401);
});

test('a held handle: only its own credential may post the text; a stranger\u2019s challenge credential may not', async () => {
  const ann = await earlierGuest(t, 'ann');
  t.clock.advance(1);
  const stranger = await challenge('ann');
  assert.is(stranger.status, 200);
  const refused = await postText(stranger.json.challenge, stranger.json.credential);
  assert.is(refused.status, 401, refused.text);
  assert.is(refused.json.class, 'unauthenticated');
  // Ann herself proves the handle and gets a second credential.
  const posted = await postText(stranger.json.challenge, ann.token);
  assert.is(posted.status, 200, posted.text);
  const v = await verify('ann', posted.json.uri);
  assert.is(v.status, 200, v.text);
  assert.is((await t.get('/AGENTS.md/me', stranger.json.credential)).json.principal, ann.principal);
});

test('failures of challenge and verify, each `identity` with its reason', async () => {
  for (const bad of ['Bad Name', '', 'a'.repeat(33), 'x-', 'cat.elsewhere.test']) refusedIdentity(await challenge(bad), 'invalid_handle');
  const notText = await challenge(5);
  assert.is(notText.json.class, 'hostRequest');

  const c = await challenge('dan');
  const posted = await postText(c.json.challenge, c.json.credential);
  refusedIdentity(await verify('dan', 'at://nowhere/x/y'), 'post_unknown');
  assert.is((await verify('dan', 5)).json.class, 'hostRequest', 'a uri is text');
  refusedIdentity(await verify('Bad Name', posted.json.uri), 'invalid_handle');
  refusedIdentity(await verify('eve', posted.json.uri), 'handle_mismatch');

  // A post that is not exactly a challenge: only the text of one may be posted at all.
  const other = await postText(`${c.json.challenge} and more`, c.json.credential);
  assert.is(other.status, 401, other.text);
  // No credential, or a made-up one.
  assert.is((await postText(c.json.challenge)).status, 401);
  assert.is((await postText(c.json.challenge, 'svc_cred_nothing')).status, 401);

  // Late: 15 minutes after the challenge.
  const late = await challenge('fay');
  const latePost = await postText(late.json.challenge, late.json.credential);
  t.clock.advance(15 * 60_000);
  refusedIdentity(await verify('fay', latePost.json.uri), 'challenge_expired');
  const tooLateToPost = await postText(late.json.challenge, late.json.credential);
  assert.is(tooLateToPost.status, 401);
  assert.is((await t.get('/AGENTS.md/me', late.json.credential)).status, 401);
  // Dan's challenge lapsed too.
  refusedIdentity(await verify('dan', posted.json.uri), 'challenge_expired');
});

test('a name taken after the challenge was posted is not given to the challenger', async () => {
  const c = await challenge('gus');
  const posted = await postText(c.json.challenge, c.json.credential);
  await earlierGuest(t, 'gus');
  refusedIdentity(await verify('gus', posted.json.uri), 'taken');
});

test('challenge and verify: bodies at most 65536 bytes, 16 calls a minute per address', async () => {
  const big = await t.request('POST', '/AGENTS.md/challenge', { json: { handle: 'x'.repeat(70_000) } });
  assert.is(big.status, 413);
  const limited = await startEarlierTown({
    limiters: createLimiters(t.clock, {
      credential: [10_000, 1],
      identity: [16, 60],
      page: [10_000, 1],
      xrpc: [10_000, 1],
      session: [10_000, 1],
      signedIn: [10_000, 1],
    }),
  });
  try {
    const codes: number[] = [];
    for (let i = 0; i < 17; i++) {
      const path = i % 2 ? '/AGENTS.md/verify' : '/AGENTS.md/challenge';
      codes.push((await limited.request('POST', path, { json: i % 2 ? { handle: 'a', uri: 'at://x' } : { handle: `h${i}` } })).status);
    }
    assert.ok(
      codes.slice(0, 16).every((c) => c !== 429),
      codes.join(),
    );
    assert.is(codes[16], 429);
  } finally {
    await limited.close();
  }
});

test.run();

/**
 * Service auth over /xrpc, driven with AT Protocol's own client (`@atproto/api`, which checks
 * each call and reply against the town's lexicons): getServiceAuth issues a method-bound token
 * for a guest, AT Protocol's verifier accepts it against the guest's DID document, and the
 * town's service calls (getEntry, act, try) run as that guest, with every refusal of spec 7.3.
 */
import { AtpAgent } from '@atproto/api';
import { Secp256k1Keypair } from '@atproto/crypto';
import { createServiceJwt, verifyJwt } from '@atproto/xrpc-server';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { townLexicons } from '../../src/repository/lexicons.js';
import { loadRepositoryKeys } from '../../src/repository/keys.js';
import { startTestTown, type Guest, type TestTown } from '../world/support.js';
import { failure } from './hosted-support.js';

interface Ctx {
  t: TestTown;
  agent: AtpAgent;
  ann: Guest;
  annDid: string;
  did: string;
}

const test = suite<Ctx>('service auth over /xrpc');

const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

/** A service JWT for ann from the town, for `lxm` (and `aud`, the town by default). */
async function tokenFor(ctx: Ctx, lxm: string, more: { aud?: string; exp?: number } = {}): Promise<string> {
  const r = await ctx.agent.com.atproto.server.getServiceAuth({ aud: more.aud ?? ctx.did, lxm, ...(more.exp ? { exp: more.exp } : {}) }, auth(ctx.ann.token));
  return r.data.token;
}

const act = (ctx: Ctx, token: string, body: object) => ctx.agent.call('town.world.act', {}, body, { ...auth(token), encoding: 'application/json' });

test.before(async (ctx) => {
  ctx.t = await startTestTown({ settings: { listenHost: '127.0.0.1' } });
  ctx.agent = new AtpAgent({ service: ctx.t.base });
  for (const doc of townLexicons) ctx.agent.lex.add(doc as never);
  ctx.ann = await ctx.t.guest('ann');
  ctx.did = (await ctx.t.request('GET', '/.well-known/did.json')).json.id;
  ctx.annDid = 'did:web:town.test:guest:ann';
});
test.after(async (ctx) => {
  await ctx.t.close();
});

test("getServiceAuth: a token AT Protocol's verifier accepts with the key of the guest's DID document", async (ctx) => {
  const token = await tokenFor(ctx, 'town.world.act');
  const doc = (await ctx.t.request('GET', '/guest/ann/did.json')).json;
  const key = `did:key:${doc.verificationMethod.find((m: { id: string }) => m.id.endsWith('#atproto')).publicKeyMultibase}`;
  const payload = await verifyJwt(token, ctx.did, 'town.world.act', async (iss) => {
    assert.is(iss, ctx.annDid);
    return key;
  });
  assert.is(payload.iss, ctx.annDid);
  assert.is(payload.aud, ctx.did);
  assert.is(payload.lxm, 'town.world.act');
  assert.type(payload.jti, 'string');
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  assert.ok(claims.exp - claims.iat <= 60, 'a minute by default');
  // The town's credential is what opens it; an hour at most.
  assert.is((await failure(ctx.agent.com.atproto.server.getServiceAuth({ aud: ctx.did, lxm: 'town.world.act' }))).error, 'AuthRequired');
  assert.is((await failure(ctx.agent.com.atproto.server.getServiceAuth({ aud: ctx.did }, auth('nonsense')))).error, 'InvalidToken');
  const far = Math.floor(Date.now() / 1000) + 7200;
  assert.is((await failure(ctx.agent.com.atproto.server.getServiceAuth({ aud: ctx.did, exp: far }, auth(ctx.ann.token)))).error, 'InvalidRequest');
});

test('act: the receipt of /AGENTS.md, and the same intent through both is one turn', async (ctx) => {
  const viaXrpc = (await act(ctx, await tokenFor(ctx, 'town.world.act'), { object: 'lamp', method: 'fill', intent: 'svc-1', fields: { measures: 2 } })).data;
  const viaAgents = await ctx.t.post('/AGENTS.md/world/lamp/fill', ctx.ann.token, { intent: 'svc-2', fields: { measures: 1 } });
  assert.is(viaAgents.status, 200, viaAgents.text);
  assert.equal(Object.keys(viaXrpc).sort(), Object.keys(viaAgents.json).sort(), 'same reply shape');
  assert.equal(Object.keys(viaXrpc.receipt).sort(), Object.keys(viaAgents.json.receipt).sort(), 'same receipt shape');
  assert.is(viaXrpc.status, 'done');
  // The same intent again, through /AGENTS.md: the first turn's receipt, not a second turn.
  const again = await ctx.t.post('/AGENTS.md/world/lamp/fill', ctx.ann.token, { intent: 'svc-1', fields: { measures: 2 } });
  assert.is(again.status, 200, again.text);
  assert.is(again.json.receipt.height, viaXrpc.receipt.height, 'one turn');
  // And the same intent through act once more: still that turn.
  const third = (await act(ctx, await tokenFor(ctx, 'town.world.act'), { object: 'lamp', method: 'fill', intent: 'svc-2', fields: { measures: 1 } })).data;
  assert.is(third.receipt.height, viaAgents.json.receipt.height, 'one turn');
});

test('try: decided, nothing journaled', async (ctx) => {
  const before = await ctx.t.town.events.headPosition();
  const r = (
    await ctx.agent.call(
      'town.world.try',
      {},
      { object: 'lamp', method: 'fill', intent: 'svc-try', fields: { measures: 1 } },
      { ...auth(await tokenFor(ctx, 'town.world.try')), encoding: 'application/json' },
    )
  ).data;
  assert.ok(r.status, JSON.stringify(r));
  assert.equal(await ctx.t.town.events.headPosition(), before, 'nothing journaled');
  const byIntent = await ctx.t.get('/AGENTS.md/receipt?intent=svc-try', ctx.ann.token);
  assert.is(byIntent.status, 404, byIntent.text);
});

test("plan: several acts in one turn, and the kernel's plan refusals", async (ctx) => {
  const plan = async (body: object) =>
    (await ctx.agent.call('town.world.plan', {}, body, { ...auth(await tokenFor(ctx, 'town.world.plan')), encoding: 'application/json' })).data;
  const done = await plan({ object: 'lamp', intent: 'svc-plan', acts: ['fill measures=1', 'fill measures=2'] });
  assert.is(done.status, 'done', JSON.stringify(done));
  const nested = await plan({ object: 'lamp', intent: 'svc-plan-nested', acts: ['plan { fill measures=1 }'] });
  assert.is(nested.status, 'refused', JSON.stringify(nested));
  assert.match(JSON.stringify(nested), 'notInPlan');
  const tooMany = await plan({ object: 'lamp', intent: 'svc-plan-many', acts: Array.from({ length: 40 }, () => 'fill measures=1') });
  assert.match(JSON.stringify(tooMany), 'tooManyActs');
  // A token for act does not open plan.
  const e = await failure(
    ctx.agent.call(
      'town.world.plan',
      {},
      { object: 'lamp', intent: 'svc-plan-2', acts: ['fill measures=1'] },
      { ...auth(await tokenFor(ctx, 'town.world.act')), encoding: 'application/json' },
    ),
  );
  assert.is(e.error, 'InvalidToken');
});

test('getEntry: a receipt by height and by content id, as the account may read it', async (ctx) => {
  const done = (await act(ctx, await tokenFor(ctx, 'town.world.act'), { object: 'lamp', method: 'fill', intent: 'svc-entry', fields: { measures: 1 } })).data;
  const height = done.receipt.height as number;
  const byHeight = (await ctx.agent.call('town.world.getEntry', { height }, undefined, auth(await tokenFor(ctx, 'town.world.getEntry')))).data;
  assert.is(byHeight.height, height);
  assert.is(byHeight.own, true, 'as its own account reads it');
  const cid = (await ctx.agent.call('town.world.getEntry', { height, full: true }, undefined, auth(await tokenFor(ctx, 'town.world.getEntry')))).data.cid;
  assert.type(cid, 'string');
  const byCid = (await ctx.agent.call('town.world.getEntry', { cid }, undefined, auth(await tokenFor(ctx, 'town.world.getEntry')))).data;
  assert.is(byCid.height, height);
  const viaAgents = await ctx.t.get(`/AGENTS.md/receipt/${cid}`, ctx.ann.token);
  assert.equal(Object.keys(byCid).sort(), Object.keys(viaAgents.json).sort(), 'the receipt /AGENTS.md shows');
  const none = await failure(ctx.agent.call('town.world.getEntry', { height: 999_999 }, undefined, auth(await tokenFor(ctx, 'town.world.getEntry'))));
  assert.is(none.error, 'RecordNotFound');
});

test('every refusal: missing, malformed, expired, wrong aud, another lxm, replayed, another key', async (ctx) => {
  const body = { object: 'lamp', method: 'fill', intent: 'svc-refused', fields: { measures: 1 } };
  const refused = async (call: Promise<unknown>, error: string, what: string) => {
    const e = await failure(call);
    assert.is(e.error, error, `${what}: ${e.message}`);
    assert.is(e.status, 401, what);
  };
  await refused(ctx.agent.call('town.world.act', {}, body, { encoding: 'application/json' }), 'AuthRequired', 'no token');
  await refused(ctx.agent.call('town.world.getEntry', { height: 1 }), 'AuthRequired', 'no token on getEntry');
  await refused(act(ctx, 'not-a-jwt', body), 'InvalidToken', 'malformed');
  await refused(act(ctx, 'e30.e30.e30', body), 'InvalidToken', 'malformed parts');
  await refused(act(ctx, ctx.ann.token, body), 'InvalidToken', "the town's credential is not a service JWT");
  // Signed by the town's own key, a minute in the past.
  const keys = await loadRepositoryKeys(ctx.t.dir);
  const doc = (await ctx.t.request('GET', '/guest/ann/did.json')).json;
  assert.is(keys.commit.did(), `did:key:${doc.verificationMethod[0].publicKeyMultibase}`, 'the test signs with the town key');
  const now = Math.floor(Date.now() / 1000);
  const expired = await createServiceJwt({ iss: ctx.annDid, aud: ctx.did, iat: now - 120, exp: now - 60, lxm: 'town.world.act', keypair: keys.commit });
  await refused(act(ctx, expired, body), 'InvalidToken', 'expired');
  await refused(act(ctx, await tokenFor(ctx, 'town.world.act', { aud: 'did:web:elsewhere.test' }), body), 'InvalidToken', 'wrong aud');
  await refused(act(ctx, await tokenFor(ctx, 'town.world.try'), body), 'InvalidToken', 'another lxm');
  const other = await Secp256k1Keypair.create();
  const forged = await createServiceJwt({ iss: ctx.annDid, aud: ctx.did, lxm: 'town.world.act', keypair: other });
  await refused(act(ctx, forged, body), 'InvalidToken', 'another key');
  const stranger = await createServiceJwt({ iss: 'did:web:town.test:guest:zed', aud: ctx.did, lxm: 'town.world.act', keypair: keys.commit });
  await refused(act(ctx, stranger, body), 'InvalidToken', 'no such account');
  const once = await tokenFor(ctx, 'town.world.act');
  const first = (await act(ctx, once, body)).data;
  assert.ok(first.receipt.height > 0, `the token was taken once: ${JSON.stringify(first).slice(0, 300)}`);
  await refused(act(ctx, once, { ...body, intent: 'svc-replay' }), 'InvalidToken', 'replayed jti');
});

test('getServiceAuth names one delegable method: the town’s own four for the town, never an account-managing one', async (ctx) => {
  const ask = (params: { aud: string; lxm?: string }) => ctx.agent.com.atproto.server.getServiceAuth(params, auth(ctx.ann.token));
  const refused = async (params: { aud: string; lxm?: string }, message: string) => {
    const e = await failure(ask(params));
    assert.is(e.error, 'InvalidRequest', `${JSON.stringify(params)}: ${e.message}`);
    assert.is(e.status, 400);
    assert.match(e.message, message);
  };
  for (const lxm of ['town.world.getEntry', 'town.world.act', 'town.world.try', 'town.world.plan']) {
    assert.type((await ask({ aud: ctx.did, lxm })).data.token, 'string', lxm);
  }
  // Without a method, a token would open every method of its audience.
  await refused({ aud: ctx.did }, 'lxm is required');
  await refused({ aud: 'did:web:feed.example' }, 'lxm is required');
  // The town takes tokens for its four methods only: the hosted writes take the credential itself.
  await refused({ aud: ctx.did, lxm: 'com.atproto.repo.createRecord' }, 'the town takes service tokens for town.world.getEntry');
  await refused({ aud: `${ctx.did}#atproto_pds`, lxm: 'town.world.nothing' }, 'not town.world.nothing');
  // Account management is never delegated, to any audience (the reference PDS's protected and privileged methods).
  for (const lxm of [
    'com.atproto.identity.updateHandle',
    'com.atproto.server.deactivateAccount',
    'com.atproto.server.createAppPassword',
    'chat.bsky.convo.sendMessage',
    'com.atproto.server.getServiceAuth',
  ]) {
    await refused({ aud: 'did:web:elsewhere.example', lxm }, 'is never delegated');
  }
  // Another service's ordinary method is the guest's to delegate.
  const feed = await ask({ aud: 'did:web:feed.example', lxm: 'app.bsky.feed.getFeedSkeleton' });
  const claims = JSON.parse(Buffer.from(feed.data.token.split('.')[1]!, 'base64url').toString());
  assert.equal([claims.aud, claims.lxm, claims.iss], ['did:web:feed.example', 'app.bsky.feed.getFeedSkeleton', ctx.annDid]);
});

test('a full custody of unexpired token ids: RateLimitExceeded with Retry-After', async (ctx) => {
  await ctx.t.restart({ serviceTokenCustody: 1 });
  ctx.agent = new AtpAgent({ service: ctx.t.base });
  for (const doc of townLexicons) ctx.agent.lex.add(doc as never);
  await act(ctx, await tokenFor(ctx, 'town.world.act'), { object: 'lamp', method: 'fill', intent: 'svc-full-1', fields: { measures: 1 } });
  const token = await tokenFor(ctx, 'town.world.act');
  const r = await ctx.t.request('POST', '/xrpc/town.world.act', {
    token,
    json: { object: 'lamp', method: 'fill', intent: 'svc-full-2', fields: { measures: 1 } },
  });
  assert.is(r.status, 429, r.text);
  assert.is(r.json.error, 'RateLimitExceeded');
  assert.ok(Number(r.headers['retry-after']) >= 1, 'Retry-After');
});

test.run();

/**
 * The identity service against the embedded event store: admissions, races, revocation,
 * sessions, abandoned claims, and what survives a restart.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { abandonedClaimAfterMs, claimCommitWindowMs } from '../../src/commands/guest.js';
import { activeCredential } from '../../src/commands/credential.js';
import { decodeEvent, CorruptEvent, CredentialEvent, streams } from '../../src/events/identity.js';
import { TownError } from '../../src/contract/town-error.js';
import { StoreAuthenticator } from '../../src/identity/authenticator.js';
import { parseChallenge } from '../../src/commands/challenge.js';
import { credentialKind } from '../../src/identity/kinds.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { IdentityService, sessionLifetimeMs, type Admission } from '../../src/identity/service.js';
import { appendDecided } from '../../src/commands/streams.js';
import type { EventStore } from '../../src/stores/event-store.js';
import { secret, solve, tempStore, testClock, type TempStore } from './support.js';

const host = 'town.test:8080';
const bits = 8;
const day = 24 * 3600_000;

interface Ctx {
  temp: TempStore;
  clock: ReturnType<typeof testClock>;
  service: IdentityService;
  auth: StoreAuthenticator;
}

const test = suite<Ctx>('identity service');

function wire(ctx: Ctx, store: EventStore) {
  ctx.service = new IdentityService({ store, config: { host, secret }, clock: ctx.clock, arrivalBits: bits });
  ctx.auth = new StoreAuthenticator(store, { host }, ctx.clock);
}

test.before.each(async (ctx) => {
  ctx.temp = await tempStore();
  ctx.clock = testClock();
  wire(ctx, ctx.temp.store);
});
test.after.each(async (ctx) => {
  await ctx.temp.cleanup();
});

/** The reason of an identity refusal, or 'admitted'. */
async function reasonOf(promise: Promise<Admission>): Promise<string> {
  try {
    await promise;
    return 'admitted';
  } catch (error) {
    if (error instanceof TownError && error.cls === 'identity') return String(error.extra.fields?.reason);
    throw error;
  }
}

async function invite(ctx: Ctx, guest: string | null = null) {
  return (await issueInvitation(ctx.temp.store, ctx.clock, { guest, lifetimeMs: 7 * day })).code;
}

function proofFor(ctx: Ctx, name: string) {
  const { challenge } = ctx.service.issueChallenge();
  return { challenge, nonce: solve(challenge, name, bits) };
}

/** Credentials the store holds that still speak for someone, by guest name. */
async function activeCredentials(store: EventStore): Promise<string[]> {
  const { decider } = credentialKind;
  const states = new Map<string, ReturnType<typeof decider.evolve>>();
  for await (const recorded of store.readAll()) {
    if (!recorded.stream.startsWith('credential-')) continue;
    states.set(recorded.stream, decider.evolve(states.get(recorded.stream) ?? decider.initialState(), decodeEvent(CredentialEvent, recorded)));
  }
  return [...states.values()].flatMap((state) => activeCredential(state)?.name ?? []);
}

test('accept: a credential that authenticates as the guest, shown once, stored only as a hash', async (ctx) => {
  const code = await invite(ctx);
  const admitted = await ctx.service.accept(code, 'ada');
  assert.equal(
    { principal: admitted.principal, handle: admitted.handle, did: admitted.did, named: admitted.named },
    { principal: 'guest:town.test:8080:ada', handle: 'ada.town.test', did: 'did:web:town.test%3A8080:guest:ada', named: false },
  );
  const caller = await ctx.auth.bearer(admitted.credential);
  assert.equal(caller, {
    name: 'ada',
    principal: admitted.principal,
    handle: admitted.handle,
    did: admitted.did,
    credentialHash: admitted.credentialHash,
    via: 'bearer',
  });
  const everything: string[] = [];
  for await (const recorded of ctx.temp.store.readAll()) everything.push(JSON.stringify(recorded.data), recorded.stream);
  assert.not.ok(
    everything.some((text) => text.includes(admitted.credential) || text.includes(code)),
    'no secret is stored',
  );
  assert.is(await reasonOf(ctx.service.accept(code, 'bea')), 'invitation_spent');
});

test('a code naming its guest is accepted without a name', async (ctx) => {
  const code = await invite(ctx, 'grace');
  const admitted = await ctx.service.accept(code, undefined);
  assert.is(admitted.name, 'grace');
  assert.is(admitted.named, true);
});

test('taken leaves the invitation unused', async (ctx) => {
  await ctx.service.accept(await invite(ctx), 'ada');
  const second = await invite(ctx);
  assert.is(await reasonOf(ctx.service.accept(second, 'ada')), 'taken');
  assert.is((await ctx.service.accept(second, 'bea')).name, 'bea');
});

test('20 parallel accepts of one open code with 20 names: one credential, the rest invitation_spent, names released', async (ctx) => {
  const code = await invite(ctx);
  const names = Array.from({ length: 20 }, (_, i) => `guest-${i}`);
  const outcomes = await Promise.all(names.map((name) => reasonOf(ctx.service.accept(code, name))));
  assert.is(outcomes.filter((o) => o === 'admitted').length, 1, outcomes.join());
  assert.is(outcomes.filter((o) => o === 'invitation_spent').length, 19, outcomes.join());
  const winner = names[outcomes.indexOf('admitted')]!;
  assert.equal(await activeCredentials(ctx.temp.store), [winner]);
  // Every loser's name was given back: another code claims one of them.
  const loser = names.find((name) => name !== winner)!;
  assert.is((await ctx.service.accept(await invite(ctx), loser)).name, loser);
});

test('parallel accepts of a code naming its guest: one admitted, the rest invitation_spent', async (ctx) => {
  const code = await invite(ctx, 'grace');
  const outcomes = await Promise.all(Array.from({ length: 8 }, () => reasonOf(ctx.service.accept(code, undefined))));
  assert.is(outcomes.filter((o) => o === 'admitted').length, 1, outcomes.join());
  assert.is(outcomes.filter((o) => o === 'invitation_spent').length, 7, outcomes.join());
});

test('arrive: a proof admits a fresh guest; reusing it is proof_spent', async (ctx) => {
  const proof = proofFor(ctx, 'ada');
  const admitted = await ctx.service.arrive('ada', proof);
  assert.is((await ctx.auth.bearer(admitted.credential))?.principal, 'guest:town.test:8080:ada');
  assert.is(await reasonOf(ctx.service.arrive('ada', proof)), 'proof_spent');
  assert.is(await reasonOf(ctx.service.arrive('bea', { challenge: proof.challenge, nonce: solve(proof.challenge, 'bea', bits) })), 'proof_spent');
});

test('20 parallel arrivals with distinct proofs for one name: one guest, the rest taken, their proofs unspent', async (ctx) => {
  const proofs = Array.from({ length: 20 }, () => proofFor(ctx, 'ada'));
  const outcomes = await Promise.all(proofs.map((proof) => reasonOf(ctx.service.arrive('ada', proof))));
  assert.is(outcomes.filter((o) => o === 'admitted').length, 1, outcomes.join());
  assert.is(outcomes.filter((o) => o === 'taken').length, 19, outcomes.join());
  assert.equal(await activeCredentials(ctx.temp.store), ['ada']);
  const loser = proofs[outcomes.indexOf('taken')]!;
  assert.is(await ctx.temp.store.streamRevision(streams.proof(parseChallenge(secret, loser.challenge)!.id)), undefined);
  // The loser's challenge, solved for another name, still admits.
  const again = await ctx.service.arrive('bea', { challenge: loser.challenge, nonce: solve(loser.challenge, 'bea', bits) });
  assert.is(again.name, 'bea');
});

test('parallel arrivals reusing one challenge for different names: one admitted, the rest proof_spent, names released', async (ctx) => {
  const { challenge } = ctx.service.issueChallenge();
  const names = Array.from({ length: 10 }, (_, i) => `n${i}`);
  const outcomes = await Promise.all(names.map((name) => reasonOf(ctx.service.arrive(name, { challenge, nonce: solve(challenge, name, bits) }))));
  assert.is(outcomes.filter((o) => o === 'admitted').length, 1, outcomes.join());
  assert.is(outcomes.filter((o) => o === 'proof_spent').length, 9, outcomes.join());
  const loser = names[outcomes.indexOf('proof_spent')]!;
  assert.is((await ctx.service.arrive(loser, proofFor(ctx, loser))).name, loser);
});

test('parallel arrivals with one challenge for one name: one admitted, the rest proof_spent', async (ctx) => {
  const { challenge } = ctx.service.issueChallenge();
  const nonces: string[] = [];
  for (let start = 0; nonces.length < 5; ) {
    const nonce = solve(challenge, 'ada', bits, start);
    nonces.push(nonce);
    start = parseInt(nonce, 36) + 1;
  }
  const outcomes = await Promise.all(nonces.map((nonce) => reasonOf(ctx.service.arrive('ada', { challenge, nonce }))));
  assert.equal(outcomes.sort(), ['admitted', 'proof_spent', 'proof_spent', 'proof_spent', 'proof_spent']);
});

test('arrive runs the admission gate once, only for an arrival that would be made', async (ctx) => {
  let gates = 0;
  const gate = () => {
    gates++;
  };
  assert.is(await reasonOf(ctx.service.arrive('ada', { challenge: 'forged.x', nonce: '1' }, gate)), 'proof_invalid');
  await ctx.service.arrive('ada', proofFor(ctx, 'ada'), gate);
  assert.is(await reasonOf(ctx.service.arrive('ada', proofFor(ctx, 'ada'), gate)), 'taken');
  assert.is(gates, 1);
  const refusing = () => {
    throw new TownError('rateLimited', 'over', { headers: { 'Retry-After': '60' } });
  };
  await ctx.service.arrive('bea', proofFor(ctx, 'bea'), refusing).then(
    () => assert.unreachable('the gate refused'),
    (error) => assert.is((error as TownError).cls, 'rateLimited'),
  );
  assert.is(await ctx.temp.store.streamRevision(streams.guest('bea')), undefined, 'a refused gate writes nothing');
});

test('arrive refusals: invalid, expired, short, bad name', async (ctx) => {
  const proof = proofFor(ctx, 'ada');
  assert.is(await reasonOf(ctx.service.arrive('ada', undefined)), 'proof_invalid');
  assert.is(await reasonOf(ctx.service.arrive('ada', { challenge: proof.challenge, nonce: '' })), 'proof_invalid');
  assert.is(await reasonOf(ctx.service.arrive('Ada', proof)), 'invalid_guest_name');
  ctx.clock.advance(600_000);
  assert.is(await reasonOf(ctx.service.arrive('ada', proof)), 'proof_expired');
});

test('revoke: the credential and the sessions signed in with it answer as no one', async (ctx) => {
  const admitted = await ctx.service.accept(await invite(ctx), 'ada');
  const signedIn = await ctx.service.signIn(admitted.credential);
  assert.ok(signedIn);
  assert.is((await ctx.auth.session(signedIn.sessionId))?.via, 'cookie');
  await ctx.service.revoke(admitted.credentialHash);
  assert.is(await ctx.auth.bearer(admitted.credential), undefined);
  assert.is(await ctx.auth.session(signedIn.sessionId), undefined);
  assert.is(await ctx.service.signIn(admitted.credential), undefined);
});

test('sessions: leave ends one without revoking the credential; a session lapses', async (ctx) => {
  const admitted = await ctx.service.arrive('ada', proofFor(ctx, 'ada'));
  const a = await ctx.service.signIn(admitted.credential);
  const b = await ctx.service.signIn(admitted.credential);
  assert.ok(a && b);
  assert.is((await ctx.auth.session(a.sessionId))?.principal, admitted.principal);
  await ctx.service.endSession(a.sessionId);
  await ctx.service.endSession(a.sessionId);
  assert.is(await ctx.auth.session(a.sessionId), undefined);
  assert.is((await ctx.auth.session(b.sessionId))?.name, 'ada', 'another session stays');
  assert.is((await ctx.auth.bearer(admitted.credential))?.name, 'ada', 'leaving revokes nothing');
  ctx.clock.advance(sessionLifetimeMs);
  assert.is(await ctx.auth.session(b.sessionId), undefined);
  for (const junk of ['', 'nope', 'x'.repeat(5000)]) {
    assert.is(await ctx.auth.session(junk), undefined);
    assert.is(await ctx.auth.bearer(junk), undefined);
    assert.is(await ctx.service.signIn(junk), undefined);
    await ctx.service.endSession(junk);
  }
});

test('a claim left by a front that stopped is released for a newcomer after ten minutes, not before', async (ctx) => {
  const code = await invite(ctx);
  // A front claimed "ada" for this code and died before spending it.
  await appendDecided(
    ctx.temp.store,
    streams.guest('ada'),
    [{ type: 'GuestClaimed', data: { name: 'ada', claimId: 'dead', source: { invitation: 'f'.repeat(64) }, at: ctx.clock() } }],
    'noStream',
  );
  assert.is(await reasonOf(ctx.service.accept(code, 'ada')), 'taken');
  ctx.clock.advance(abandonedClaimAfterMs + 1);
  assert.is((await ctx.service.accept(code, 'ada')).name, 'ada');
  // A claim its spend confirms is never released, however old.
  ctx.clock.advance(10 * abandonedClaimAfterMs);
  assert.is(await reasonOf(ctx.service.arrive('ada', proofFor(ctx, 'ada'))), 'taken');
});

test('a store too slow between claim and spend: nothing decided, name and code stay free', async (ctx) => {
  const code = await invite(ctx);
  const base = ctx.clock();
  let calls = 0;
  // Every clock reading after the first is past the commit window.
  const slow = () => (calls++ === 0 ? base : base + claimCommitWindowMs + 1);
  const service = new IdentityService({ store: ctx.temp.store, config: { host, secret }, clock: slow });
  await service.accept(code, 'ada').then(
    () => assert.unreachable('should give up'),
    (error) => assert.is((error as TownError).cls, 'internal'),
  );
  assert.equal(await activeCredentials(ctx.temp.store), []);
  assert.is((await ctx.service.accept(code, 'ada')).name, 'ada');
});

test('restart: invitations, guests, spent proofs, revocations and sessions survive', async (ctx) => {
  const spentCode = await invite(ctx);
  const revokedCode = await invite(ctx);
  const unusedCode = await invite(ctx);
  const ada = await ctx.service.accept(spentCode, 'ada');
  const proof = proofFor(ctx, 'bea');
  const bea = await ctx.service.arrive('bea', proof);
  await ctx.service.revoke(ada.credentialHash);
  const session = await ctx.service.signIn(bea.credential);
  const { revokeInvitation } = await import('../../src/identity/operator.js');
  await revokeInvitation(ctx.temp.store, ctx.clock, revokedCode);

  wire(ctx, await ctx.temp.reopen());

  assert.is(await reasonOf(ctx.service.accept(spentCode, 'cat')), 'invitation_spent');
  assert.is(await reasonOf(ctx.service.accept(revokedCode, 'cat')), 'invitation_revoked');
  assert.is(await reasonOf(ctx.service.accept(unusedCode, 'bea')), 'taken');
  assert.is(await reasonOf(ctx.service.arrive('dan', { challenge: proof.challenge, nonce: solve(proof.challenge, 'dan', bits) })), 'proof_spent');
  assert.is(await ctx.auth.bearer(ada.credential), undefined);
  assert.is((await ctx.auth.bearer(bea.credential))?.name, 'bea');
  assert.is((await ctx.auth.session(session!.sessionId))?.name, 'bea');
  assert.is((await ctx.service.accept(unusedCode, 'cat')).name, 'cat');
});

test('a stream holding what is not an identity event fails loudly, never folds into a wrong state', async (ctx) => {
  const code = await invite(ctx);
  await appendDecided(ctx.temp.store, streams.guest('ada'), [{ type: 'GuestClaimed', data: { name: 'ada' } }], 'noStream');
  await ctx.service.accept(code, 'ada').then(
    () => assert.unreachable('a corrupt stream must not decide'),
    (error: Error) => {
      assert.instance(error, CorruptEvent);
      assert.match(error.message, /guest-ada/);
    },
  );
});

test.run();

/**
 * The world's repository as AT Protocol's own tools see it: every route driven with
 * `@atproto/api` (which checks each reply against the lexicons), the repository CAR, the record
 * proofs and every firehose frame verified by `@atproto/repo` against the key in `did.json`, and
 * a receipt's ed25519 signature checked with tweetnacl alone.
 */
import { AtpAgent } from '@atproto/api';
import { readCarWithRoot, MemoryBlockstore, verifyDiffCar, verifyProofs, verifyRecords, verifyRepoCar, MST, def, type BlockMap } from '@atproto/repo';
import { decodeAll } from '@atproto/lex-cbor';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import nacl from 'tweetnacl';
import WebSocket from 'ws';
import { townLexicons } from '../../src/repository/lexicons.js';
import { ed25519FromMultikey } from '../../src/repository/keys.js';
import { startTestTown, type Guest, type TestTown } from '../world/support.js';
import { failure, settled } from './hosted-support.js';

interface Ctx {
  t: TestTown;
  agent: AtpAgent;
  ann: Guest;
  did: string;
  commitKey: string;
  receiptKey: Uint8Array;
}

const test = suite<Ctx>('repository over /xrpc');

test.before(async (ctx) => {
  ctx.t = await startTestTown({ settings: { firehosePort: 0, listenHost: '127.0.0.1' } });
  ctx.agent = new AtpAgent({ service: ctx.t.base });
  for (const doc of townLexicons) ctx.agent.lex.add(doc as never);
  ctx.ann = await ctx.t.guest('ann');
  for (let i = 0; i < 30; i++) {
    const r = await ctx.t.post('/AGENTS.md/world/lamp/fill', ctx.ann.token, { intent: `fill-${i}`, fields: { measures: i % 3 } });
    assert.is(r.status, 200, r.text);
  }
  await settled(ctx.t);
  const doc = (await ctx.t.request('GET', '/.well-known/did.json')).json;
  ctx.did = doc.id;
  ctx.commitKey = `did:key:${doc.verificationMethod.find((m: { id: string }) => m.id.endsWith('#atproto')).publicKeyMultibase}`;
  ctx.receiptKey = ed25519FromMultikey(doc.verificationMethod.find((m: { id: string }) => m.id.endsWith('#receipts')).publicKeyMultibase);
});
test.after(async (ctx) => {
  await ctx.t.close();
});

test('did.json: a did:web document with both keys as Multikey and the repository service', async ({ t, did }) => {
  const r = await t.request('GET', '/.well-known/did.json');
  assert.is(r.status, 200);
  assert.is(did, 'did:web:town.test');
  assert.equal(r.json.alsoKnownAs, ['at://town.test']);
  assert.equal(
    r.json.verificationMethod.map((m: { id: string; type: string; controller: string }) => [m.id, m.type, m.controller]),
    [
      [`${did}#atproto`, 'Multikey', did],
      [`${did}#receipts`, 'Multikey', did],
    ],
  );
  assert.ok(r.json.verificationMethod[0].publicKeyMultibase.startsWith('zQ3s'), 'K-256 Multikey');
  assert.ok(r.json.verificationMethod[1].publicKeyMultibase.startsWith('z6Mk'), 'ed25519 Multikey');
  assert.equal(r.json.service, [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: 'http://town.test' }]);
  // A guest's did:web resolves beside it, under the same service and commit key.
  const guest = await t.request('GET', '/guest/ann/did.json');
  assert.is(guest.status, 200);
  assert.is(guest.json.id, 'did:web:town.test:guest:ann');
  assert.equal(guest.json.alsoKnownAs, ['at://ann.town.test']);
  assert.is(guest.json.verificationMethod[0].publicKeyMultibase, r.json.verificationMethod[0].publicKeyMultibase);
  assert.equal(guest.json.service, r.json.service);
  assert.is((await t.request('GET', '/guest/nobody/did.json')).status, 404);
});

test('describeServer, describeRepo, resolveHandle', async ({ agent, did }) => {
  const server = await agent.com.atproto.server.describeServer();
  assert.is(server.data.did, did);
  assert.equal(server.data.availableUserDomains, ['.town.test']);
  const repo = await agent.com.atproto.repo.describeRepo({ repo: did });
  assert.is(repo.data.handle, 'town.test');
  assert.ok(repo.data.handleIsCorrect);
  assert.equal(repo.data.collections, ['town.world.genesis', 'town.world.arrival', 'town.world.turn']);
  assert.is((repo.data.didDoc as { id: string }).id, did);
  assert.is((await agent.com.atproto.repo.describeRepo({ repo: 'town.test' })).data.did, did, 'by handle too');
  assert.is((await agent.com.atproto.identity.resolveHandle({ handle: 'town.test' })).data.did, did);
  assert.is((await agent.com.atproto.identity.resolveHandle({ handle: 'ann.town.test' })).data.did, 'did:web:town.test:guest:ann');
  const unknown = await failure(agent.com.atproto.identity.resolveHandle({ handle: 'bob.town.test' }));
  assert.is(unknown.error, 'HandleNotFound');
  assert.is(unknown.status, 400);
  const other = await failure(agent.com.atproto.repo.describeRepo({ repo: 'did:web:elsewhere.test' }));
  assert.is(other.error, 'RepoNotFound');
  assert.is(other.status, 400);
});

test('getRecord and listRecords: receipts as records, signed with ed25519 over their content id', async ({ t, agent, did, ann, receiptKey }) => {
  const first = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: '000000000003' });
  const value = first.data.value as Record<string, any>;
  assert.is(first.data.uri, `at://${did}/town.world.turn/000000000003`);
  assert.is(value.$type, 'town.world.turn');
  assert.is(value.height, 3);
  assert.is(value.object, 'lamp');
  assert.is(value.method, 'fill');
  assert.is(value.by, 'ann');
  assert.is(value.status, 'done');
  // The receipt route names the same entry; its signature checks with tweetnacl alone.
  const receipt = await t.get(`/AGENTS.md/receipt/${value.cid}?full=1`, ann.token);
  assert.is(receipt.status, 200, receipt.text);
  assert.is(receipt.json.cid, value.cid);
  // The client reads `{$bytes}` as bytes.
  const sig: Uint8Array = value.sig;
  assert.instance(sig, Uint8Array);
  assert.ok(nacl.sign.detached.verify(new TextEncoder().encode(value.cid), sig, receiptKey), 'ed25519 signature of the content id');
  assert.not.ok(nacl.sign.detached.verify(new TextEncoder().encode(`${value.cid}x`), sig, receiptKey));

  // By spoken name and by content id too.
  const bySlug = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: value.slug });
  assert.is(bySlug.data.uri, first.data.uri);
  const byCid = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: value.cid });
  assert.is(byCid.data.cid, first.data.cid);

  const newest = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.turn', limit: 10 });
  assert.is(newest.data.records.length, 10);
  assert.is((newest.data.records[0]!.value as { height: number }).height, 31, 'newest first');
  const next = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.turn', limit: 10, cursor: newest.data.cursor });
  assert.is((next.data.records[0]!.value as { height: number }).height, 21);
  const oldest = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.turn', limit: 100, reverse: true });
  assert.is(oldest.data.records.length, 30);
  assert.is(oldest.data.cursor, undefined);
  assert.equal(
    oldest.data.records.map((r) => (r.value as { height: number }).height),
    Array.from({ length: 30 }, (_, i) => i + 2),
  );

  const missing = await failure(agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: '000000099999' }));
  assert.is(missing.error, 'RecordNotFound');
  assert.is(missing.status, 400);
  const bad = await failure(agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.turn', limit: 1000 }));
  assert.is(bad.error, 'InvalidRequest');
  assert.is(bad.status, 400);
});

test('getRepo: the whole repository as a CAR that @atproto/repo verifies against did.json', async ({ agent, did, commitKey }) => {
  const car = await agent.com.atproto.sync.getRepo({ did });
  const verified = await verifyRepoCar(car.data, did, commitKey);
  assert.is(verified.creates.length, 32, 'genesis, an arrival and 30 turns');
  const latest = await agent.com.atproto.sync.getLatestCommit({ did });
  assert.is(verified.commit.rev, latest.data.rev);
  const root = await readCarWithRoot(car.data);
  assert.is(root.root.toString(), latest.data.cid);
  const wrongKey = await verifyRepoCar(car.data, did, 'did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme').catch((e: Error) => e);
  assert.instance(wrongKey, Error, 'another key does not verify');
  const repos = await agent.com.atproto.sync.listRepos({});
  assert.equal(repos.data.repos, [{ did, head: latest.data.cid, rev: latest.data.rev, active: true }]);
  const status = await agent.com.atproto.sync.getRepoStatus({ did });
  assert.equal({ did: status.data.did, active: status.data.active, rev: status.data.rev }, { did, active: true, rev: latest.data.rev });
  const other = await failure(agent.com.atproto.sync.getRepo({ did: 'did:web:elsewhere.test' }));
  assert.is(other.error, 'RepoNotFound');
});

test('sync.getRecord: a proof that @atproto/repo verifies', async ({ agent, did, commitKey }) => {
  const proof = await agent.com.atproto.sync.getRecord({ did, collection: 'town.world.turn', rkey: '000000000010' });
  const records = await verifyRecords(proof.data, did, commitKey);
  assert.is(records.length, 1);
  assert.is(records[0]!.rkey, '000000000010');
  assert.is((records[0]!.record as { height: number }).height, 10);
});

test('sync.getRecord of a key the tree does not hold: a proof of its absence that @atproto/repo verifies', async ({ agent, did, commitKey }) => {
  const proof = await agent.com.atproto.sync.getRecord({ did, collection: 'town.world.turn', rkey: '000000099999' });
  const absent = { collection: 'town.world.turn', rkey: '000000099999', cid: null };
  const checked = await verifyProofs(proof.data, [absent], did, commitKey);
  assert.equal(checked.verified, [absent]);
  assert.equal(checked.unverified, []);
  // The same CAR proves nothing about a key that exists: its path is not in it.
  const held = { collection: 'town.world.turn', rkey: '000000000010', cid: null };
  const unproved = await verifyProofs(proof.data, [held], did, commitKey).then(
    () => false,
    () => true,
  );
  assert.ok(unproved, 'a block on the path of a key that exists is missing from the absence proof');
  // What the tree holds is never "proved absent".
  const present = await agent.com.atproto.sync.getRecord({ did, collection: 'town.world.turn', rkey: '000000000010' });
  const claim = await verifyProofs(present.data, [held], did, commitKey);
  assert.equal(claim.unverified, [held]);
  // Feed posts are not in the signed tree: their collection is RecordNotFound, not an absence proof.
  const post = await failure(agent.com.atproto.sync.getRecord({ did, collection: 'town.feed.post', rkey: '3kabcdefghijk' }));
  assert.is(post.error, 'RecordNotFound');
});

test('the town.world projections: live card, page, index and answer values', async ({ agent }) => {
  const card = await agent.call('town.world.getProjection', { kind: 'card', card: 'lamp' });
  assert.is(card.data.value.id, 'lamp');
  const index = await agent.call('town.world.getProjection', { kind: 'index' });
  assert.ok(index.data.value.cards.some((c: { id: string }) => c.id === 'lamp'));
  const page = await agent.call('town.world.getProjection', { kind: 'page', card: 'square' });
  assert.type(page.data.value.text, 'string');
  const answer = await agent.call('town.world.getProjection', { kind: 'answer', card: 'lamp', view: 'paint' });
  assert.is(answer.data.value.tag, 'label');
  const cards = await agent.call('town.world.listProjections', { kind: 'card', limit: 3 });
  assert.is(cards.data.projections.length, 3);
  assert.type(cards.data.cursor, 'string');
  const more = await agent.call('town.world.listProjections', { kind: 'card', limit: 3, cursor: cards.data.cursor });
  assert.ok(more.data.projections[0].card > cards.data.projections[2].card);
  const none = await failure(agent.call('town.world.getProjection', { kind: 'card', card: 'no-such-card' }));
  assert.is(none.error, 'RecordNotFound');
  const noPage = await failure(agent.call('town.world.getProjection', { kind: 'page', card: 'lamp' }));
  assert.is(noPage.error, 'RecordNotFound');
  const badKind = await failure(agent.call('town.world.getProjection', { kind: 'nonsense', card: 'lamp' }));
  assert.is(badKind.error, 'InvalidRequest');
});

test('errors of 7.3: MethodNotImplemented, InvalidRequest, UpgradeRequired', async ({ t }) => {
  const unknown = await t.request('GET', '/xrpc/com.example.nothing');
  assert.is(unknown.status, 501);
  assert.is(unknown.json.error, 'MethodNotImplemented');
  const notNsid = await t.request('GET', '/xrpc/nonsense');
  assert.is(notNsid.status, 400);
  assert.is(notNsid.json.error, 'InvalidRequest');
  const post = await t.request('POST', '/xrpc/com.atproto.repo.uploadBlob', { json: {} });
  assert.is(post.status, 501);
  assert.is(post.json.error, 'MethodNotImplemented');
  // A hosted write (test/repository/hosted.test.ts) without the account's credential.
  const write = await t.request('POST', '/xrpc/com.atproto.repo.createRecord', { json: {} });
  assert.is(write.status, 401);
  assert.is(write.json.error, 'AuthRequired');
  const missing = await t.request('GET', '/xrpc/com.atproto.repo.getRecord?repo=town.test&collection=town.world.turn');
  assert.is(missing.status, 400);
  assert.is(missing.json.error, 'InvalidRequest');
  const hose = await t.request('GET', '/xrpc/com.atproto.sync.subscribeRepos');
  assert.is(hose.status, 426);
  assert.is(hose.json.error, 'UpgradeRequired');
  assert.ok(hose.json.message.includes(t.town.firehose!.url), hose.json.message);
});

/** The next `n` binary messages of a socket, decoded as [header, body]. */
function frames(ws: WebSocket, n: number): Promise<[any, any][]> {
  return new Promise((resolve, reject) => {
    const out: [any, any][] = [];
    const timer = setTimeout(() => reject(new Error(`${out.length} of ${n} frames`)), 30_000);
    ws.on('message', (data: Buffer) => {
      out.push([...decodeAll(new Uint8Array(data))] as [any, any]);
      if (out.length === n) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    ws.on('error', reject);
  });
}

test('the firehose: #commit frames over a WebSocket, resumable with a cursor, each verified by @atproto/repo', async ({ t, agent, did, commitKey, ann }) => {
  // The listener as this machine reaches it (the url it advertises names the public origin's host).
  const url = `ws://127.0.0.1:${t.town.firehose!.port}/xrpc/com.atproto.sync.subscribeRepos`;
  assert.is(t.town.firehose!.url, `ws://town.test:${t.town.firehose!.port}/xrpc/com.atproto.sync.subscribeRepos`);
  // From the first frame: every commit since the repository began, then live ones.
  const ws = new WebSocket(`${url}?cursor=0`);
  const first = await frames(ws, 1);
  assert.equal(first[0]![0], { op: 1, t: '#commit' });
  const all: [any, any][] = [...first];
  const rest = frames(ws, 1);
  // A live commit: one more turn.
  const r = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'live-fill', fields: { measures: 1 } });
  assert.is(r.status, 200);
  all.push(...(await rest));
  ws.close();
  await settled(t);

  // Frame by frame: each CAR diff verifies against the repository as the frames before built it.
  const storage = new MemoryBlockstore();
  let repo: Parameters<typeof verifyDiffCar>[0] = null;
  const seqs: number[] = [];
  for (const [header, body] of all) {
    assert.is(header.t, '#commit');
    assert.is(body.repo, did);
    assert.ok(body.ops.length <= 200);
    const diff = await verifyDiffCar(repo, body.blocks, did, commitKey);
    assert.is(diff.commit.cid.toString(), body.commit.toString());
    assert.is(diff.commit.rev, body.rev);
    await storage.putMany(diff.commit.newBlocks as BlockMap);
    const commit = await storage.readObj(diff.commit.cid, def.commit);
    const data = MST.load(storage, commit.data);
    repo = { storage, data, commit, cid: diff.commit.cid, did } as never;
    // The frame also carries the covering proof of every operation (for consumers without the repository).
    const { blocks } = await readCarWithRoot(body.blocks);
    for (const op of body.ops)
      for (const cid of (await data.getCoveringProof(op.path)).cids()) assert.ok(blocks.has(cid), `frame ${body.seq}: proof of ${op.path}`);
    seqs.push(body.seq);
  }
  const latest = await agent.com.atproto.sync.getLatestCommit({ did });
  assert.is(all.at(-1)![1].commit.toString(), latest.data.cid, 'the last frame is the head');
  assert.equal(
    seqs,
    Array.from({ length: seqs.length }, (_, i) => i + 1),
    'sequence numbers from 1, none skipped',
  );

  // Resuming from a cursor gives what came after it.
  const again = new WebSocket(`${url}?cursor=${seqs.at(-2)}`);
  const resumed = await frames(again, 1);
  again.close();
  assert.is(resumed[0]![1].seq, seqs.at(-1));
  // A cursor beyond the newest frame is FutureCursor.
  const future = new WebSocket(`${url}?cursor=${seqs.at(-1)! + 100}`);
  const [[header, body]] = (await frames(future, 1)) as [any, any][];
  assert.equal(header, { op: -1 });
  assert.is(body.error, 'FutureCursor');
});

test('AmbiguousSlug: a spoken name two receipts share', async ({ t, agent, did }) => {
  // Spoken names are three words from the content id, so two receipts rarely share one; the read
  // model is given a second record of the same name (as the page tests give one a hidden card).
  const records = t.town.reads.collection('repository.records');
  const doc = (await records.findOne({ _id: 'town.world.turn/000000000004' }))!;
  await records.insertOne({ ...doc, _id: 'town.world.turn/000000009999', rkey: '000000009999', height: 9999, entry: 'bafyreitwin' });
  const twice = await failure(agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: doc.slug as string }));
  assert.is(twice.error, 'AmbiguousSlug');
  assert.is(twice.status, 400);
  const byKey = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: '000000000004' });
  assert.is((byKey.data.value as { slug: string }).slug, doc.slug, 'the record key still names one');
  await records.deleteMany({ _id: 'town.world.turn/000000009999' });
});

test('feed posts are records of town.feed.post: their uri resolves with getRecord, and listRecords pages them', async ({ t, agent, did, ann }) => {
  const top = await t.post('/AGENTS.md/feed', ann.token, { text: 'a post to look up' });
  assert.is(top.status, 200, top.text);
  const reply = await t.post('/AGENTS.md/feed', ann.token, { text: 'and a reply', reply_to: top.json.uri });
  await settled(t);
  const [, , , collection, rkey] = (reply.json.uri as string).split('/');
  assert.is(collection, 'town.feed.post');
  const got = await agent.com.atproto.repo.getRecord({ repo: did, collection: collection!, rkey: rkey! });
  assert.is(got.data.uri, reply.json.uri);
  assert.ok(got.data.cid, 'the content id of the record value');
  assert.equal(got.data.value, {
    $type: 'town.feed.post',
    text: 'and a reply',
    createdAt: reply.json.createdAt,
    town: false,
    author: 'did:web:town.test:guest:ann',
    reply: { root: top.json.uri, parent: top.json.uri },
  });
  const again = await agent.com.atproto.repo.getRecord({ repo: did, collection: collection!, rkey: rkey!, cid: got.data.cid });
  assert.is(again.data.cid, got.data.cid);
  const listed = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.feed.post', limit: 1 });
  assert.is(listed.data.records.length, 1);
  assert.ok(listed.data.cursor, 'a next page');
  const next = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.feed.post', limit: 100, cursor: listed.data.cursor });
  const uris = [...listed.data.records, ...next.data.records].map((r) => r.uri);
  assert.ok(uris.includes(top.json.uri) && uris.includes(reply.json.uri), 'every post on some page');
  assert.equal(uris, [...uris].sort().reverse(), 'newest first');
  assert.ok((await agent.com.atproto.repo.describeRepo({ repo: did })).data.collections.includes('town.feed.post'));
  const missing = await failure(agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.feed.post', rkey: '3kabcdefghijk' }));
  assert.is(missing.error, 'RecordNotFound');
});

test('getRepo with since: the blocks of the commits after that rev, which @atproto/repo applies to the repository at that rev', async ({
  t,
  agent,
  did,
  commitKey,
  ann,
}) => {
  const full = await agent.com.atproto.sync.getRepo({ did });
  const before = await readCarWithRoot(full.data);
  const storage = new MemoryBlockstore(before.blocks);
  const commit = await storage.readObj(before.root, def.commit);
  const repo = { storage, data: MST.load(storage, commit.data), commit, cid: before.root, did };
  const since = commit.rev;

  for (let i = 0; i < 3; i++) {
    const r = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `since-${i}`, fields: { measures: 1 } });
    assert.is(r.status, 200, r.text);
  }
  await settled(t);
  const latest = await agent.com.atproto.sync.getLatestCommit({ did });
  const changes = await agent.com.atproto.sync.getRepo({ did, since });
  const diff = await verifyDiffCar(repo as never, changes.data, did, commitKey);
  assert.is(diff.commit.cid.toString(), latest.data.cid);
  assert.is(diff.commit.rev, latest.data.rev);
  assert.equal(
    diff.writes.map((w) => [w.action, w.collection]),
    [
      ['create', 'town.world.turn'],
      ['create', 'town.world.turn'],
      ['create', 'town.world.turn'],
    ],
    'the three new turns, nothing older',
  );
  const car = await readCarWithRoot(changes.data);
  assert.ok(car.blocks.size < before.blocks.size, `${car.blocks.size} blocks since, ${before.blocks.size} in the whole repository`);
  for (const cid of car.blocks.cids()) assert.not.ok(before.blocks.has(cid), `${cid} was already in the repository at ${since}`);
  // The whole repository is still there for a reader that asks without since.
  assert.ok((await verifyRepoCar((await agent.com.atproto.sync.getRepo({ did })).data, did, commitKey)).creates.length >= 35);

  // Since the head: the signed commit alone, no writes.
  const none = await readCarWithRoot((await agent.com.atproto.sync.getRepo({ did, since: latest.data.rev })).data);
  assert.is(none.root.toString(), latest.data.cid);
  assert.equal(none.blocks.cids().map(String), [latest.data.cid]);
  const bad = await failure(agent.com.atproto.sync.getRepo({ did, since: 'not-a-rev' }));
  assert.is(bad.error, 'InvalidRequest');
  assert.is(bad.status, 400);
});

test('rate limit without credential: RateLimitExceeded with Retry-After', async () => {
  const t = await startTestTown({ limiters: undefined });
  try {
    let last = await t.request('GET', '/xrpc/com.atproto.server.describeServer');
    for (let i = 1; i < 32; i++) {
      assert.is(last.status, 200, last.text);
      last = await t.request('GET', '/xrpc/com.atproto.server.describeServer');
    }
    assert.is(last.status, 200);
    const over = await t.request('GET', '/xrpc/com.atproto.server.describeServer');
    assert.is(over.status, 429);
    assert.is(over.json.error, 'RateLimitExceeded');
    assert.ok(Number(over.headers['retry-after']) > 0, `Retry-After ${over.headers['retry-after']}`);
  } finally {
    await t.close();
  }
});

test.run();

const keyless = suite('a box with no signing key');

keyless('records without signatures, no tree: RepoNotServed for tree and commit routes', async () => {
  const t = await startTestTown({ settings: { signing: false } });
  try {
    const agent = new AtpAgent({ service: t.base });
    const ann = await t.guest('ann');
    assert.is((await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'f', fields: { measures: 1 } })).status, 200);
    await settled(t);
    const did = 'did:web:town.test';
    const record = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: '000000000002' });
    const value = record.data.value as Record<string, unknown>;
    assert.is(value.object, 'lamp');
    assert.is(value.sig, undefined, 'a pointer to the entry, with no signature');
    for (const call of [
      () => agent.com.atproto.sync.getRepo({ did }),
      () => agent.com.atproto.sync.getLatestCommit({ did }),
      () => agent.com.atproto.sync.getRecord({ did, collection: 'town.world.turn', rkey: '000000000002' }),
    ]) {
      const e = await failure(call());
      assert.is(e.error, 'RepoNotServed');
      assert.is(e.status, 400);
    }
    assert.equal((await agent.com.atproto.sync.listRepos({})).data.repos, []);
    const doc = await t.request('GET', '/.well-known/did.json');
    assert.equal(doc.json.verificationMethod, []);
    assert.not.ok(fs.existsSync(path.join(t.dir, 'commit.key')), 'no key was made');
  } finally {
    await t.close();
  }
});

keyless.run();

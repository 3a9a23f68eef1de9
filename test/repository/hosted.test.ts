/**
 * Hosted records over /xrpc, driven with AT Protocol's own client (`@atproto/api`, which checks
 * each call and reply against AT Protocol's lexicons and the town's): a guest writes public
 * requests into its own repository with its town credential (createRecord, putRecord,
 * deleteRecord, applyWrites), anyone reads them with every com.atproto.repo / sync query, the
 * repository exported with sync.getRepo verifies with @atproto/repo against the guest's DID
 * document, every refusal of spec 7.3 has its class and status, and rebuilding the read model
 * from the journal gives the same documents and the same CAR.
 */
import { AtpAgent, type XRPCError } from '@atproto/api';
import { decodeAll } from '@atproto/lex-cbor';
import { def, MemoryBlockstore, MST, readCarWithRoot, verifyDiffCar, verifyRecords, verifyRepoCar, type BlockMap } from '@atproto/repo';
import WebSocket from 'ws';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { digestProjection } from '../../src/projections/digest.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import { hostedProjection } from '../../src/repository/hosted-projection.js';
import { townLexicons } from '../../src/repository/lexicons.js';
import { startTestTown, type Guest, type TestTown } from '../world/support.js';

interface Ctx {
  t: TestTown;
  agent: AtpAgent;
  ann: Guest;
  bob: Guest;
  annDid: string;
  bobDid: string;
  townDid: string;
  commitKey: string;
}

const test = suite<Ctx>('hosted records over /xrpc');
const collection = 'town.guest.request';
const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const request = (object: string, text: string) => ({ $type: collection, object, text, createdAt: new Date(0).toISOString() });

async function failure(call: Promise<unknown>): Promise<XRPCError> {
  try {
    await call;
  } catch (error) {
    return error as XRPCError;
  }
  throw new Error('the call succeeded');
}

async function refused(call: Promise<unknown>, error: string, status: number): Promise<void> {
  const e = await failure(call);
  assert.is(e.error, error, `${e.error}: ${e.message}`);
  assert.is(e.status, status, e.message);
}

test.before(async (ctx) => {
  ctx.t = await startTestTown({ settings: { firehosePort: 0, listenHost: '127.0.0.1' } });
  ctx.agent = new AtpAgent({ service: ctx.t.base });
  for (const doc of townLexicons) ctx.agent.lex.add(doc as never);
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
  ctx.annDid = 'did:web:town.test:guest:ann';
  ctx.bobDid = 'did:web:town.test:guest:bob';
  ctx.townDid = (await ctx.t.request('GET', '/.well-known/did.json')).json.id;
  const doc = (await ctx.t.request('GET', '/guest/ann/did.json')).json;
  ctx.commitKey = `did:key:${doc.verificationMethod.find((m: { id: string }) => m.id.endsWith('#atproto')).publicKeyMultibase}`;
});
test.after(async (ctx) => {
  await ctx.t.close();
});

test('createRecord, getRecord, listRecords, putRecord, deleteRecord: the account reads what it wrote', async ({ agent, ann, annDid }) => {
  const made = await agent.com.atproto.repo.createRecord({ repo: annDid, collection, record: request('lamp', 'fill it, please') }, auth(ann.token));
  assert.match(made.data.uri, new RegExp(`^at://${annDid}/${collection}/[a-z2-7]{13}$`), 'a TID key');
  assert.ok(made.data.commit?.cid && made.data.commit.rev);
  assert.is(made.data.validationStatus, 'valid');
  const rkey = made.data.uri.split('/').pop()!;
  // Anyone reads it, without a credential.
  const got = await agent.com.atproto.repo.getRecord({ repo: annDid, collection, rkey });
  assert.is(got.data.cid, made.data.cid);
  assert.equal(got.data.value, request('lamp', 'fill it, please'));
  // By handle too, and with the record key given.
  const named = await agent.com.atproto.repo.createRecord(
    {
      repo: 'ann.town.test',
      collection,
      rkey: 'kettle-1',
      record: { object: 'kettle', text: 'boil', method: 'boil', fields: { cups: 2 }, createdAt: new Date(0).toISOString() },
    },
    auth(ann.token),
  );
  assert.is(named.data.uri, `at://${annDid}/${collection}/kettle-1`);
  const list = await agent.com.atproto.repo.listRecords({ repo: annDid, collection });
  assert.equal(
    list.data.records.map((r) => r.uri),
    [named.data.uri, made.data.uri].sort().reverse(),
    'newest key first',
  );
  const page = await agent.com.atproto.repo.listRecords({ repo: annDid, collection, limit: 1, reverse: true });
  assert.is(page.data.records.length, 1);
  assert.ok(page.data.cursor);
  const next = await agent.com.atproto.repo.listRecords({ repo: annDid, collection, limit: 1, reverse: true, cursor: page.data.cursor });
  assert.is.not(next.data.records[0]!.uri, page.data.records[0]!.uri);

  const put = await agent.com.atproto.repo.putRecord({ repo: annDid, collection, rkey: 'kettle-1', record: request('kettle', 'boil twice') }, auth(ann.token));
  assert.is.not(put.data.cid, named.data.cid);
  assert.is((await agent.com.atproto.repo.getRecord({ repo: annDid, collection, rkey: 'kettle-1' })).data.value.text, 'boil twice');
  // A put to a free key makes the record.
  await agent.com.atproto.repo.putRecord({ repo: annDid, collection, rkey: 'fresh', record: request('lamp', 'new') }, auth(ann.token));
  const deleted = await agent.com.atproto.repo.deleteRecord({ repo: annDid, collection, rkey: 'fresh' }, auth(ann.token));
  assert.ok(deleted.data.commit?.cid);
  await refused(agent.com.atproto.repo.getRecord({ repo: annDid, collection, rkey: 'fresh' }), 'RecordNotFound', 400);
  // Deleting what is not there changes nothing: no commit.
  const again = await agent.com.atproto.repo.deleteRecord({ repo: annDid, collection, rkey: 'fresh' }, auth(ann.token));
  assert.is(again.data.commit, undefined);

  const described = await agent.com.atproto.repo.describeRepo({ repo: annDid });
  assert.equal(described.data.collections, [collection]);
  assert.is(described.data.handle, 'ann.town.test');
  assert.is((described.data.didDoc as { id: string }).id, annDid);
  // The world repository is untouched and lists no such collection.
  const world = await agent.com.atproto.repo.describeRepo({ repo: (await agent.com.atproto.server.describeServer()).data.did });
  assert.not.ok(world.data.collections.includes(collection));
});

test('applyWrites: creates, updates and deletes in one commit', async ({ agent, ann, annDid }) => {
  const r = await agent.com.atproto.repo.applyWrites(
    {
      repo: annDid,
      writes: [
        { $type: 'com.atproto.repo.applyWrites#create', collection, value: request('lamp', 'a') },
        { $type: 'com.atproto.repo.applyWrites#create', collection, rkey: 'batch-b', value: request('lamp', 'b') },
        { $type: 'com.atproto.repo.applyWrites#update', collection, rkey: 'kettle-1', value: request('kettle', 'c') },
        { $type: 'com.atproto.repo.applyWrites#delete', collection, rkey: 'batch-b' + 'x' },
      ],
    },
    auth(ann.token),
  );
  assert.ok(r.data.commit?.cid);
  assert.equal(
    r.data.results?.map((x) => x.$type),
    ['createResult', 'createResult', 'updateResult', 'deleteResult'].map((k) => `com.atproto.repo.applyWrites#${k}`),
  );
  const latest = await agent.com.atproto.sync.getLatestCommit({ did: annDid });
  assert.equal({ cid: latest.data.cid, rev: latest.data.rev }, r.data.commit, 'one commit for the four writes');
  assert.is((await agent.com.atproto.repo.getRecord({ repo: annDid, collection, rkey: 'kettle-1' })).data.value.text, 'c');
  // The same key twice in one call is refused, whole.
  await refused(
    agent.com.atproto.repo.applyWrites(
      {
        repo: annDid,
        writes: [
          { $type: 'com.atproto.repo.applyWrites#create', collection, rkey: 'twice', value: request('lamp', 'a') },
          { $type: 'com.atproto.repo.applyWrites#delete', collection, rkey: 'twice' },
        ],
      },
      auth(ann.token),
    ),
    'InvalidRequest',
    400,
  );
});

test('refusals: credential, repository, record, swaps (spec 7.3)', async ({ agent, ann, bob, annDid, bobDid, townDid }) => {
  const create = (repo: string, record: unknown, headers: object = auth(ann.token), more: object = {}) =>
    agent.com.atproto.repo.createRecord({ repo, collection, record: record as never, ...more }, headers);
  await refused(create(annDid, request('lamp', 'x'), {}), 'AuthRequired', 401);
  await refused(create(annDid, request('lamp', 'x'), auth('not-a-credential')), 'InvalidToken', 401);
  // A service JWT is not the account's credential.
  const jwt = (await agent.com.atproto.server.getServiceAuth({ aud: townDid, lxm: 'town.world.act' }, auth(ann.token))).data.token;
  await refused(create(annDid, request('lamp', 'x'), auth(jwt)), 'InvalidToken', 401);
  // Another account's repository, by did or handle: that account's credential is needed.
  await refused(create(bobDid, request('lamp', 'x')), 'AuthRequired', 401);
  await refused(create('bob.town.test', request('lamp', 'x')), 'AuthRequired', 401);
  await refused(agent.com.atproto.repo.deleteRecord({ repo: annDid, collection, rkey: 'kettle-1' }, auth(bob.token)), 'AuthRequired', 401);
  // The world repository is read-only.
  await refused(create(townDid, request('lamp', 'x')), 'InvalidRequest', 400);
  await refused(
    agent.com.atproto.repo.putRecord({ repo: townDid, collection: 'town.world.turn', rkey: '000000000001', record: { height: 1 } }, auth(ann.token)),
    'InvalidRequest',
    400,
  );
  // Accounts this town does not host.
  await refused(create('did:web:town.test:guest:nobody', request('lamp', 'x')), 'RepoNotFound', 400);
  await refused(create('did:plc:abcdefghijklmnopqrstuvwx', request('lamp', 'x')), 'RepoNotFound', 400);

  // Records: only public requests, as the lexicon says.
  await refused(
    agent.com.atproto.repo.createRecord({ repo: annDid, collection: 'app.bsky.feed.post', record: { text: 'hi' } }, auth(ann.token)),
    'InvalidRequest',
    400,
  );
  await refused(create(annDid, { object: 'lamp', createdAt: new Date(0).toISOString() }), 'InvalidRequest', 400);
  await refused(create(annDid, { ...request('lamp', 'x'), createdAt: 'yesterday' }), 'InvalidRequest', 400);
  await refused(create(annDid, { ...request('lamp', 'x'), $type: 'town.world.turn' }), 'InvalidRequest', 400);
  await refused(create(annDid, request('no spaces allowed', 'x')), 'InvalidRequest', 400);
  await refused(create(annDid, { ...request('lamp', 'x'), fields: { measures: 1.5 } }), 'InvalidRequest', 400);
  const rawBad = await fetch(`${agent.serviceUrl.origin}/xrpc/com.atproto.repo.createRecord`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ann.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ repo: annDid, collection, rkey: 'bad key!', record: request('lamp', 'x') }),
  });
  assert.is(rawBad.status, 400);
  assert.is((await rawBad.json()).error, 'InvalidRequest');

  // An existing key on create.
  await refused(create(annDid, request('lamp', 'x'), auth(ann.token), { rkey: 'kettle-1' }), 'RecordAlreadyExists', 400);
  // swapCommit and swapRecord.
  const head = (await agent.com.atproto.sync.getLatestCommit({ did: annDid })).data;
  const current = (await agent.com.atproto.repo.getRecord({ repo: annDid, collection, rkey: 'kettle-1' })).data.cid!;
  const stale = 'bafyreie5737gdxlw5i64vzichcalba3z2v5n6icifvx5xytvske7mr3hpm';
  await refused(create(annDid, request('lamp', 'x'), auth(ann.token), { swapCommit: stale }), 'InvalidSwap', 400);
  const put = (more: object) =>
    agent.com.atproto.repo.putRecord({ repo: annDid, collection, rkey: 'kettle-1', record: request('kettle', 'swap'), ...more }, auth(ann.token));
  await refused(put({ swapRecord: stale }), 'InvalidSwap', 400);
  await refused(put({ swapRecord: null }), 'InvalidSwap', 400);
  await refused(agent.com.atproto.repo.deleteRecord({ repo: annDid, collection, rkey: 'kettle-1', swapRecord: stale }, auth(ann.token)), 'InvalidSwap', 400);
  await refused(agent.com.atproto.repo.deleteRecord({ repo: annDid, collection, rkey: 'absent', swapRecord: stale }, auth(ann.token)), 'InvalidSwap', 400);
  assert.equal((await agent.com.atproto.sync.getLatestCommit({ did: annDid })).data, head, 'nothing refused was committed');
  // The right swaps pass.
  const swapped = await put({ swapRecord: current, swapCommit: head.cid });
  assert.is.not(swapped.data.commit!.cid, head.cid);
  await refused(put({ swapCommit: head.cid }), 'InvalidSwap', 400);
  const fresh = await agent.com.atproto.repo.putRecord(
    { repo: annDid, collection, rkey: 'only-if-new', record: request('lamp', 'x'), swapRecord: null },
    auth(ann.token),
  );
  assert.ok(fresh.data.commit);
});

test(`bodies: up to ${limits.hostedWriteBodyBytes} bytes taken, one byte more refused`, async ({ t, ann, annDid }) => {
  const post = (bytes: number) => {
    const record = { ...request('lamp', 'x'.repeat(100_000)), spell: 'y'.repeat(100_000), fields: { pad: '' } };
    const shell = JSON.stringify({ repo: annDid, collection, rkey: 'big', record });
    const body = shell.replace('"pad":""', `"pad":"${'z'.repeat(bytes - shell.length)}"`);
    assert.is(Buffer.byteLength(body), bytes);
    return fetch(`${t.base}/xrpc/com.atproto.repo.putRecord`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ann.token}`, 'content-type': 'application/json' },
      body,
    });
  };
  const most = await post(limits.hostedWriteBodyBytes);
  assert.is(most.status, 200, await most.clone().text());
  assert.ok((await most.json()).commit.cid);
  const over = await post(limits.hostedWriteBodyBytes + 1);
  assert.is(over.status, 400);
  const refusal = await over.json();
  assert.is(refusal.error, 'InvalidRequest');
  assert.match(refusal.message, String(limits.hostedWriteBodyBytes));
  // The lexicon bounds a request's text: a longer one is refused as a record, inside the body limit.
  const long = await fetch(`${t.base}/xrpc/com.atproto.repo.putRecord`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ann.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ repo: annDid, collection, rkey: 'long', record: request('lamp', 'x'.repeat(100_001)) }),
  });
  assert.is(long.status, 400);
  assert.match((await long.json()).message, 'text');
});

test(`RepoFull: ${limits.hostedAccountRequests} requests at most; a put to a held key still works`, async ({ agent, bob, bobDid }) => {
  const creates = (n: number, from: number) =>
    Array.from({ length: n }, (_, i) => ({
      $type: 'com.atproto.repo.applyWrites#create' as const,
      collection,
      rkey: `r-${from + i}`,
      value: request('lamp', `${from + i}`),
    }));
  await agent.com.atproto.repo.applyWrites({ repo: bobDid, writes: creates(200, 0) }, auth(bob.token));
  await agent.com.atproto.repo.applyWrites({ repo: bobDid, writes: creates(limits.hostedAccountRequests - 200, 200) }, auth(bob.token));
  await refused(agent.com.atproto.repo.createRecord({ repo: bobDid, collection, record: request('lamp', 'one more') }, auth(bob.token)), 'RepoFull', 400);
  await refused(
    agent.com.atproto.repo.putRecord({ repo: bobDid, collection, rkey: 'new-key', record: request('lamp', 'one more') }, auth(bob.token)),
    'RepoFull',
    400,
  );
  const put = await agent.com.atproto.repo.putRecord({ repo: bobDid, collection, rkey: 'r-7', record: request('lamp', 'replaced') }, auth(bob.token));
  assert.ok(put.data.commit);
  // One out, one in.
  await agent.com.atproto.repo.applyWrites(
    {
      repo: bobDid,
      writes: [
        { $type: 'com.atproto.repo.applyWrites#delete', collection, rkey: 'r-0' },
        { $type: 'com.atproto.repo.applyWrites#create', collection, rkey: 'r-new', value: request('lamp', 'in') },
      ],
    },
    auth(bob.token),
  );
  const car = await agent.com.atproto.sync.getRepo({ did: bobDid });
  const verified = await verifyRepoCar(car.data, bobDid, await keyOf(agent, 'bob'));
  assert.is(verified.creates.length, limits.hostedAccountRequests);
});

async function keyOf(agent: AtpAgent, name: string): Promise<string> {
  const doc = await (await fetch(`${agent.serviceUrl.origin}/guest/${name}/did.json`)).json();
  return `did:key:${doc.verificationMethod.find((m: { id: string }) => m.id.endsWith('#atproto')).publicKeyMultibase}`;
}

test("sync: the account's repository as CARs that @atproto/repo verifies against its DID document", async ({ agent, annDid, commitKey, townDid }) => {
  const car = await agent.com.atproto.sync.getRepo({ did: annDid });
  const verified = await verifyRepoCar(car.data, annDid, commitKey);
  const listed = await agent.com.atproto.repo.listRecords({ repo: annDid, collection, limit: 100 });
  assert.equal(verified.creates.map((c) => `${c.collection}/${c.rkey}`).sort(), listed.data.records.map((r) => r.uri.split('/').slice(-2).join('/')).sort());
  const latest = (await agent.com.atproto.sync.getLatestCommit({ did: annDid })).data;
  assert.is(verified.commit.rev, latest.rev);
  assert.is((await readCarWithRoot(car.data)).root.toString(), latest.cid);
  const wrongKey = await verifyRepoCar(car.data, annDid, 'did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme').catch((e: Error) => e);
  assert.instance(wrongKey, Error, 'another key does not verify');
  const proof = await agent.com.atproto.sync.getRecord({ did: annDid, collection, rkey: 'kettle-1' });
  const records = await verifyRecords(proof.data, annDid, commitKey);
  assert.is(records.length, 1);
  assert.is((records[0]!.record as { object: string }).object, 'kettle');
  const status = (await agent.com.atproto.sync.getRepoStatus({ did: annDid })).data;
  assert.equal({ did: status.did, active: status.active, rev: status.rev }, { did: annDid, active: true, rev: latest.rev });
  const repos = (await agent.com.atproto.sync.listRepos({})).data.repos;
  assert.equal(
    repos.map((r) => r.did),
    [townDid, annDid, 'did:web:town.test:guest:bob'],
  );
  assert.equal(repos[1], { did: annDid, head: latest.cid, rev: latest.rev, active: true });
  const paged = await agent.com.atproto.sync.listRepos({ limit: 1, cursor: (await agent.com.atproto.sync.listRepos({ limit: 1 })).data.cursor });
  assert.equal(
    paged.data.repos.map((r) => r.did),
    [annDid],
  );
  await refused(agent.com.atproto.sync.getRepo({ did: 'did:web:town.test:guest:nobody' }), 'RepoNotFound', 400);
});

/** Frames from the firehose until `done` says so, decoded as [header, body]. */
function framesUntil(ws: WebSocket, done: (body: any) => boolean): Promise<[any, any][]> {
  return new Promise((resolve, reject) => {
    const out: [any, any][] = [];
    const timer = setTimeout(() => reject(new Error(`${out.length} frames, not the one awaited`)), 30_000);
    ws.on('message', (data: Buffer) => {
      const frame = [...decodeAll(new Uint8Array(data))] as [any, any];
      out.push(frame);
      if (done(frame[1])) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    ws.on('error', reject);
  });
}

test("the firehose: each account's commits are #commit frames of its did, verified by @atproto/repo", async ({ t, agent, annDid, bobDid, commitKey }) => {
  const heads = new Set<string>();
  for (const did of [annDid, bobDid]) heads.add((await agent.com.atproto.sync.getLatestCommit({ did })).data.cid);
  const ws = new WebSocket(`ws://127.0.0.1:${t.town.firehose!.port}/xrpc/com.atproto.sync.subscribeRepos?cursor=0`);
  const all = await framesUntil(ws, (body) => heads.delete(body.commit.toString()) && heads.size === 0);
  ws.close();
  assert.equal(
    all.map(([, body]) => body.seq),
    Array.from({ length: all.length }, (_, i) => i + 1),
    "one sequence with the world's frames",
  );
  for (const did of [annDid, bobDid]) {
    const storage = new MemoryBlockstore();
    let repo: Parameters<typeof verifyDiffCar>[0] = null;
    const mine = all.filter(([, body]) => body.repo === did);
    assert.ok(mine.length > 2, `${did} has frames`);
    assert.is(mine[0]![1].since, null, 'the first commit has no since');
    for (const [header, body] of mine) {
      assert.is(header.t, '#commit');
      const diff = await verifyDiffCar(repo, body.blocks, did, await keyOf(agent, did.split(':').pop()!));
      assert.is(diff.commit.cid.toString(), body.commit.toString());
      await storage.putMany(diff.commit.newBlocks as BlockMap);
      const commit = await storage.readObj(diff.commit.cid, def.commit);
      const data = MST.load(storage, commit.data);
      repo = { storage, data, commit, cid: diff.commit.cid, did } as never;
      const { blocks } = await readCarWithRoot(body.blocks);
      for (const op of body.ops) for (const cid of (await data.getCoveringProof(op.path)).cids()) assert.ok(blocks.has(cid), `proof of ${op.path}`);
    }
  }
  assert.is(await keyOf(agent, 'ann'), commitKey, "the town's commit key signs for every account");
});

test('rebuilt from the journal: the same read model, the same repository', async ({ t, agent, annDid }) => {
  const before = await digestProjection(t.town.reads, hostedProjection());
  const car = Buffer.from((await agent.com.atproto.sync.getRepo({ did: annDid })).data).toString('base64');
  assert.ok(before.documents > 0);
  await rebuildProjection(t.town.events, t.town.reads, hostedProjection());
  const after = await digestProjection(t.town.reads, hostedProjection());
  assert.equal(after, before);
  assert.is(Buffer.from((await agent.com.atproto.sync.getRepo({ did: annDid })).data).toString('base64'), car);
});

test("an emptied repository verifies; after a restart, writes go on from the journal's head", async (ctx) => {
  const cy = await ctx.t.guest('cy');
  const cyDid = 'did:web:town.test:guest:cy';
  await refused(ctx.agent.com.atproto.sync.getLatestCommit({ did: cyDid }), 'RepoNotFound', 400);
  await ctx.agent.com.atproto.repo.createRecord({ repo: cyDid, collection, rkey: 'once', record: request('lamp', 'x') }, auth(cy.token));
  await ctx.agent.com.atproto.repo.deleteRecord({ repo: cyDid, collection, rkey: 'once' }, auth(cy.token));
  const empty = await verifyRepoCar((await ctx.agent.com.atproto.sync.getRepo({ did: cyDid })).data, cyDid, await keyOf(ctx.agent, 'cy'));
  assert.is(empty.creates.length, 0);

  const head = (await ctx.agent.com.atproto.sync.getLatestCommit({ did: ctx.annDid })).data;
  await ctx.t.restart();
  ctx.agent = new AtpAgent({ service: ctx.t.base });
  for (const doc of townLexicons) ctx.agent.lex.add(doc as never);
  const after = await ctx.agent.com.atproto.repo.createRecord(
    { repo: ctx.annDid, collection, rkey: 'after-restart', record: request('lamp', 'still here'), swapCommit: head.cid },
    auth(ctx.ann.token),
  );
  assert.ok(after.data.commit!.rev > head.rev);
  const verified = await verifyRepoCar((await ctx.agent.com.atproto.sync.getRepo({ did: ctx.annDid })).data, ctx.annDid, ctx.commitKey);
  assert.ok(verified.creates.some((c) => c.rkey === 'after-restart'));
});

test.run();

/**
 * Hosted records over /xrpc, driven with AT Protocol's own client (`@atproto/api`, which checks
 * each call and reply against AT Protocol's lexicons and the town's): a guest writes public
 * requests into its own repository with its town credential (createRecord, putRecord,
 * deleteRecord, applyWrites) and reads them back, and every refusal of spec 7.3 has its class
 * and status. The sync side (CARs, firehose, rebuild) is hosted-sync.test.ts.
 */
import { verifyRepoCar } from '@atproto/repo';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { auth, collection, type HostedCtx, keyOf, openHostedTown, refused, request } from './hosted-support.js';

const test = suite<HostedCtx>('hosted records over /xrpc');

test.before(openHostedTown);
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

test('bad bodies: InvalidRequest every time, never a 500', async ({ t, ann, annDid }) => {
  const post = (nsid: string, body: unknown) =>
    fetch(`${t.base}/xrpc/com.atproto.repo.${nsid}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ann.token}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const record = request('lamp', 'x');
  const cases: [string, unknown][] = [
    ['createRecord', []],
    ['createRecord', 'not json'],
    ['createRecord', { repo: annDid, collection }],
    ['createRecord', { repo: annDid, collection, record: 'text' }],
    ['createRecord', { repo: annDid, collection, record: [record] }],
    ['createRecord', { repo: 42, collection, record }],
    ['createRecord', { repo: annDid, collection: 7, record }],
    ['createRecord', { repo: annDid, collection: 'not an nsid', record }],
    ['createRecord', { repo: annDid, collection, record: { ...record, object: 5 } }],
    ['createRecord', { repo: annDid, collection, record: { ...record, fields: 'not an object' } }],
    ['createRecord', { repo: annDid, collection, record, swapCommit: 12 }],
    ['createRecord', { repo: 'not a did or handle!', collection, record }],
    ['putRecord', { repo: annDid, collection, record }],
    ['putRecord', { repo: annDid, collection, rkey: 'k', record, swapRecord: 3 }],
    ['deleteRecord', { repo: annDid, collection }],
    ['applyWrites', { repo: annDid, writes: 'all of them' }],
    ['applyWrites', { repo: annDid, writes: [7] }],
    ['applyWrites', { repo: annDid, writes: [{ $type: 'com.atproto.repo.applyWrites#upsert', collection, rkey: 'k', value: record }] }],
    ['applyWrites', { repo: annDid, writes: [{ $type: 'com.atproto.repo.applyWrites#update', collection, value: record }] }],
    ['applyWrites', { repo: annDid, writes: Array.from({ length: 201 }, () => ({ $type: 'com.atproto.repo.applyWrites#create', collection, value: record })) }],
  ];
  for (const [nsid, body] of cases) {
    const r = await post(nsid, body);
    const json = await r.json();
    assert.is(r.status, 400, `${nsid} ${JSON.stringify(body).slice(0, 120)}: ${JSON.stringify(json)}`);
    assert.is(json.error, 'InvalidRequest', `${nsid} ${JSON.stringify(body).slice(0, 120)}`);
  }
  // Without a credential, whatever the body: AuthRequired.
  const anonymous = await fetch(`${t.base}/xrpc/com.atproto.repo.createRecord`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"repo": 5}',
  });
  assert.is(anonymous.status, 401);
  assert.is((await anonymous.json()).error, 'AuthRequired');
  // An empty applyWrites changes nothing.
  const none = await post('applyWrites', { repo: annDid, writes: [] });
  assert.is(none.status, 200);
  assert.equal((await none.json()).results, []);
});

test('concurrent writes to one account: each its own commit, none lost', async ({ agent, ann, annDid }) => {
  const before = (await agent.com.atproto.repo.listRecords({ repo: annDid, collection, limit: 100 })).data.records.length;
  const made = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      agent.com.atproto.repo.putRecord({ repo: annDid, collection, rkey: `racer-${i}`, record: request('lamp', `${i}`) }, auth(ann.token)),
    ),
  );
  assert.is(new Set(made.map((m) => m.data.commit!.rev)).size, 8, 'eight commits');
  const verified = await verifyRepoCar((await agent.com.atproto.sync.getRepo({ did: annDid })).data, annDid, await keyOf(agent, 'ann'));
  for (let i = 0; i < 8; i++)
    assert.ok(
      verified.creates.some((c) => c.rkey === `racer-${i}`),
      `racer-${i}`,
    );
  assert.ok(verified.creates.length >= before);
});

test.run();

/**
 * Naming the town's records as an AT Protocol client does: `@atproto/api` on a town served at a
 * host with a port, whose did:web (`did:web:localhost%3A18400`) the client percent-encodes again
 * as a query parameter; a record's key is its height in twelve digits, and the unpadded height
 * names it too. RecordNotFound says what a key is.
 */
import { AtpAgent } from '@atproto/api';
import { verifyRecords } from '@atproto/repo';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { townLexicons } from '../../src/repository/lexicons.js';
import { startTestTown, type Guest, type TestTown } from '../world/support.js';
import { failure, settled } from './hosted-support.js';

let t: TestTown;
let agent: AtpAgent;
let ann: Guest;
let did: string;

test.before(async () => {
  t = await startTestTown({ origin: 'http://localhost:18400' });
  agent = new AtpAgent({ service: t.base });
  for (const doc of townLexicons) agent.lex.add(doc as never);
  ann = await t.guest('ann');
  for (let i = 0; i < 3; i++) assert.is((await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `k-${i}`, fields: { measures: 1 } })).status, 200);
  await settled(t);
  did = (await t.request('GET', '/.well-known/did.json')).json.id;
});
test.after(async () => {
  await t.close();
});

test('the did of a host with a port, as the client sends it, names the repository', async () => {
  assert.is(did, 'did:web:localhost%3A18400');
  // What goes on the wire: the did's own %3A written %253A.
  const sent: string[] = [];
  const spy = new AtpAgent({
    service: t.base,
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    },
  } as never);
  const repo = await spy.com.atproto.repo.describeRepo({ repo: did });
  assert.is(repo.data.did, did);
  assert.ok(
    sent.some((u) => u.includes('repo=did%3Aweb%3Alocalhost%253A18400')),
    sent.join('\n'),
  );
  // The development host is no handle (a handle has two labels at least): handle.invalid, said as such.
  assert.is(repo.data.handle, 'handle.invalid');
  assert.is(repo.data.handleIsCorrect, false);
});

test('a record by its twelve-digit key, by its unpadded height, with the same proof', async () => {
  const padded = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: '000000000003' });
  const bare = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: '3' });
  assert.is(bare.data.uri, padded.data.uri);
  assert.is(bare.data.uri, `at://${did}/town.world.turn/000000000003`);
  assert.is(bare.data.cid, padded.data.cid);
  const doc = (await t.request('GET', '/.well-known/did.json')).json;
  const key = `did:key:${doc.verificationMethod.find((m: { id: string }) => m.id.endsWith('#atproto')).publicKeyMultibase}`;
  const proof = await agent.com.atproto.sync.getRecord({ did, collection: 'town.world.turn', rkey: '3' });
  const [record] = await verifyRecords(proof.data, did, key);
  assert.is(record!.rkey, '000000000003');
  // A key of thirteen digits or more is no height: not read as one.
  const long = await failure(agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: '0000000000003' }));
  assert.is(long.error, 'RecordNotFound');
});

test('listRecords takes an unpadded height as its cursor', async () => {
  const padded = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.turn', cursor: '000000000003', reverse: true });
  const bare = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.turn', cursor: '3', reverse: true });
  assert.equal(
    bare.data.records.map((r) => r.uri),
    padded.data.records.map((r) => r.uri),
  );
  assert.equal(
    bare.data.records.map((r) => (r.value as { height: number }).height),
    [4],
  );
});

test('RecordNotFound says what a key is', async () => {
  const missing = await failure(agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: '99999' }));
  assert.is(missing.error, 'RecordNotFound');
  assert.match(missing.message, 'town.world.turn/000000099999');
  assert.match(missing.message, "a record's key is its entry's height in twelve digits (000000000042; the unpadded 42 is read as it)");
  const api = (await t.request('GET', '/AGENTS.md/api')).json;
  assert.match(api.routes.find((r: { name: string }) => r.name === 'xrpc').does, "keyed by its entry's height in twelve digits (000000000042; the unpadded 42");
});

test.run();

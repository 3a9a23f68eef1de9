/**
 * A hosted account's repository read back the AT Protocol way: exported with sync.getRepo and
 * sync.getRecord it verifies with @atproto/repo against the guest's DID document, listRepos and
 * getRepoStatus name it, its commits are frames of its did on the firehose (verified frame by
 * frame), rebuilding the read model from the journal gives the same documents and CAR, and
 * writes go on after a restart.
 */
import { decodeAll } from '@atproto/lex-cbor';
import { type BlockMap, def, MemoryBlockstore, MST, readCarWithRoot, verifyDiffCar, verifyProofs, verifyRecords, verifyRepoCar } from '@atproto/repo';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { digestProjection } from '../../src/projections/digest.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import { hostedProjection } from '../../src/repository/hosted/projection.js';
import { agentFor, auth, collection, type HostedCtx, keyOf, openHostedTown, refused, request, settled } from './hosted-support.js';

const test = suite<HostedCtx>('hosted repositories over sync and the firehose');

test.before(async (ctx) => {
  await openHostedTown(ctx);
  const { agent, ann, bob, annDid, bobDid } = ctx;
  // ann: three commits (a create, a put, a delete); bob: three (several creates at once, a put, a create).
  await agent.com.atproto.repo.createRecord({ repo: annDid, collection, rkey: 'kettle-1', record: request('kettle', 'boil') }, auth(ann.token));
  await agent.com.atproto.repo.putRecord({ repo: annDid, collection, rkey: 'lamp-1', record: request('lamp', 'fill') }, auth(ann.token));
  await agent.com.atproto.repo.createRecord({ repo: annDid, collection, rkey: 'gone', record: request('lamp', 'x') }, auth(ann.token));
  await agent.com.atproto.repo.deleteRecord({ repo: annDid, collection, rkey: 'gone' }, auth(ann.token));
  const creates = ['a', 'b', 'c'].map((rkey) => ({ $type: 'com.atproto.repo.applyWrites#create' as const, collection, rkey, value: request('lamp', rkey) }));
  await agent.com.atproto.repo.applyWrites({ repo: bobDid, writes: creates }, auth(bob.token));
  await agent.com.atproto.repo.putRecord({ repo: bobDid, collection, rkey: 'a', record: request('lamp', 'again') }, auth(bob.token));
  await agent.com.atproto.repo.createRecord({ repo: bobDid, collection, record: request('lamp', 'd') }, auth(bob.token));
  // The world's repository signs off the turn's path (a second's linger, then a look at the load):
  // listRepos names it once its first commit is in.
  await settled(ctx.t);
});
test.after(async (ctx) => {
  await ctx.t.close();
});

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
  // A key the account does not hold: the proof of its absence.
  const absent = { collection, rkey: 'kettle-404', cid: null };
  const none = await agent.com.atproto.sync.getRecord({ did: annDid, collection, rkey: 'kettle-404' });
  assert.equal((await verifyProofs(none.data, [absent], annDid, commitKey)).verified, [absent]);
  const held = { collection, rkey: 'kettle-1', cid: null };
  assert.equal((await verifyProofs(proof.data, [held], annDid, commitKey)).unverified, [held], 'what the account holds is not proved absent');
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
    /** The repository as its first commit left it, its tree's blocks, and that commit's rev. */
    let first: { repo: NonNullable<typeof repo>; cids: Set<string>; rev: string } | undefined;
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
      first ??= { repo: repo!, cids: new Set((await data.allCids()).toList().map(String)), rev: body.rev };
      const { blocks } = await readCarWithRoot(body.blocks);
      for (const op of body.ops) for (const cid of (await data.getCoveringProof(op.path)).cids()) assert.ok(blocks.has(cid), `proof of ${op.path}`);
    }
    // getRepo with since: what changed after the first commit, applied by @atproto/repo to the
    // repository as that commit left it, reaches the head.
    const latest = (await agent.com.atproto.sync.getLatestCommit({ did })).data;
    const changes = await agent.com.atproto.sync.getRepo({ did, since: first!.rev });
    const diff = await verifyDiffCar(first!.repo, changes.data, did, commitKey);
    assert.is(diff.commit.cid.toString(), latest.cid);
    const writes = diff.writes.map((w) => `${w.action} ${w.rkey}`).sort();
    if (did === annDid) assert.equal(writes, ['create lamp-1'], 'ann: lamp-1 put; gone made and deleted again');
    else
      assert.ok(
        writes.length === 2 && writes[1] === 'update a' && /^create [a-z2-7]{13}$/.test(writes[0]!),
        `bob: a put again, a record of a TID key: ${writes}`,
      );
    const { blocks } = await readCarWithRoot(changes.data);
    for (const cid of blocks.cids()) assert.not.ok(first!.cids.has(cid.toString()), `${cid} was in the tree at ${first!.rev}`);
    const none = await readCarWithRoot((await agent.com.atproto.sync.getRepo({ did, since: latest.rev })).data);
    assert.equal(none.blocks.cids().map(String), [latest.cid], 'since the head: the commit alone');
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
  ctx.agent = agentFor(ctx.t.base);
  const after = await ctx.agent.com.atproto.repo.createRecord(
    { repo: ctx.annDid, collection, rkey: 'after-restart', record: request('lamp', 'still here'), swapCommit: head.cid },
    auth(ctx.ann.token),
  );
  assert.ok(after.data.commit!.rev > head.rev);
  const verified = await verifyRepoCar((await ctx.agent.com.atproto.sync.getRepo({ did: ctx.annDid })).data, ctx.annDid, ctx.commitKey);
  assert.ok(verified.creates.some((c) => c.rkey === 'after-restart'));
});

test.run();

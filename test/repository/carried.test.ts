/**
 * The repository across a carry, as AT Protocol's own client sees it (`@atproto/api`, with the
 * town's lexicons): a receipt from before the carry has a pointer and no signed record. getRecord
 * by record key, content id or spoken name answers the pointer (archive, epoch, height, content
 * id), unsigned, its CID the pointer's own; listRecords of `town.world.carried` pages through
 * them; sync.getRecord answers RecordNotFound saying there is no signed record; getEntry (a
 * service call) answers the pointer. The tree after the carry verifies with `@atproto/repo` and
 * holds the carried epoch alone.
 */
import { verifyRepoCar } from '@atproto/repo';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { carryWhileStopped } from '../world/carry-town.js';
import { startTestTown } from '../world/support.js';
import { agentFor, failure, settled } from './hosted-support.js';

test('a receipt from before a carry: a pointer and no signed record, through @atproto/api', async () => {
  const t = await startTestTown();
  try {
    let agent = agentFor(t.base);
    const ann = await t.guest('ann');
    const fills: { height: number; slug: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: `fill-${i}`, fields: { measures: i % 3 } });
      assert.is(r.status, 200, r.text);
      fills.push(r.json.receipt);
    }
    await settled(t);
    const did = (await agent.com.atproto.repo.describeRepo({ repo: 'town.test' })).data.did;
    const before = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: String(fills[2]!.height).padStart(12, '0') });
    const cid = (before.data.value as { cid: string }).cid;
    assert.ok(before.data.cid, 'a signed record before the carry');

    const { archive, height: carriedAt } = await carryWhileStopped(t);
    agent = agentFor(t.base); // the town listens on another port now
    const after = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'after', fields: { measures: 1 } });
    assert.is(after.status, 200, after.text);
    await settled(t);
    const pointer = { archive, epoch: 0, height: fills[2]!.height, cid };

    // getRecord by record key, content id and spoken name: the pointer, no record CID
    for (const rkey of [String(fills[2]!.height).padStart(12, '0'), cid, fills[2]!.slug]) {
      for (const collection of ['town.world.turn', 'town.world.carried']) {
        const r = await agent.com.atproto.repo.getRecord({ repo: did, collection, rkey });
        assert.ok(r.data.cid && r.data.cid !== before.data.cid, `${collection}/${rkey}: the pointer's own CID, not the signed record's`);
        assert.is((r.data.value as { sig?: unknown }).sig, undefined, 'unsigned');
        assert.is(r.data.uri, `at://${did}/${collection}/${String(fills[2]!.height).padStart(12, '0')}`);
        const v = r.data.value as { $type: string; carried: unknown; message: string; height: number; cid: string };
        assert.is(v.$type, 'town.world.carried');
        assert.equal(v.carried, pointer);
        assert.is(v.cid, cid);
        assert.ok(v.message.includes(archive), v.message);
      }
    }
    // town.world.getEntry (a service call as ann): the pointer too, by height and by content id
    const auth = async () => {
      const token = (
        await agent.com.atproto.server.getServiceAuth({ aud: did, lxm: 'town.world.getEntry' }, { headers: { authorization: `Bearer ${ann.token}` } })
      ).data.token;
      return { headers: { authorization: `Bearer ${token}` } };
    };
    for (const q of [{ height: fills[2]!.height }, { cid }, { height: fills[2]!.height, full: true }]) {
      const entry = (await agent.call('town.world.getEntry', q, undefined, await auth())).data;
      assert.equal(entry.carried, pointer, JSON.stringify(q));
      assert.is(entry.height, fills[2]!.height);
      assert.is(entry.entry, undefined, 'no whole entry from before a carry');
    }
    // a content id that is not the receipt's: not found
    const wrong = await failure(agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: fills[2]!.slug, cid: 'bafyreiaaaa' }));
    assert.is(wrong.error, 'RecordNotFound');
    // sync.getRecord proves a signed record: there is none, and it says where the receipt lies
    const sync = await failure(agent.com.atproto.sync.getRecord({ did, collection: 'town.world.turn', rkey: String(fills[2]!.height).padStart(12, '0') }));
    assert.is(sync.error, 'RecordNotFound');
    assert.match(sync.message, /no signed record: this receipt is from before a carry/);
    assert.ok(sync.message.includes(archive));

    // listRecords: the pointers by height, newest first, paged; the turns of the carried epoch alone
    const page1 = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.carried', limit: 4 });
    assert.equal(
      page1.data.records.map((r) => (r.value as { height: number }).height),
      [carriedAt - 1, carriedAt - 2, carriedAt - 3, carriedAt - 4],
    );
    assert.ok(
      page1.data.records.every((r) => (r.value as { $type: string; sig?: unknown }).$type === 'town.world.carried' && !('sig' in r.value)),
      'pointers, unsigned',
    );
    const page2 = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.carried', limit: 100, cursor: page1.data.cursor });
    assert.is(page2.data.records.length, carriedAt - 4);
    assert.is(page2.data.cursor, undefined);
    const oldest = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.carried', limit: 2, reverse: true });
    assert.equal(
      oldest.data.records.map((r) => (r.value as { height: number }).height),
      [0, 1],
    );
    const badCursor = await failure(agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.carried', cursor: 'nope' }));
    assert.is(badCursor.error, 'InvalidRequest');
    const turns = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.turn', limit: 100 });
    assert.equal(
      turns.data.records.map((r) => (r.value as { height: number }).height),
      [after.json.receipt.height],
    );
    const carries = await agent.com.atproto.repo.listRecords({ repo: did, collection: 'town.world.carry' });
    assert.equal(
      carries.data.records.map((r) => (r.value as { height: number }).height),
      [carriedAt],
    );
    // a record of the carried epoch is whole and signed
    const now = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: String(after.json.receipt.height).padStart(12, '0') });
    assert.ok(now.data.cid);

    // the tree: the carried epoch alone, signed and whole
    const doc = (await t.request('GET', '/.well-known/did.json')).json;
    const commitKey = `did:key:${doc.verificationMethod.find((m: { id: string }) => m.id.endsWith('#atproto')).publicKeyMultibase}`;
    const car = await agent.com.atproto.sync.getRepo({ did });
    const verified = await verifyRepoCar(car.data, did, commitKey);
    const keys = verified.creates.map((c) => `${c.collection}/${c.rkey}`).sort();
    assert.equal(keys, [`town.world.carry/${String(carriedAt).padStart(12, '0')}`, `town.world.turn/${String(after.json.receipt.height).padStart(12, '0')}`]);

    // A spoken name shared across the carry, one receipt on each side: AmbiguousSlug, naming both,
    // while the record key and the content id still name one each. Spoken names come from content
    // ids, so the read model is given a signed record with the carried receipt's name (as the
    // AmbiguousSlug test of xrpc.test.ts does).
    const records = t.town.reads.collection('repository.records');
    const nowKey = String(after.json.receipt.height).padStart(12, '0');
    const twin = (await records.findOne({ _id: `town.world.turn/${nowKey}` }))!;
    await records.insertOne({ ...twin, _id: 'town.world.turn/000000009999', rkey: '000000009999', height: 9999, slug: fills[2]!.slug });
    const shared = await failure(agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: fills[2]!.slug }));
    assert.is(shared.error, 'AmbiguousSlug');
    assert.is(shared.status, 400);
    assert.ok(shared.message.includes(cid) && shared.message.includes('(archived)'), shared.message);
    assert.ok(shared.message.includes('town.world.turn/000000009999'), shared.message);
    // town.world.carried holds pointers alone: there the name still names one, the pointer
    const inCarried = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.carried', rkey: fills[2]!.slug });
    assert.is((inCarried.data.value as { cid: string }).cid, cid);
    const byHeight = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: String(fills[2]!.height).padStart(12, '0') });
    assert.is((byHeight.data.value as { cid: string }).cid, cid, 'the record key still names the pointer');
    const byCid = await agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: cid });
    assert.is((byCid.data.value as { $type: string }).$type, 'town.world.carried', 'the content id still names the pointer');
    await records.deleteMany({ _id: 'town.world.turn/000000009999' });

    // a height the town has not reached: no record and no pointer
    const unknown = await failure(
      agent.com.atproto.repo.getRecord({ repo: did, collection: 'town.world.turn', rkey: String(carriedAt + 99).padStart(12, '0') }),
    );
    assert.is(unknown.error, 'RecordNotFound');
  } finally {
    await t.close();
  }
});

test.run();

/**
 * The AT Protocol interoperability vectors (test/fixtures/atproto, CC0) against the libraries the
 * repository is made with, and against the names the town itself makes: syntax of identifiers,
 * the data model (JSON <-> DAG-CBOR <-> CID), MST key heights and prefixes, MST roots before and
 * after a commit, and signatures and did:key encodings.
 */
import fs from 'node:fs';
import { P256Keypair, Secp256k1Keypair, verifySignature } from '@atproto/crypto';
import { TID } from '@atproto/common-web';
import { encode as cborEncode } from '@atproto/lex-cbor';
import { cidForCbor, parseCid, parseCidSafe } from '@atproto/lex-data';
import { jsonToLex } from '@atproto/lex-json';
import { MemoryBlockstore, MST, mstUtil } from '@atproto/repo';
import {
  isAtIdentifierString,
  isDatetimeString,
  isValidAtUri,
  isValidDid,
  isValidHandle,
  isValidLanguage,
  isValidNsid,
  isValidRecordKey,
  isValidTid,
  isValidUri,
} from '@atproto/syntax';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixture } from '../fixtures/path.js';
import { townDid } from '../../src/repository/identity.js';
import { recordCollections, rkeyOf } from '../../src/repository/records.js';
import { getProjectionNsid } from '../../src/repository/xrpc/town.world.getProjection.js';
import { listProjectionsNsid } from '../../src/repository/xrpc/town.world.listProjections.js';

const vectors = (...p: string[]) => fixture('atproto', ...p);
const json = (...p: string[]) => JSON.parse(fs.readFileSync(vectors(...p), 'utf8'));
/** A syntax file: one case a line; `#` comments and blank lines are not cases. */
const lines = (file: string) =>
  fs
    .readFileSync(vectors('syntax', file), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0 && !l.startsWith('#'));

const checks: Record<string, (s: string) => boolean> = {
  atidentifier: (s) => isAtIdentifierString(s),
  aturi: (s) => isValidAtUri(s),
  did: (s) => isValidDid(s),
  handle: (s) => isValidHandle(s),
  nsid: (s) => isValidNsid(s),
  recordkey: (s) => isValidRecordKey(s),
  tid: (s) => isValidTid(s),
  datetime: (s) => isDatetimeString(s),
  language: (s) => isValidLanguage(s),
  uri: (s) => isValidUri(s),
  cid: (s) => parseCidSafe(s) !== null,
};

/**
 * Cases the installed @atproto/syntax (0.5.4, the newest that runs on Node 20) decides otherwise
 * than the vectors, which are newer: its AT-URI check is the loose one (a path is not checked
 * against the record key rules), language tags and URIs follow an older reading, and `cid` here is
 * parsed (what the repository needs) where the vectors test the looser text syntax. Listed so
 * that a library that gets them right fails this test until the list is shortened. The town does
 * not take AT-URIs, language tags or URIs as parameters.
 */
const looseAtUris = new Set([
  'at://did:plc:asdf123/',
  'at://user.bsky.social/',
  'at://did:plc:asdf123/com.atproto.feed.post/',
  'at://did:plc:asdf123/com.atproto.feed.post/record/',
  'at://did:plc:asdf123/com.atproto.feed.post/record/#/frag',
  'at://did:plc:asdf123/com.atproto.feed.post/%23',
  'at://did:plc:asdf123/com.atproto.feed.post/$@!*)(:,;~.sdf123',
  'at://did:plc:asdf123/com.atproto.feed.post/$',
  'at://did:plc:asdf123/com.atproto.feed.post/@',
  'at://did:plc:asdf123/com.atproto.feed.post/!',
  'at://did:plc:asdf123/com.atproto.feed.post/*',
  'at://did:plc:asdf123/com.atproto.feed.post/(',
  'at://did:plc:asdf123/com.atproto.feed.post/,',
  'at://did:plc:asdf123/com.atproto.feed.post/;',
  'at://did:plc:asdf123/com.atproto.feed.post/abc%30123',
  'at://did:plc:asdf123/com.atproto.feed.post/%30',
  'at://did:plc:asdf123/com.atproto.feed.post/%3',
  'at://did:plc:asdf123/com.atproto.feed.post/%',
  'at://did:plc:asdf123/com.atproto.feed.post/%zz',
  'at://did:plc:asdf123/com.atproto.feed.post/%%%',
  'at://did:plc:asdf123/com.atproto.feed.post/.',
  'at://did:plc:asdf123/com.atproto.feed.post/..',
]);

const differs: Record<string, (s: string) => boolean> = {
  aturi: (s) => looseAtUris.has(s),
  language: (s) => ['X-fr-CH', 'de-X-foo', 'jaja', 'JA'].includes(s),
  uri: (s) => ['content-type:text/plan', 'microsoft.windows.camera:thing'].includes(s) || s.length > 8000,
  cid: (s) =>
    [
      'mBcDxtdWx0aWhhc2g+',
      'z7x3CtScH765HvShXT',
      '7134036155352661643226414134664076',
      'f017012202c5f688262e0ece8569aa6f94d60aad55ca8d9d83734e4a7430d0cff6588ec2b',
      'QmbWqxBEKC3P8tqsKc98xmWNzrzDtRLMiMPL8wBuTGsMnR',
    ].includes(s),
};

for (const [name, check] of Object.entries(checks)) {
  test(`syntax: ${name}`, () => {
    const valid = lines(`${name}_syntax_valid.txt`);
    const invalid = lines(`${name}_syntax_invalid.txt`);
    assert.ok(valid.length > 0 && invalid.length > 0);
    const known = differs[name] ?? (() => false);
    let differing = 0;
    for (const [cases, want] of [
      [valid, true],
      [invalid, false],
    ] as const) {
      for (const s of cases) {
        if (known(s)) {
          differing++;
          assert.is(check(s), !want, `${name} ${JSON.stringify(s.slice(0, 80))} is listed as decided otherwise`);
        } else assert.is(check(s), want, `${want ? 'valid' : 'invalid'} ${name}: ${JSON.stringify(s.slice(0, 80))}`);
      }
    }
    if (differs[name]) assert.ok(differing > 0);
  });
}

test('syntax: the names the town makes are what AT Protocol accepts', () => {
  for (const c of recordCollections) assert.ok(isValidNsid(c), c);
  assert.ok(isValidNsid(getProjectionNsid) && isValidNsid(listProjectionsNsid));
  for (const h of [0, 42, 999_999_999_999]) assert.ok(isValidRecordKey(rkeyOf(h)), rkeyOf(h));
  for (const host of ['town.test', 'localhost:8080', '127.0.0.1:4000']) assert.ok(isValidDid(townDid(host)), townDid(host));
  assert.ok(isValidTid(TID.fromTime(Date.UTC(2026, 10, 23) * 1000, 0).toString()));
});

test('data model: JSON to DAG-CBOR to CID, as the fixtures give them', async () => {
  const cases = json('data-model', 'data-model-fixtures.json') as { json: unknown; cbor_base64: string; cid: string }[];
  assert.ok(cases.length > 0);
  for (const c of cases) {
    const bytes = cborEncode(jsonToLex(c.json as never));
    assert.is(Buffer.from(bytes).toString('base64').replace(/=+$/, ''), c.cbor_base64.replace(/=+$/, ''));
    assert.is((await cidForCbor(bytes)).toString(), c.cid);
  }
});

test('data model: what is valid and invalid', () => {
  const encodes = (value: unknown) => {
    // A record is an object, and nothing in it may be outside the data model (floats, bad links).
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    try {
      cborEncode(jsonToLex(value as never, { strict: true }));
      return true;
    } catch {
      return false;
    }
  };
  for (const c of json('data-model', 'data-model-valid.json') as { note: string; json: unknown }[]) assert.ok(encodes(c.json), c.note);
  for (const c of json('data-model', 'data-model-invalid.json') as { note: string; json: unknown }[]) assert.not.ok(encodes(c.json), c.note);
});

test('MST: key heights and common prefixes', async () => {
  for (const { key, height } of json('mst', 'key_heights.json') as { key: string; height: number }[]) {
    assert.is(await mstUtil.leadingZerosOnHash(key), height, key);
  }
  for (const { left, right, len } of json('mst', 'common_prefix.json') as { left: string; right: string; len: number }[]) {
    assert.is(mstUtil.countPrefixLen(left, right), len, `${left} / ${right}`);
  }
});

test('MST: roots before and after a commit, and the blocks that prove it', async () => {
  const cases = json('firehose', 'commit-proof-fixtures.json') as {
    comment: string;
    leafValue: string;
    keys: string[];
    adds: string[];
    dels: string[];
    rootBeforeCommit: string;
    rootAfterCommit: string;
    blocksInProof: string[];
  }[];
  assert.ok(cases.length > 0);
  for (const c of cases) {
    const storage = new MemoryBlockstore();
    const leaf = parseCid(c.leafValue);
    let tree = await MST.create(storage);
    for (const key of c.keys) tree = await tree.add(key, leaf);
    assert.is((await tree.getPointer()).toString(), c.rootBeforeCommit, `${c.comment}: before`);
    for (const key of c.adds) tree = await tree.add(key, leaf);
    for (const key of c.dels) tree = await tree.delete(key);
    assert.is((await tree.getPointer()).toString(), c.rootAfterCommit, `${c.comment}: after`);
    const proved = new Set<string>();
    for (const key of [...c.adds, ...c.dels]) for (const cid of (await tree.getCoveringProof(key)).cids()) proved.add(cid.toString());
    for (const cid of c.blocksInProof) if (cid !== c.rootBeforeCommit) assert.ok(proved.has(cid), `${c.comment}: ${cid} in the proof`);
  }
});

test('signatures: the fixtures verify, or fail, as they say', async () => {
  const cases = json('crypto', 'signature-fixtures.json') as {
    comment: string;
    messageBase64: string;
    publicKeyDid: string;
    signatureBase64: string;
    validSignature: boolean;
  }[];
  assert.ok(cases.length > 0);
  for (const c of cases) {
    const ok = await verifySignature(c.publicKeyDid, Buffer.from(c.messageBase64, 'base64'), Buffer.from(c.signatureBase64, 'base64')).catch(() => false);
    assert.is(ok, c.validSignature, c.comment);
  }
});

test('did:key: K-256 and P-256 keys encode as the W3C vectors do', async () => {
  for (const c of json('crypto', 'w3c_didkey_K256.json') as { privateKeyBytesHex: string; publicDidKey: string }[]) {
    assert.is((await Secp256k1Keypair.import(c.privateKeyBytesHex)).did(), c.publicDidKey);
  }
  for (const c of json('crypto', 'w3c_didkey_P256.json') as { privateKeyBytesBase58?: string; privateKeyBytesHex?: string; publicDidKey: string }[]) {
    if (!c.privateKeyBytesHex) continue;
    assert.is((await P256Keypair.import(c.privateKeyBytesHex)).did(), c.publicDidKey);
  }
});

test.run();

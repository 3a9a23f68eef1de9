/**
 * The guide's "Check a receipt yourself": its code block, taken from the guide as served, is run
 * in a child Node against a live town, and checks a receipt's content id, its record's ed25519
 * signature and the repository proof. A receipt the town did not sign as it says fails it.
 */
import { spawn } from 'node:child_process';
import { Secp256k1Keypair } from '@atproto/crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/http/guide.js';
import { settled } from '../repository/hosted-support.js';
import { type Guest, startTestTown, type TestTown } from '../world/support.js';

let t: TestTown;
let ann: Guest;

test.before(async () => {
  t = await startTestTown();
  ann = await t.guest('ann');
});
test.after(async () => {
  await t.close();
});

/** The served guide's one JavaScript block of the section that names it. */
async function snippet(): Promise<string> {
  const guide = await fetch(`${t.base}/AGENTS.md`, { headers: { accept: 'text/plain' } });
  assert.is(guide.status, 200);
  assert.match(String(guide.headers.get('content-type')), 'text/plain');
  const text = await guide.text();
  const at = text.indexOf('## 12. Check a receipt yourself');
  assert.ok(at >= 0, 'the guide has the section');
  const section = text.slice(at);
  const block = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the section has a JavaScript block');
  return block[1]!;
}

/** Runs code as an ES module in a child Node whose imports resolve from the project (never blocking this one). */
function run(code: string, env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module'], { cwd: projectRoot(), env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c, out, err }));
    child.stdin.end(code);
  });
}

test('the guide’s check runs against a live town: content id, signature and proof', async () => {
  const code = await snippet();
  const lit = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'check-me', fields: { measures: 1 } });
  assert.is(lit.status, 200, lit.text);
  await settled(t);
  const ran = await run(code, { TOWN: t.base, CREDENTIAL: ann.token, SLUG: lit.json.receipt.slug });
  assert.is(ran.code, 0, ran.err);
  assert.match(ran.out, `receipt ${lit.json.receipt.slug} (height ${lit.json.receipt.height}): content id, signature and proof check`);
});

test('the check fails when the content id, the signature or the key is not what the town signed', async () => {
  const code = await snippet();
  const lit = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'check-me-too', fields: { measures: 1 } });
  await settled(t);
  const env = { TOWN: t.base, CREDENTIAL: ann.token, SLUG: lit.json.receipt.slug };
  // An entry that is not the one hashed: one field of it changed.
  const changed = code.replace('const { cid, slug, ...body } = full.entry;', 'const { cid, slug, ...body } = { ...full.entry, clock: full.entry.clock + 1 };');
  assert.is.not(changed, code);
  const badCid = await run(changed, env);
  assert.is.not(badCid.code, 0);
  assert.match(badCid.err, 'the entry hashes to');
  // A signature checked with another key than #receipts (#atproto's bytes stand in).
  const otherKey = code.replace("keyOf('#receipts')).subarray(2)", "keyOf('#receipts')).subarray(2).map((b) => b ^ 1)");
  assert.is.not(otherKey, code);
  const badSig = await run(otherKey, env);
  assert.is.not(badSig.code, 0);
  assert.match(badSig.err, 'the record does not carry a good signature of this cid');
  // The proof checked against another commit key.
  const stranger = (await Secp256k1Keypair.create()).did();
  const otherCommit = code.replace("`did:key:${keyOf('#atproto')}`", `'${stranger}'`);
  assert.is.not(otherCommit, code);
  const badProof = await run(otherCommit, env);
  assert.is.not(badProof.code, 0);
  assert.match(badProof.err, /signature/i);
});

test.run();

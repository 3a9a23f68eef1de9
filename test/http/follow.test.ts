/**
 * The guide's "Follow the town": both of its code blocks, taken from the guide as served, run in
 * child Nodes against a live town and hear a turn cast over HTTP: the MCP follower the card's
 * move (at its new version), the firehose follower the turn's record with its public part.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/http/guide.js';
import { type Guest, startTestTown, type TestTown } from '../world/support.js';

let t: TestTown;
let ann: Guest;
let blocks: string[];

test.before(async () => {
  // The firehose advertises its address at the town's origin: 127.0.0.1 is where this machine reaches it.
  t = await startTestTown({ origin: 'http://127.0.0.1', settings: { firehosePort: 0, listenHost: '127.0.0.1' } });
  ann = await t.guest('ann');
  const guide = await (await fetch(`${t.base}/AGENTS.md`, { headers: { accept: 'text/plain' } })).text();
  const at = guide.indexOf('## 13. Follow the town');
  assert.ok(at >= 0, 'the guide has the section');
  blocks = [...guide.slice(at).matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.is(blocks.length, 2, 'an MCP follower and a firehose follower');
});
test.after(async () => {
  await t.close();
});

/** A child Node running `code` as an ES module whose imports resolve from the project. */
function follower(code: string, env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--input-type=module'], {
    cwd: projectRoot(),
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  child.stdin.end(code);
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    /** Waits (without blocking this process) until the output holds `text`. */
    async heard(text: string | RegExp, ms = 20_000): Promise<string> {
      for (const until = Date.now() + ms; ; ) {
        const found = typeof text === 'string' ? out.includes(text) : text.test(out);
        if (found) return out;
        if (child.exitCode !== null || Date.now() > until) throw new Error(`not heard ${text}; out: ${out}; err: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop(): Promise<void> {
      if (child.exitCode === null) child.kill();
      await exited;
    },
  };
}

test('the MCP follower hears the card it follows move, and reads it at its new version', async () => {
  const f = follower(blocks[0]!, { TOWN: t.base, CREDENTIAL: ann.token });
  try {
    await f.heard('following town://world/lamp');
    const before = (await t.get('/AGENTS.md/world/lamp', ann.token)).json.version;
    const lit = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'follow-mcp', fields: { measures: 1 } });
    assert.is(lit.json.status, 'done', lit.text);
    await f.heard(`town://world/lamp moved: version ${before + 1}`);
  } finally {
    await f.stop();
  }
});

test('the firehose follower hears the turn’s record, with its public part', async () => {
  const lit = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'follow-hose', fields: { measures: 1 } });
  assert.is(lit.json.status, 'done', lit.text);
  const rkey = String(lit.json.receipt.height).padStart(12, '0');
  // From the first frame: the turn above is heard whether or not its commit came before the connection.
  const f = follower(blocks[1]!, { TOWN: t.base, CURSOR: '0' });
  try {
    await f.heard(`create town.world.turn/${rkey} ann fill lamp: ${lit.json.line}`);
    // And live: a turn cast while it listens.
    const next = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: 'follow-hose-live', fields: { measures: 1 } });
    await f.heard(`town.world.turn/${String(next.json.receipt.height).padStart(12, '0')} ann fill lamp: ${next.json.line}`);
  } finally {
    await f.stop();
  }
});

test('llms.txt points at both sections', async () => {
  const llms = await (await fetch(`${t.base}/llms.txt`)).text();
  assert.match(llms, "[Follow the town](http://127.0.0.1/AGENTS.md): the guide's section 13");
  assert.match(llms, "[Check a receipt yourself](http://127.0.0.1/AGENTS.md): the guide's section 12");
});

test('without a firehose listener the 426 says so', async () => {
  const bare = await startTestTown();
  try {
    const r = await bare.request('GET', '/xrpc/com.atproto.sync.subscribeRepos');
    assert.is(r.status, 426);
    assert.match(r.json.message, 'has none configured');
  } finally {
    await bare.close();
  }
});

test.run();

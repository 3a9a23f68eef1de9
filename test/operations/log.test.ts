/**
 * The operational log: JSON lines, one per request, with the request id
 * (the caller's X-Request-Id when sane, echoed), the route name, status, duration and a hash of
 * the principal; and never a credential, an invitation code, a session cookie or a body. The
 * test captures the log while guests accept invitations, sign in and cast turns, then searches
 * it for every secret it used.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueInvitation } from '../../src/identity/operator.js';
import { principalHasher, townLog } from '../../src/operations/log.js';
import { request, startTestTown } from '../world/support.js';

const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.js');

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, text: () => text };
}

test('request lines are JSON, name what an operator searches by, and hold no secret', async () => {
  const out = capture();
  const t = await startTestTown({ log: townLog({ destination: out.stream }) });
  try {
    const invite = async () => (await issueInvitation(t.town.events, t.clock, { guest: null, lifetimeMs: 86_400_000 })).code;
    const annCode = await invite();
    const accepted = await request(t.base, 'POST', '/AGENTS.md/accept', { json: { code: annCode, name: 'ann' } });
    assert.is(accepted.status, 200, accepted.text);
    const credential: string = accepted.json.credential;
    const principal: string = accepted.json.principal;

    const beaCode = await invite();
    const entered = await request(t.base, 'POST', '/enter', { form: { code: beaCode, name: 'bea' }, headers: { accept: 'text/html' } });
    const line = (entered.headers['set-cookie'] ?? []).find((c) => c.startsWith('town_session=')) ?? '';
    const session = line.split(';')[0]!.slice('town_session='.length);
    assert.ok(session, 'entering signs the browser in');
    const page = await request(t.base, 'GET', '/town', { cookie: `town_session=${session}`, headers: { accept: 'text/html' } });
    assert.is(page.status, 200);

    const marker = 'body-marker-7f3a9c';
    const traced = await request(t.base, 'POST', '/AGENTS.md/world/lamp/light', {
      token: credential,
      json: { intent: marker },
      headers: { 'x-request-id': 'trace-0af7.651916cd:43dd' },
    });
    assert.is(traced.json.status, 'done', traced.text);
    assert.is(traced.headers['x-request-id'], 'trace-0af7.651916cd:43dd', 'a sane X-Request-Id is echoed');
    const insane = await request(t.base, 'GET', '/AGENTS.md/world/lamp', { token: credential, headers: { 'x-request-id': 'no spaces, <no> markup' } });
    const made = String(insane.headers['x-request-id']);
    assert.is.not(made, 'no spaces, <no> markup', 'an unsafe id is replaced by one the front makes');
    assert.match(made, /^[0-9a-f]{6}-[0-9a-z]+$/);
    await request(t.base, 'GET', '/AGENTS.md/me', { token: `${credential}x` }); // a wrong credential: 401
    await request(t.base, 'GET', '/AGENTS.md/no-such-route');

    const text = out.text();
    for (const [what, secret] of [
      ['credential', credential],
      ["ann's invitation code", annCode],
      ["bea's invitation code", beaCode],
      ['session cookie', session!],
      ['a body', marker],
    ] as const) {
      assert.not.ok(text.includes(secret), `the log holds no ${what}`);
    }
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const requests = lines.filter((l) => l.msg === 'request');
    assert.ok(requests.length >= 6, `a line per request (${requests.length})`);
    for (const l of requests) {
      assert.type(l.req, 'string');
      assert.type(l.route, 'string');
      assert.type(l.status, 'number');
      assert.type(l.ms, 'number');
      assert.is(l.level, 30, 'at info');
      for (const k of Object.keys(l))
        assert.ok(['level', 'time', 'pid', 'req', 'method', 'route', 'status', 'ms', 'principal', 'msg'].includes(k), `field ${k}`);
    }
    const turn = requests.find((l) => l.req === 'trace-0af7.651916cd:43dd')!;
    assert.ok(turn, 'the turn is logged under the id the caller sent');
    assert.equal([turn.method, turn.route, turn.status], ['POST', 'turn', 200]);
    assert.is(turn.principal, principalHasher(t.town.config.secret)(principal), 'the principal as its keyed hash');
    assert.match(turn.principal, /^[0-9a-f]{16}$/);
    assert.not.ok(text.includes(principal), 'the principal itself is not logged');
    assert.ok(
      requests.some((l) => l.req === made && l.route === 'object'),
      'the id the front made is the one logged',
    );
    assert.ok(requests.some((l) => l.route === 'me' && l.status === 401 && l.principal === undefined));
    assert.ok(requests.some((l) => l.route === 'unmatched' && l.status === 404));
    assert.ok(
      requests.some((l) => l.route === 'town' && l.status === 200 && typeof l.principal === 'string'),
      "a signed-in page names its guest's hash",
    );
  } finally {
    await t.close();
  }
});

test('LOG_LEVEL above info: no request lines; redaction guards fields that must never be logged', async () => {
  const out = capture();
  const t = await startTestTown({ log: townLog({ level: 'warn', destination: out.stream }) });
  try {
    const ann = await t.guest('ann');
    assert.is((await t.get('/AGENTS.md/me', ann.token)).status, 200);
    assert.is(out.text(), '');
  } finally {
    await t.close();
  }
  const guarded = capture();
  townLog({ destination: guarded.stream }).info({ credential: 'svc_cred_x', cookie: 'c', code: 'svc_invite_y', url: '/enter?code=z' }, 'careless');
  assert.not.match(guarded.text(), /svc_cred_x|svc_invite_y|"c"|code=z/);
  assert.match(guarded.text(), /\[redacted\]/);
});

test('npm start: the log on stdout, JSON only; the address and the first invitation for its person, on stderr', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-start-log-'));
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', TOWN_DATA: dir, TOWN_OPEN: '', EVENTSTORE_URL: '', MONGO_URL: '', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    let code: string | undefined;
    for (const until = Date.now() + 20_000; !code && Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      code = /first invitation \(shown once\): (svc_invite_\S+)/.exec(err)?.[1];
    }
    assert.ok(code, `the first invitation is shown on stderr:\n${err}`);
    const base = /town listening on (http:\/\/\S+)/.exec(err)![1]!.replace('localhost', '127.0.0.1');
    const accepted = await request(base, 'POST', '/AGENTS.md/accept', { json: { code, name: 'ann' } });
    assert.is(accepted.status, 200);
    const me = await request(base, 'GET', '/AGENTS.md/me', { token: accepted.json.credential });
    assert.is(me.status, 200);
    child.kill('SIGTERM');
    assert.is(await exited, 0, err);
    const lines = out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const said = lines.map((l) => l.msg);
    assert.ok(said.indexOf('town open') > said.findIndex((m) => String(m).startsWith('listening')), 'it listens before the town is open');
    assert.ok(lines.some((l) => l.msg === 'request' && l.route === 'accept' && l.status === 200));
    assert.ok(lines.some((l) => l.msg === 'request' && l.route === 'me' && typeof l.principal === 'string'));
    assert.not.ok(out.includes(code!), 'the invitation is not in the log');
    assert.not.ok(out.includes(accepted.json.credential), 'nor the credential');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

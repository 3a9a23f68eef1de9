/**
 * The identity routes over HTTP, through the front's real app (createApp) on the embedded store:
 * accept and every refusal, a real 18-bit arrival, me, revoke, the guest door, the session
 * cookie, cross-site protection, the arrival rate limit, and a restart between steps.
 */
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/http/app.js';
import type { TownConfig } from '../../src/contract/town-config.js';
import { identityHandlers, type IdentityDeps } from '../../src/http/handlers/identity.js';
import { defaultLimiters } from '../../src/contract/rate-limit.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { StoreAuthenticator } from '../../src/identity/authenticator.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { setTownOpen } from '../../src/identity/town.js';
import { secret, solve, tempStore, testClock, type TempStore } from './support.js';

const day = 24 * 3600_000;

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, any>;
}

interface Town {
  temp: TempStore;
  clock: ReturnType<typeof testClock>;
  port: number;
  running: RunningServer;
  errors: string[];
  open: boolean;
  bits?: number;
  request(method: string, path: string, options?: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> }): Promise<Reply>;
  invite(guest?: string | null, lifetimeMs?: number): Promise<string>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function startTown(options: { open: boolean; bits?: number; secure?: boolean; extra?: Pick<IdentityDeps, 'turns' | 'scratches'> }): Promise<Town> {
  const town = { temp: await tempStore(), clock: testClock(), errors: [] as string[], open: options.open, bits: options.bits } as Town;
  if (options.open) await setTownOpen(town.temp.store, town.clock, true);
  async function listen() {
    const config: TownConfig = { host: 'town.test', origin: 'http://town.test', open: town.open, secret, secure: options.secure ?? false };
    const { store } = town.temp;
    const limiters = defaultLimiters(town.clock);
    const app = createApp({
      config,
      clock: town.clock,
      limiters,
      authenticator: new StoreAuthenticator(store, config, town.clock),
      handlers: identityHandlers({ store, config, clock: town.clock, limiters, arrivalBits: town.bits, ...options.extra }),
      logger: { error: (message, fields) => town.errors.push(`${message} ${JSON.stringify(fields)}`) },
    });
    town.running = await startServer(app, { port: 0, host: '127.0.0.1', closeGraceMs: 1000 });
    town.port = town.running.address.port;
  }
  async function close() {
    await town.running.close();
  }
  town.request = (method, path, opts = {}) =>
    new Promise<Reply>((resolve, reject) => {
      const headers: Record<string, string> = { ...opts.headers };
      let body: string | undefined;
      if (opts.json !== undefined) {
        body = JSON.stringify(opts.json);
        headers['Content-Type'] ??= 'application/json';
      } else if (opts.form) {
        body = new URLSearchParams(opts.form).toString();
        headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
      }
      if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
      const req = http.request({ host: '127.0.0.1', port: town.port, method, path, headers, timeout: 10_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, any> = {};
          try {
            json = JSON.parse(text);
          } catch {
            // a page, or no body
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, json });
        });
      });
      req.on('timeout', () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
      req.end(body);
    });
  town.invite = async (guest = null, lifetimeMs = 7 * day) => (await issueInvitation(town.temp.store, town.clock, { guest, lifetimeMs })).code;
  town.restart = async () => {
    await close();
    await town.temp.reopen();
    await listen();
  };
  town.stop = async () => {
    await close();
    await town.temp.cleanup();
  };
  await listen();
  return town;
}

const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });
const json = { Accept: 'application/json' };
const html = { Accept: 'text/html,application/xhtml+xml' };

/** The session id a reply set, if any. */
function sessionSet(reply: Reply): string | undefined {
  const cookies = reply.headers['set-cookie'] ?? [];
  const line = cookies.find((c) => c.startsWith('town_session='));
  return line?.slice('town_session='.length).split(';')[0] || undefined;
}

const cookie = (session: string) => ({ Cookie: `town_session=${session}` });

function assertIdentityRefusal(reply: Reply, reason: string) {
  assert.is(reply.status, 400, reply.text);
  assert.is(reply.json.status, 'error');
  assert.is(reply.json.class, 'identity');
  assert.is(reply.json.reason, reason);
  assert.is(reply.json.message, reason);
  assert.ok(reply.json._links?.self, 'the envelope carries _links');
}

const test = suite('identity over HTTP: settings');

// ---- invited town ------------------------------------------------------------------------

const invited = suite<{ town: Town }>('identity over HTTP: invited town');
invited.before.each(async (ctx) => {
  ctx.town = await startTown({ open: false });
});
invited.after.each(async (ctx) => {
  assert.equal(ctx.town.errors, [], 'no request failed inside the front');
  await ctx.town.stop();
});

invited('accept answers the credential reply; me and revoke work with it; afterwards 401', async ({ town }) => {
  const code = await town.invite();
  const accepted = await town.request('POST', '/AGENTS.md/accept', { json: { code, name: 'ada' } });
  assert.is(accepted.status, 200, accepted.text);
  assert.equal(Object.keys(accepted.json).sort(), ['_links', 'credential', 'did', 'handle', 'principal']);
  assert.is(accepted.json.principal, 'guest:town.test:ada');
  assert.is(accepted.json.handle, 'ada.town.test');
  assert.is(accepted.json.did, 'did:web:town.test:guest:ada');
  assert.is(sessionSet(accepted), undefined, 'an open code sets no cookie');
  const credential = accepted.json.credential as string;

  const me = await town.request('GET', '/AGENTS.md/me', { headers: bearer(credential) });
  assert.is(me.status, 200, me.text);
  assert.is(me.json.principal, 'guest:town.test:ada');
  assert.is(me.json.handle, 'ada.town.test');
  assert.is(me.json.did, 'did:web:town.test:guest:ada');
  assert.is(me.json.verified, new Date(town.clock()).toISOString());
  assert.equal(me.json.scratches, []);
  assert.equal(me.json.rateLimit, { limit: 32, windowSeconds: 60, remaining: 31 });
  assert.is(me.json.turns, undefined, 'an invited town counts no turns');
  const again = await town.request('GET', '/AGENTS.md/me', { headers: bearer(credential) });
  assert.is(again.json.rateLimit.remaining, 30, 'the same counter the front spends');

  const revoked = await town.request('POST', '/AGENTS.md/revoke', { headers: bearer(credential) });
  assert.is(revoked.status, 200, revoked.text);
  for (const path of ['/AGENTS.md/me']) {
    const after = await town.request('GET', path, { headers: bearer(credential) });
    assert.is(after.status, 401);
    assert.is(after.json.class, 'unauthenticated');
  }
  assert.is((await town.request('POST', '/AGENTS.md/revoke', { headers: bearer(credential) })).status, 401);
});

invited('bearer routes take the credential only as `Authorization: Bearer`', async ({ town }) => {
  const { json: reply } = await town.request('POST', '/AGENTS.md/accept', { json: { code: await town.invite(), name: 'ada' } });
  const credential = reply.credential as string;
  const tries: Record<string, string>[] = [
    {},
    { Authorization: credential },
    { Authorization: `Basic ${credential}` },
    { Authorization: `Bearer ${credential}x` },
    { 'X-Credential': credential },
    { Cookie: `town_session=${credential}` },
  ];
  for (const headers of tries) {
    const me = await town.request('GET', '/AGENTS.md/me', { headers });
    assert.is(me.status, 401, JSON.stringify(headers));
    assert.is(me.json.class, 'unauthenticated');
  }
  assert.is((await town.request('GET', `/AGENTS.md/me?access_token=${credential}`)).status, 401);
});

invited('every refusal of accept: class identity, 400, with its reason', async ({ town }) => {
  const post = (body: unknown) => town.request('POST', '/AGENTS.md/accept', { json: body });
  assertIdentityRefusal(await post({ code: 'svc_invite_doesnotexist' }), 'invitation_unknown');
  assertIdentityRefusal(await post({ code: 'nonsense', name: 'ada' }), 'invitation_unknown');
  const open = await town.invite();
  assertIdentityRefusal(await post({ code: open }), 'name_required');
  assertIdentityRefusal(await post({ code: open, name: '' }), 'name_required');
  // null is no text: the body's shape is wrong, before any identity rule (hostRequest).
  const nul = await post({ code: open, name: null });
  assert.is(nul.status, 400);
  assert.is(nul.json.class, 'hostRequest');
  assertIdentityRefusal(await post({ code: open, name: 'Ada!' }), 'invalid_guest_name');
  assertIdentityRefusal(await post({ code: open, name: 'ada-' }), 'invalid_guest_name');
  const named = await town.invite('grace');
  assertIdentityRefusal(await post({ code: named, name: 'ada' }), 'name_fixed');
  assert.is((await post({ code: open, name: 'ada' })).status, 200);
  assertIdentityRefusal(await post({ code: open, name: 'bea' }), 'invitation_spent');
  assertIdentityRefusal(await post({ code: await town.invite(), name: 'ada' }), 'taken');
  const revoked = await town.invite();
  const { revokeInvitation } = await import('../../src/identity/operator.js');
  await revokeInvitation(town.temp.store, town.clock, revoked);
  assertIdentityRefusal(await post({ code: revoked, name: 'cat' }), 'invitation_revoked');
  const short = await town.invite(null, 60_000);
  town.clock.advance(60_000);
  assertIdentityRefusal(await post({ code: short, name: 'cat' }), 'invitation_expired');
  // Malformed bodies are the front's to refuse, never a 500.
  for (const body of [[], 'text', { code: 5 }, { name: 'ada' }, { code: open, name: 'ada', extra: 1 }]) {
    const reply = await post(body);
    assert.ok(reply.status >= 400 && reply.status < 500, `${JSON.stringify(body)} -> ${reply.status}`);
  }
});

invited('a code naming its guest sets the session cookie: HttpOnly, SameSite=Lax, Path=/', async ({ town }) => {
  const accepted = await town.request('POST', '/AGENTS.md/accept', { json: { code: await town.invite('grace') } });
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.json.handle, 'grace.town.test');
  const line = accepted.headers['set-cookie']!.find((c) => c.startsWith('town_session='))!;
  assert.match(line, /; HttpOnly/);
  assert.match(line, /; SameSite=Lax/);
  assert.match(line, /; Path=\//);
  assert.not.match(line, /Secure/, 'not over plain http');
  const leave = await town.request('GET', '/leave', { headers: cookie(sessionSet(accepted)!) });
  assert.match(leave.text, /Signed in as <span title="grace\.town\.test">grace<\/span>/);
});

test('a secure town marks its session cookie Secure', async () => {
  const town = await startTown({ open: false, secure: true });
  try {
    const accepted = await town.request('POST', '/AGENTS.md/accept', { json: { code: await town.invite('grace') } });
    assert.match(accepted.headers['set-cookie']!.find((c) => c.startsWith('town_session='))!, /; Secure/);
  } finally {
    await town.stop();
  }
});

invited('an invited town has no arrival routes', async ({ town }) => {
  assert.is((await town.request('GET', '/AGENTS.md/arrive')).status, 404);
  assert.is((await town.request('POST', '/AGENTS.md/arrive', { json: { name: 'ada', proof: { challenge: 'x', nonce: 'y' } } })).status, 404);
  const page = await town.request('GET', '/enter');
  assert.not.match(page.text, /name="challenge"/);
  const posted = await town.request('POST', '/enter', { json: { name: 'ada', challenge: 'x', nonce: 'y' }, headers: json });
  assert.is(posted.status, 404);
});

invited('POST /enter with a code: a browser gets the key page and the cookie; an API client the credential reply', async ({ town }) => {
  const page = await town.request('POST', '/enter', { form: { code: await town.invite(), name: 'ada' }, headers: html });
  assert.is(page.status, 200, page.text);
  assert.match(String(page.headers['content-type']), /html/);
  assert.match(page.text, /svc_key_[A-Za-z0-9_-]{43}/);
  assert.match(page.headers['cache-control'] ?? '', /no-store/);
  const session = sessionSet(page);
  assert.ok(session);
  assert.match((await town.request('GET', '/leave', { headers: cookie(session) })).text, /Signed in as <span title="ada\.town\.test">ada<\/span>/);

  const api = await town.request('POST', '/enter', { json: { code: await town.invite(), name: 'bea' }, headers: json });
  assert.is(api.status, 200, api.text);
  assert.is(api.json.principal, 'guest:town.test:bea');
  assert.match(api.json.credential, /^svc_key_/);
  assert.ok(sessionSet(api));
  // A JSON body with no Accept at all is answered in JSON too.
  const plain = await town.request('POST', '/enter', { json: { code: await town.invite(), name: 'cat' } });
  assert.is(plain.json.principal, 'guest:town.test:cat');
});

invited('POST /enter refusals: the same reasons; a page shows the door again with the message', async ({ town }) => {
  const code = await town.invite();
  const asJson = await town.request('POST', '/enter', { json: { code }, headers: json });
  assertIdentityRefusal(asJson, 'name_required');
  const asPage = await town.request('POST', '/enter', { form: { code, name: 'BAD' }, headers: html });
  assert.is(asPage.status, 400);
  assert.match(asPage.text, /invalid_guest_name/);
  assert.match(asPage.text, /name="code"[^>]*value="svc_invite_/, 'what was typed is kept');
  assert.is(sessionSet(asPage), undefined);
});

invited('POST /enter with a key: 303 to /play/ (or JSON signedIn); a bad key is refused', async ({ town }) => {
  const { json: accepted } = await town.request('POST', '/AGENTS.md/accept', { json: { code: await town.invite(), name: 'ada' } });
  const form = await town.request('POST', '/enter', { form: { credential: accepted.credential }, headers: html });
  assert.is(form.status, 303);
  assert.is(form.headers.location, '/play/');
  assert.ok(sessionSet(form));
  const onward = await town.request('POST', '/enter', { form: { credential: accepted.credential, next: '/town?open=x' }, headers: html });
  assert.is(onward.headers.location, '/town?open=x');
  const offsite = await town.request('POST', '/enter', { form: { credential: accepted.credential, next: '//evil.example/' }, headers: html });
  assert.is(offsite.headers.location, '/play/');
  const api = await town.request('POST', '/enter', { json: { credential: accepted.credential }, headers: json });
  assert.is(api.status, 200, api.text);
  assert.is(api.json.status, 'signedIn');
  assert.is(api.json.handle, 'ada.town.test');
  assert.ok(sessionSet(api));
  const bad = await town.request('POST', '/enter', { json: { credential: 'svc_key_nope' }, headers: json });
  assert.is(bad.status, 401);
  assert.is(bad.json.class, 'unauthenticated');
  const badPage = await town.request('POST', '/enter', { form: { credential: 'svc_key_nope' }, headers: html });
  assert.is(badPage.status, 401);
  assert.match(badPage.text, /name="credential"/);
  assert.is(sessionSet(badPage), undefined);
});

invited('cookie POSTs from another site are refused; from this one, or without Origin, they pass', async ({ town }) => {
  const { json: accepted } = await town.request('POST', '/AGENTS.md/accept', { json: { code: await town.invite(), name: 'ada' } });
  const signIn = (headers: Record<string, string>) =>
    town.request('POST', '/enter', { form: { credential: accepted.credential }, headers: { ...html, ...headers } });
  const crossSite: Record<string, string>[] = [
    { Origin: 'http://evil.example' },
    { Origin: 'null' },
    { Referer: 'http://evil.example/page' },
    { 'Sec-Fetch-Site': 'cross-site' },
  ];
  for (const headers of crossSite) {
    const reply = await signIn(headers);
    assert.is(reply.status, 403, JSON.stringify(headers));
    assert.is(sessionSet(reply), undefined);
  }
  assert.is((await signIn({ Origin: 'http://town.test' })).status, 303, 'the configured origin');
  assert.is((await signIn({ Origin: `http://127.0.0.1:${town.port}` })).status, 303, 'the address the browser used');
  assert.is((await signIn({ Referer: `http://127.0.0.1:${town.port}/enter` })).status, 303);
  const session = sessionSet(await signIn({}))!;
  const leave = await town.request('POST', '/leave', { headers: { ...cookie(session), Origin: 'http://evil.example' } });
  assert.is(leave.status, 403);
  assert.match((await town.request('GET', '/leave', { headers: cookie(session) })).text, /Signed in as/);
});

invited('GET /enter: the invitation and key forms, escaped; POST /leave forgets the cookie, the key stays good', async ({ town }) => {
  const door = await town.request('GET', '/enter?next=%22%3E%3Cscript%3E');
  assert.is(door.status, 200);
  assert.match(door.text, /name="code"/);
  assert.match(door.text, /name="credential"/);
  assert.not.match(door.text, /"><script>/);
  const { json: accepted } = await town.request('POST', '/AGENTS.md/accept', { json: { code: await town.invite(), name: 'ada' } });
  const session = sessionSet(await town.request('POST', '/enter', { form: { credential: accepted.credential }, headers: html }))!;
  const page = await town.request('GET', '/leave', { headers: cookie(session) });
  assert.is(page.text.match(/<button/g)?.length, 1);
  const left = await town.request('POST', '/leave', { headers: { ...cookie(session), Origin: 'http://town.test' } });
  assert.is(left.status, 303);
  assert.is(left.headers.location, '/leave');
  assert.match(left.headers['set-cookie']!.join(), /town_session=; .*Max-Age=0/);
  assert.match((await town.request('GET', '/leave', { headers: cookie(session) })).text, /not signed in/);
  assert.is((await town.request('GET', '/AGENTS.md/me', { headers: bearer(accepted.credential) })).status, 200, 'not revoked');
});

invited('revoking a credential signs its browsers out too', async ({ town }) => {
  const { json: accepted } = await town.request('POST', '/AGENTS.md/accept', { json: { code: await town.invite(), name: 'ada' } });
  const session = sessionSet(await town.request('POST', '/enter', { form: { credential: accepted.credential }, headers: html }))!;
  await town.request('POST', '/AGENTS.md/revoke', { headers: bearer(accepted.credential) });
  assert.match((await town.request('GET', '/leave', { headers: cookie(session) })).text, /not signed in/);
  const again = await town.request('POST', '/enter', { json: { credential: accepted.credential }, headers: json });
  assert.is(again.status, 401);
});

invited('restart between steps: spent and revoked codes, taken names, revoked keys and sessions survive', async ({ town }) => {
  const spent = await town.invite();
  const unused = await town.invite();
  const ada = (await town.request('POST', '/AGENTS.md/accept', { json: { code: spent, name: 'ada' } })).json;
  const bea = await town.request('POST', '/AGENTS.md/accept', { json: { code: await town.invite('bea') } });
  await town.request('POST', '/AGENTS.md/revoke', { headers: bearer(ada.credential) });
  await town.restart();
  assertIdentityRefusal(await town.request('POST', '/AGENTS.md/accept', { json: { code: spent, name: 'cat' } }), 'invitation_spent');
  assertIdentityRefusal(await town.request('POST', '/AGENTS.md/accept', { json: { code: unused, name: 'ada' } }), 'taken');
  assert.is((await town.request('GET', '/AGENTS.md/me', { headers: bearer(ada.credential) })).status, 401);
  assert.match((await town.request('GET', '/leave', { headers: cookie(sessionSet(bea)!) })).text, /Signed in as <span title="bea\.[^"]+">bea<\/span>/);
  assert.is((await town.request('GET', '/AGENTS.md/me', { headers: bearer(bea.json.credential) })).json.principal, 'guest:town.test:bea');
});

invited.run();
test.run();

// ---- open town ---------------------------------------------------------------------------

const open = suite<{ town: Town }>('identity over HTTP: open town');
open.after.each(async (ctx) => {
  assert.equal(ctx.town.errors, [], 'no request failed inside the front');
  await ctx.town.stop();
});

open('a client solves a real 18-bit proof and arrives end to end; GET arrive writes nothing', async (ctx) => {
  const town = (ctx.town = await startTown({ open: true }));
  const head = await town.temp.store.headPosition();
  const issued = await town.request('GET', '/AGENTS.md/arrive');
  assert.is(issued.status, 200, issued.text);
  assert.is(issued.json.bits, 18);
  assert.is(issued.json.expires, new Date(town.clock() + 600_000).toISOString());
  assert.type(issued.json.challenge, 'string');
  assert.is(await town.temp.store.headPosition(), head, 'issuing a challenge writes nothing');

  const nonce = solve(issued.json.challenge, 'ada', issued.json.bits);
  const arrived = await town.request('POST', '/AGENTS.md/arrive', { json: { name: 'ada', proof: { challenge: issued.json.challenge, nonce } } });
  assert.is(arrived.status, 200, arrived.text);
  assert.is(arrived.json.principal, 'guest:town.test:ada');
  assert.match(arrived.json.credential, /^svc_key_/);
  const session = sessionSet(arrived);
  assert.ok(session, 'arrive sets the session cookie');
  assert.match((await town.request('GET', '/leave', { headers: cookie(session) })).text, /Signed in as <span title="ada\.[^"]+">ada<\/span>/);
  const me = await town.request('GET', '/AGENTS.md/me', { headers: bearer(arrived.json.credential) });
  assert.is(me.json.principal, 'guest:town.test:ada');
  assert.is(me.json.turns, undefined, 'no turn quota is wired in yet');

  const again = await town.request('POST', '/AGENTS.md/arrive', { json: { name: 'ada', proof: { challenge: issued.json.challenge, nonce } } });
  assertIdentityRefusal(again, 'proof_spent');
});

open('every refusal of arrive, over HTTP, and a taken name leaves the proof for another name', async (ctx) => {
  const bits = 6;
  const town = (ctx.town = await startTown({ open: true, bits }));
  const challenge = async () => (await town.request('GET', '/AGENTS.md/arrive')).json.challenge as string;
  const post = (name: string, c: string, nonce: string) => town.request('POST', '/AGENTS.md/arrive', { json: { name, proof: { challenge: c, nonce } } });
  const c1 = await challenge();
  assertIdentityRefusal(await post('ada', `${c1}x`, '1'), 'proof_invalid');
  assertIdentityRefusal(await post('ada', c1, ''), 'proof_invalid');
  assertIdentityRefusal(await post('ada', c1, 'x'.repeat(65)), 'proof_invalid');
  assertIdentityRefusal(await post('Ada', c1, solve(c1, 'Ada', bits)), 'invalid_guest_name');
  let short = 0;
  while (solve(c1, 'ada', 0, short) === solve(c1, 'ada', bits, short)) short++;
  assertIdentityRefusal(await post('ada', c1, short.toString(36)), 'proof_short');
  assert.is((await post('ada', c1, solve(c1, 'ada', bits))).status, 200);
  const c2 = await challenge();
  assertIdentityRefusal(await post('ada', c2, solve(c2, 'ada', bits)), 'taken');
  assert.is((await post('bea', c2, solve(c2, 'bea', bits))).status, 200, 'the proof stayed unspent');
  const c3 = await challenge();
  town.clock.advance(600_000);
  assertIdentityRefusal(await post('cat', c3, solve(c3, 'cat', bits)), 'proof_expired');
});

open('the door of an open town carries a challenge; its plain form post arrives', async (ctx) => {
  const bits = 6;
  const town = (ctx.town = await startTown({ open: true, bits }));
  const door = await town.request('GET', '/enter');
  const challenge = /name="challenge" value="([^"]+)"/.exec(door.text)?.[1];
  assert.ok(challenge, 'the challenge is in the form');
  const posted = await town.request('POST', '/enter', { form: { name: 'ada', challenge, nonce: solve(challenge, 'ada', bits) }, headers: html });
  assert.is(posted.status, 200, posted.text);
  assert.match(posted.text, /svc_key_/);
  assert.ok(sessionSet(posted));
  const refused = await town.request('POST', '/enter', { form: { name: 'bea', challenge, nonce: solve(challenge, 'bea', bits) }, headers: html });
  assert.is(refused.status, 400);
  assert.match(refused.text, /proof_spent/);
});

open('30 arrivals an hour from one address, then rateLimited with Retry-After', async (ctx) => {
  const bits = 2;
  const town = (ctx.town = await startTown({ open: true, bits }));
  for (let i = 0; i < 31; i++) {
    // Stay inside the per-minute budget of identity calls, so the hourly arrival limit speaks.
    if (i % 7 === 0) town.clock.advance(61_000);
    const { challenge } = (await town.request('GET', '/AGENTS.md/arrive')).json;
    const name = `guest-${i}`;
    const reply = await town.request('POST', '/AGENTS.md/arrive', { json: { name, proof: { challenge, nonce: solve(challenge, name, bits) } } });
    if (i < 30) {
      assert.is(reply.status, 200, `arrival ${i}: ${reply.text}`);
      continue;
    }
    assert.is(reply.status, 429, reply.text);
    assert.is(reply.json.class, 'rateLimited');
    const retry = Number(reply.headers['retry-after']);
    assert.ok(retry > 0 && retry <= 3600, String(retry));
  }
});

open('turns and scratches appear in me when the world and scratch rooms provide them', async (ctx) => {
  const town = (ctx.town = await startTown({
    open: true,
    extra: {
      turns: async (principal) => ({ remaining: principal.length, next: '2026-11-23T13:00:00.000Z' }),
      scratches: async (principal) => [{ principal, world: 'scratch/one', lastTurn: 'x', expires: 'y' }],
    },
  }));
  const accepted = (await town.request('POST', '/AGENTS.md/accept', { json: { code: await town.invite(), name: 'ada' } })).json;
  const me = (await town.request('GET', '/AGENTS.md/me', { headers: bearer(accepted.credential) })).json;
  assert.equal(me.turns, { remaining: 'guest:town.test:ada'.length, next: '2026-11-23T13:00:00.000Z' });
  assert.equal(me.scratches, [{ principal: 'guest:town.test:ada', world: 'scratch/one', lastTurn: 'x', expires: 'y' }]);
  await setTownOpen(town.temp.store, town.clock, false);
  const closed = (await town.request('GET', '/AGENTS.md/me', { headers: bearer(accepted.credential) })).json;
  assert.is(closed.turns, undefined, 'an invited town counts no turns');
});

open.run();

/**
 * The app factory: auth, sessions, rate limits, scratch variants, decoding and `_links`, as a
 * room plugging handlers in sees them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyRecord } from '../../src/contract/typed.js';
import { limits } from '../../src/contract/limits.js';
import type { TownState } from '../../src/http/handler.js';
import type { SomeHandlers } from '../../src/http/route-types.js';
import { TownError } from '../../src/contract/town-error.js';
import { hrefOf } from '../../src/http/routes.js';
import { links } from '../../src/contract/links.js';
import { config, startTown, type Town } from './helpers.js';

const seen: TownState[] = [];
const record: SomeHandlers = {
  me: async (ctx) => {
    seen.push({ ...ctx.state });
    return { principal: ctx.state.caller?.principal, rateLimit: ctx.state.rateLimit };
  },
  turn: async (ctx) => {
    seen.push({ ...ctx.state });
    return { params: ctx.params, scratch: ctx.state.scratch ?? null, body: ctx.state.body, query: ctx.state.query };
  },
  world: async (ctx) => ({ scratch: ctx.state.scratch ?? null, route: ctx.state.route, _links: links({ next: hrefOf('world', {}, { after: 'b/c' }) }) }),
  object: async (ctx) => {
    if (ctx.params.object === 'hidden')
      throw new TownError('unknown', 'no card hidden that you may see', {
        hint: 'list the world',
        hintHref: '/AGENTS.md/world',
        fields: { object: 'hidden', status: 'overwritten?' },
      });
    return { object: ctx.params.object };
  },
  home: async (ctx) => {
    ctx.type = 'text/html';
    ctx.body = `<p>${ctx.state.caller?.name ?? 'guest'}</p>`;
  },
  play: async (ctx) => {
    ctx.type = 'text/html';
    ctx.body = `<p>play ${ctx.params.object} as ${ctx.state.caller?.name}</p>`;
  },
  revoke: async (ctx) => {
    ctx.status = 200;
    return undefined;
  },
  pending: async () => undefined,
  xrpc: async (ctx) => ({ caller: ctx.state.caller?.name ?? null, nsid: ctx.params.nsid }),
  enter: async (ctx) => ({ got: ctx.state.body }),
  playPost: async (ctx) => ({ got: ctx.state.body }),
};

let town: Town;
test.before(async () => {
  town = await startTown({ handlers: record });
});
test.after(async () => {
  await town.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(town.base + path, { headers, redirect: 'manual' });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(town.base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    redirect: 'manual',
  });
const ada = { Authorization: 'Bearer ada-credential' };

test('bearer routes: no header, another scheme, an unknown credential are 401 unauthenticated', async () => {
  for (const headers of [
    {} as Record<string, string>,
    { Authorization: 'Basic YWRhOng=' },
    { Authorization: 'Bearer' },
    { Authorization: 'Bearer nope' },
    { Authorization: 'ada-credential' },
  ]) {
    const r = await get('/AGENTS.md/me', headers);
    assert.is(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', 'Bearer');
    const body = await r.json();
    assert.is(body.class, 'unauthenticated');
  }
});

test('a verified bearer reaches the handler as the caller, with the rate budget it spent', async () => {
  const r = await get('/AGENTS.md/me', { Authorization: 'bearer   ada-credential' });
  assert.is(r.status, 200);
  const body = await r.json();
  assert.is(body.principal, 'guest:town.test:ada');
  assert.equal(Object.keys(body.rateLimit), ['limit', 'windowSeconds', 'remaining']);
  assert.equal(body._links, { self: { href: '/AGENTS.md/me' }, api: { href: '/AGENTS.md/api' } });
});

test('a turn: params, decoded body (argument defaults to the empty record), query', async () => {
  const r = await post('/AGENTS.md/world/hall%2Fdoor/knock?compact=1', { intent: 'k1' }, ada);
  assert.is(r.status, 200);
  const body = await r.json();
  assert.equal(body.params, { object: 'hall/door', method: 'knock' });
  assert.equal(body.body, { intent: 'k1', argument: emptyRecord });
  assert.is(body.query.compact, '1');
  assert.is(body.scratch, null);
});

test('scratch variants reach the same handler with ctx.state.scratch set', async () => {
  const r = await post('/AGENTS.md/scratch/lab/world/box/open', { intent: 'k2', fields: { a: 1 } }, ada);
  assert.is(r.status, 200);
  const body = await r.json();
  assert.is(body.scratch, 'lab');
  assert.equal(body.params.object, 'box');
  const w = await (await get('/AGENTS.md/scratch/lab/world', ada)).json();
  assert.equal([w.scratch, w.route], ['lab', 'world']);
  const town_ = await (await get('/AGENTS.md/world', ada)).json();
  assert.equal([town_.scratch, town_.route], [null, 'world']);
  assert.equal(town_._links.next, { href: '/AGENTS.md/world?after=b%2Fc' });
});

test('bodies refused by their codec are hostRequest, naming the field', async () => {
  const cases: [unknown, string][] = [
    [{ fields: {} }, '`intent` is required'],
    [{ intent: '' }, '`intent`'],
    [{ intent: 'a', fields: {}, spell: 'x' }, 'one of fields, spell, argument'],
    [{ intent: 'a', argument: { tag: 'natural', value: -1 } }, '`argument`'],
    [{ intent: 'a', if: [{ object: 'x', version: 'one' }] }, '`if[0].version`'],
    [{ intent: 'a', try: 'yes' }, '`try`'],
    [{ intent: 'a', argumnet: emptyRecord }, '`argumnet` is not a field'],
  ];
  for (const [body, message] of cases) {
    const r = await post('/AGENTS.md/world/box/open', body, ada);
    assert.is(r.status, 400, JSON.stringify(body));
    const e = await r.json();
    assert.is(e.class, 'hostRequest');
    assert.match(e.message, message);
  }
});

test('a module over 131072 bytes is 413 moduleTooLarge', async () => {
  const t = await startTown({ handlers: { check: async () => ({ ok: true }) } });
  try {
    const send = (source: string) =>
      fetch(`${t.base}/AGENTS.md/scratch/lab/check`, {
        method: 'POST',
        headers: { ...ada, 'Content-Type': 'application/json' },
        body: JSON.stringify({ source }),
      });
    assert.is((await send('x'.repeat(limits.moduleBytes))).status, 200);
    const r = await send('x'.repeat(limits.moduleBytes + 1));
    assert.is(r.status, 413);
    assert.is((await r.json()).class, 'moduleTooLarge');
  } finally {
    await t.close();
  }
});

test('a TownError keeps its extra fields beside the envelope, never over it', async () => {
  const r = await get('/AGENTS.md/world/hidden', ada);
  assert.is(r.status, 404);
  const e = await r.json();
  assert.equal(e, {
    status: 'refused',
    class: 'unknown',
    message: 'no card hidden that you may see',
    hint: 'list the world',
    object: 'hidden',
    _links: { self: { href: '/AGENTS.md/world/hidden' }, api: { href: '/AGENTS.md/api' }, hint: { href: '/AGENTS.md/world' } },
  });
});

test('a handler that answers nothing is 204; one that sets a status keeps it', async () => {
  assert.is((await get('/AGENTS.md/pending', ada)).status, 204);
  assert.is((await post('/AGENTS.md/revoke', {}, ada)).status, 200);
});

test('cookie pages: served as a guest without a session, as the caller with one', async () => {
  assert.is(await (await get('/')).text(), '<p>guest</p>');
  assert.is(await (await get('/', { Cookie: 'town_session=ada-session' })).text(), '<p>ada</p>');
  assert.is(await (await get('/', { Cookie: 'town_session=forged' })).text(), '<p>guest</p>');
});

test('play without a session redirects (303) to /enter; with one it is served', async () => {
  const r = await get('/play/box');
  assert.is(r.status, 303);
  assert.is(r.headers.get('location'), '/enter?next=%2Fplay%2Fbox');
  const p = await post('/play/box', 'text=hello', { 'Content-Type': 'application/x-www-form-urlencoded' });
  assert.is(p.status, 303);
  const ok = await get('/play/box', { Cookie: 'town_session=ada-session' });
  assert.is(await ok.text(), '<p>play box as ada</p>');
});

test('forms arrive urlencoded on form routes', async () => {
  const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const e = await post('/enter', 'code=svc_invite_x&name=ada', form);
  assert.equal((await e.json()).got, { code: 'svc_invite_x', name: 'ada' });
  const p = await post('/play/box', 'do=open&f.key=brass', { ...form, Cookie: 'town_session=ada-session' });
  assert.equal((await p.json()).got, { do: 'open', 'f.key': 'brass' });
  const bad = await post('/enter', 'nothing=here', { ...form, Accept: 'application/json' });
  assert.is(bad.status, 400);
  assert.is((await bad.json()).class, 'hostRequest');
  const page = await post('/enter', 'nothing=here', { ...form, Accept: 'text/html' });
  assert.is(page.status, 400);
  assert.match(page.headers.get('content-type') ?? '', 'text/html');
});

test('xrpc: an optional credential is used when it verifies and left to the handler when not', async () => {
  const anon = await (await get('/xrpc/com.atproto.sync.getRepo')).json();
  assert.equal([anon.caller, anon.nsid], [null, 'com.atproto.sync.getRepo']);
  const known = await (await get('/xrpc/x.y', ada)).json();
  assert.is(known.caller, 'ada');
  const jwt = await get('/xrpc/x.y', { Authorization: 'Bearer eyJhbGciOi.eyJpc3Mi.sig' });
  assert.is(jwt.status, 200);
  const unbuilt = await fetch(`${town.base}/xrpc/x.y`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
  assert.is(unbuilt.status, 501);
  assert.equal(await unbuilt.json(), {
    error: 'MethodNotImplemented',
    message: 'route xrpcProcedure is not built yet',
    _links: { self: { href: '/xrpc/x.y' }, api: { href: '/AGENTS.md/api' } },
  });
});

test('HEAD answers a GET route without a body', async () => {
  const r = await fetch(`${town.base}/AGENTS.md/api`, { method: 'HEAD' });
  assert.is(r.status, 200);
  assert.is(await r.text(), '');
});

test('every JSON reply and error carries a request id', async () => {
  const r = await get('/nowhere');
  assert.match(r.headers.get('x-request-id') ?? '', /^[0-9a-f]{6}-[0-9a-z]+$/);
});

test('an invited town has no arrive routes: 404 unknownRoute', async () => {
  const t = await startTown({ config: config(false), handlers: { arrive: async () => ({}), arriveChallenge: async () => ({}) } });
  try {
    for (const method of ['GET', 'POST']) {
      const r = await fetch(`${t.base}/AGENTS.md/arrive`, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
      assert.is(r.status, 404);
      assert.is((await r.json()).class, 'unknownRoute');
    }
  } finally {
    await t.close();
  }
});

test('a town the operator opens or closes while running: arrive and the catalogue follow', async () => {
  let open = false;
  const t = await startTown({ config: config(false), townOpen: async () => open, handlers: { arriveChallenge: async () => ({ challenge: 'c' }) } });
  try {
    const names = async () => (await (await fetch(`${t.base}/AGENTS.md/api`)).json()).routes.map((r: { name: string }) => r.name);
    assert.is((await fetch(`${t.base}/AGENTS.md/arrive`)).status, 404);
    assert.not.ok((await names()).includes('arrive'));
    open = true;
    assert.is((await fetch(`${t.base}/AGENTS.md/arrive`)).status, 200);
    assert.ok((await names()).includes('arrive'));
    assert.match(await (await fetch(`${t.base}/AGENTS.md`)).text(), 'GET /AGENTS.md/arrive');
    open = false;
    assert.is((await fetch(`${t.base}/AGENTS.md/arrive`)).status, 404);
    assert.not.match(await (await fetch(`${t.base}/AGENTS.md`)).text(), 'GET /AGENTS.md/arrive');
  } finally {
    await t.close();
  }
});

test('rate limits: per credential 32 a minute, counted in me.rateLimit; 429 with Retry-After', async () => {
  let now = 1_000_000;
  const t = await startTown({ limited: true, clock: () => now, handlers: record });
  try {
    const call = () => fetch(`${t.base}/AGENTS.md/me`, { headers: ada });
    for (let i = 1; i <= limits.ratePerCredential[0]; i++) {
      const body = await (await call()).json();
      assert.equal(body.rateLimit, { limit: 32, windowSeconds: 60, remaining: 32 - i });
    }
    const over = await call();
    assert.is(over.status, 429);
    assert.is((await over.json()).class, 'rateLimited');
    assert.is(over.headers.get('retry-after'), '60');
    // another credential has its own budget
    assert.is((await fetch(`${t.base}/AGENTS.md/me`, { headers: { Authorization: 'Bearer bob-credential' } })).status, 200);
    assert.is(t.app.limiters.credential.peek('hash-ada').remaining, 0);
    now += 60_000;
    assert.is((await call()).status, 200);
  } finally {
    await t.close();
  }
});

test('rate limits: unauthenticated identity calls 16 a minute per address', async () => {
  const t = await startTown({ limited: true, handlers: { accept: async () => ({ ok: true }) } });
  try {
    const call = () => fetch(`${t.base}/AGENTS.md/accept`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"code":"c"}' });
    for (let i = 0; i < limits.ratePerAddressOnChallengeAndVerify[0]; i++) assert.is((await call()).status, 200);
    const over = await call();
    assert.is(over.status, 429);
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    // the same address still reads the catalogue (not limited) and pages (their own budget)
    assert.is((await fetch(`${t.base}/AGENTS.md/api`)).status, 200);
  } finally {
    await t.close();
  }
});

test('rate limits: pages without login and /xrpc without credential, 32 a minute per address', async () => {
  const t = await startTown({ limited: true, handlers: record });
  try {
    for (const path of ['/', '/xrpc/x.y']) {
      for (let i = 0; i < 32; i++) assert.is((await fetch(t.base + path)).status, 200);
      assert.is((await fetch(t.base + path)).status, 429);
    }
    // signed in, a page spends the session's page budget, not the credential's API budget
    assert.is((await fetch(`${t.base}/`, { headers: { Cookie: 'town_session=ada-session' } })).status, 200);
    assert.is(t.app.limiters.session.peek('ada-session').remaining, limits.ratePerSessionOnPages[0] - 1);
    assert.is(t.app.limiters.credential.peek('hash-ada').remaining, limits.ratePerCredential[0]);
  } finally {
    await t.close();
  }
});

test.run();

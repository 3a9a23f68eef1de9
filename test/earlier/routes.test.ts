/**
 * Spec 9, "Other routes absent": a town started with TOWN_CATALOGUE=earlier answers the current
 * shape's own routes as absent, serves the earlier ones from the same table, and `/o?object=`
 * redirects to the card page; a default town keeps the current shape exactly.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settingsFromEnv } from '../../src/config.js';
import { routesFor } from '../../src/http/routes.js';
import type { Guest, TestTown } from '../world/support.js';
import { earlierGuest, startEarlierTown } from './support.js';

let t: TestTown;
let ann: Guest;

test.before(async () => {
  t = await startEarlierTown();
  ann = await earlierGuest(t, 'ann');
});
test.after(async () => {
  await t.close();
});

test('TOWN_CATALOGUE picks the shape; anything else is refused at start', () => {
  assert.is(settingsFromEnv({ TOWN_CATALOGUE: 'earlier' }).catalogue, 'earlier');
  assert.is(settingsFromEnv({ TOWN_CATALOGUE: 'current' }).catalogue, 'current');
  assert.is(settingsFromEnv({}).catalogue, undefined);
  assert.throws(() => settingsFromEnv({ TOWN_CATALOGUE: 'older' }), /TOWN_CATALOGUE/);
});

test('the two tables come from the one table: no row of one shape only is in the other', () => {
  const current = new Set(routesFor(true).map((r) => r.name));
  const earlier = new Set(routesFor(true, 'earlier').map((r) => r.name));
  for (const name of [
    'accept',
    'arrive',
    'feed',
    'feedPost',
    'cite',
    'scratch',
    'live',
    'liveObject',
    'history',
    'map',
    'town',
    'kinds',
    'library',
    'libraryPage',
  ])
    assert.not.ok(earlier.has(name), name);
  for (const name of ['receiptEarlier', 'heapObjects', 'checkEarlier', 'cardPageQuery', 'heap.world', 'heap.turn']) {
    assert.ok(earlier.has(name), name);
    assert.not.ok(current.has(name), name);
  }
  for (const name of ['world', 'object', 'card', 'source', 'turn', 'offers', 'pending', 'deliver', 'me', 'revoke', 'xrpc', 'cardPage', 'play'])
    assert.ok(earlier.has(name) && current.has(name), name);
  // Every earlier body is at most the earlier bodyBytes.
  for (const r of routesFor(true, 'earlier')) {
    assert.ok(r.bodyLimit <= 65536, r.name);
    assert.is.not(r.rate, 'page', `${r.name}: no page rate limit in the earlier shape`);
  }
});

test('the current shape\u2019s own routes answer as absent', async () => {
  const absent: [string, string][] = [
    ['POST', '/AGENTS.md/accept'],
    ['GET', '/AGENTS.md/arrive'],
    ['POST', '/AGENTS.md/arrive'],
    ['GET', '/AGENTS.md/feed'],
    ['POST', '/AGENTS.md/feed'],
    ['POST', '/AGENTS.md/scratch'],
    ['POST', '/AGENTS.md/scratch/a/cite'],
    ['GET', '/AGENTS.md/scratch/a/world'],
    ['GET', '/AGENTS.md/receipt?intent=x'],
    ['GET', '/live'],
    ['GET', '/live/town'],
    ['GET', '/history'],
    ['GET', '/map'],
    ['GET', '/town'],
    ['GET', '/kinds'],
    ['GET', '/library'],
    ['GET', '/library/core'],
    ['GET', '/feed'],
  ];
  for (const [method, path] of absent) {
    const r = await t.request(method, path, { token: ann.token, ...(method === 'POST' ? { json: {} } : {}) });
    assert.is(r.status, 404, `${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
    assert.is(r.json?.class, 'unknownRoute', `${method} ${path}`);
  }
});

test('routes of both shapes still serve', async () => {
  const world = await t.get('/AGENTS.md/world', ann.token);
  assert.is(world.status, 200, world.text);
  const me = await t.get('/AGENTS.md/me', ann.token);
  assert.is(me.status, 200, me.text);
  assert.is(me.json.principal, ann.principal);
});

test('the browser door takes no invitation and no arrival (no accept, no arrive): it signs a held key in', async () => {
  const page = await t.request('GET', '/enter');
  assert.is(page.status, 200);
  assert.not.match(page.text, /name="code"/, 'no invitation form');
  assert.not.match(page.text, /name="challenge"/, 'no arrival form');
  assert.match(page.text, /POST \/AGENTS\.md\/challenge/);
  assert.match(page.text, /name="credential"/, 'the key form stays');
  const invited = await t.request('POST', '/enter', { json: { code: 'any-code', name: 'zed' } });
  assert.is(invited.status, 400, invited.text);
  assert.is(invited.json.class, 'identity');
  assert.match(invited.json.message, /challenge/);
  const arriving = await t.request('POST', '/enter', { json: { name: 'zed', challenge: 'x', nonce: 'y' } });
  assert.is(arriving.json.class, 'identity');
  const key = await t.request('POST', '/enter', { json: { credential: ann.token } });
  assert.is(key.status, 200, key.text);
  assert.is(key.json.status, 'signedIn');
});

test('/o?object=<id> redirects to the card page; a bad or missing id is refused', async () => {
  const r = await t.request('GET', '/o?object=a/b.c');
  assert.is(r.status, 303, r.text);
  assert.is(r.headers.location, '/o/a%2Fb.c');
  const none = await t.request('GET', '/o', { json: undefined });
  assert.is(none.status, 400);
  const bad = await t.request('GET', '/o?object=has%20space');
  assert.is(bad.status, 400);
});

test('a default town has no earlier routes', async () => {
  const { startTestTown } = await import('../world/support.js');
  const d = await startTestTown();
  try {
    const g = await d.guest('bea');
    for (const [method, path] of [
      ['POST', '/AGENTS.md/heap/objects'],
      ['GET', '/AGENTS.md/heap/world'],
      ['POST', '/AGENTS.md/check'],
    ]) {
      const r = await d.request(method, path, { token: g.token, ...(method === 'POST' ? { json: {} } : {}) });
      assert.is(r.status, 404, `${method} ${path}`);
    }
    const o = await d.request('GET', '/o?object=x');
    assert.is(o.status, 404);
    // A receipt path is the current shape's slug route there.
    const r = await d.get('/AGENTS.md/receipt/nothing-here', g.token);
    assert.is(r.json.class, 'unknown');
  } finally {
    await d.close();
  }
});

test.run();

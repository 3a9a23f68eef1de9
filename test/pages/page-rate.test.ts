/**
 * Pages have their own budget: a signed-in person's pages and live streams
 * spend their session's page budget, never their credential's API budget; a reader without a
 * session spends the address's (spec 8: 32 a minute); a page over its budget is a styled page
 * that loads itself again after Retry-After (its script; browser/pages.test.ts watches it).
 */
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { defaultLimiters, type Limiters } from '../../src/contract/rate-limit.js';
import { clock, startPagesTown, type PagesTown } from './support.js';

const rate = suite<{ t: PagesTown; limiters: Limiters }>('page rate');

rate.before(async (ctx) => {
  // The town's own budgets, on a clock that stands still: every call below is in one minute.
  ctx.limiters = defaultLimiters(clock);
  // Streams are closed by the client at once; the shares are lifted so a close the town has not yet
  // seen never refuses the next (live-share.test.ts holds the shares).
  ctx.t = await startPagesTown({ holdMs: 200, perSession: 32, perAddress: 32 }, { limiters: ctx.limiters });
});
rate.after(async (ctx) => {
  await ctx.t.close();
});

/** Opens a live stream, and closes it once the town has answered (each a connection, a call). */
function liveOnce(base: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/live`, { headers: { accept: 'text/event-stream', cookie }, agent: false }, (res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
  });
}

rate('200 page views and 20 live streams in a minute by one signed-in person are served; the API limit of the same credential still holds', async ({ t }) => {
  const ann = await t.guest('ann');
  const pages = ['/', '/town', '/o/lamp', '/inspect/lamp', '/kinds', '/library', '/lib', '/history', '/map', '/play/lamp'];
  for (let i = 0; i < 200; i++) {
    const p = pages[i % pages.length]!;
    const r = await t.request('GET', p, { cookie: ann.cookie });
    assert.is(r.status, 200, `page view ${i + 1}: ${p}`);
  }
  for (let i = 0; i < 20; i++) assert.is(await liveOnce(t.base, ann.cookie), 200, `live stream ${i + 1}`);
  // None of that touched ann's API budget: all 32 calls are still hers.
  for (let i = 1; i <= limits.ratePerCredential[0]; i++) {
    const me = await t.request('GET', '/AGENTS.md/me', { token: ann.token });
    assert.is(me.status, 200, `API call ${i}`);
    assert.is(me.json.rateLimit.remaining, limits.ratePerCredential[0] - i);
  }
  const over = await t.request('GET', '/AGENTS.md/me', { token: ann.token });
  assert.is(over.status, 429);
  assert.is(over.json.class, 'rateLimited');
  // Over her API budget, ann still browses.
  assert.is((await t.request('GET', '/town', { cookie: ann.cookie })).status, 200);
});

rate('a session has its own page budget: past it, a styled 429 page that retries by itself', async ({ t, limiters }) => {
  const bob = await t.guest('bob');
  const [budget] = limits.ratePerSessionOnPages;
  // Bob has browsed a lot: his session's budget spent but one (the front keys it by the session id).
  const session = bob.cookie.slice('town_session='.length);
  for (let i = 1; i < budget; i++) assert.ok(limiters.session.take(session).ok);
  assert.is((await t.request('GET', '/library', { cookie: bob.cookie })).status, 200, 'the last page of the minute');
  const over = await t.request('GET', '/library', { cookie: bob.cookie });
  assert.is(over.status, 429);
  assert.match(String(over.headers['content-type']), /^text\/html/);
  const wait = Number(over.headers['retry-after']);
  assert.ok(wait >= 1);
  assert.match(over.text, new RegExp(`<body data-retry-after="${wait}">`));
  assert.match(over.text, /<a href="\/library">Try again now<\/a>/);
  assert.match(over.text, /<link rel="stylesheet" href="\/static\/town.css">/);
  assert.match(over.text, /<nav aria-label="the town">/);
  assert.match(over.text, /title="bob\.town\.test">bob<\/span> <a href="\/leave">/, 'the navigation names bob, not "enter"');
  assert.not.match(over.text, /href="\/enter"/);
  // Another session is not affected.
  const cat = await t.guest('cat');
  assert.is((await t.request('GET', '/library', { cookie: cat.cookie })).status, 200);
});

rate('pages without a session: 32 a minute per address (spec 8), then the 429 page offers the door', async ({ t }) => {
  const [budget] = limits.ratePerAddressOnPagesWithoutLogin;
  let served = 0;
  for (; served < budget + 1; served++) if ((await t.request('GET', '/kinds')).status !== 200) break;
  assert.is(served, budget);
  const over = await t.request('GET', '/kinds');
  assert.is(over.status, 429);
  assert.match(over.text, /<body data-retry-after="\d+">/);
  assert.match(over.text, /href="\/enter"/);
  // The address's signed-out budget is not the signed-in's.
  const dan = await t.guest('dan');
  assert.is((await t.request('GET', '/kinds', { cookie: dan.cookie })).status, 200);
});

rate.run();

/**
 * Failures a person meets, and the headers every reply carries: a page
 * that fails is a styled page with navigation that says what happened and what to do next (404,
 * 429, 501 alike), naming the signed-in guest instead of offering the door; an agent still gets
 * the JSON envelope; and every reply — a page, JSON, an envelope echoing the path, a refusal
 * written straight to the socket — carries the policy, nosniff, no framing and a referrer policy.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TownError } from '../../src/contract/town-error.js';
import { contentSecurityPolicy } from '../../src/contract/security-headers.js';
import { errorPage } from '../../src/pages/error-page.js';
import { config, raw, startTown, type Town } from '../http/helpers.js';

let t: Town;
test.before(async () => {
  // No room handlers: every page route but the front's own is "not built" (501).
  t = await startTown({ config: config(false) });
});
test.after(async () => {
  await t.close();
});

const browser = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const signedIn = { ...browser, Cookie: 'town_session=ada-session' };

function secured(headers: Headers, what: string) {
  assert.is(headers.get('content-security-policy'), contentSecurityPolicy, what);
  assert.match(contentSecurityPolicy, /script-src 'self'/);
  assert.match(contentSecurityPolicy, /frame-ancestors 'none'/);
  assert.not.match(contentSecurityPolicy, /unsafe-inline/);
  assert.is(headers.get('x-content-type-options'), 'nosniff', what);
  assert.is(headers.get('x-frame-options'), 'DENY', what);
  assert.is(headers.get('referrer-policy'), 'same-origin', what);
}

test('a page not built yet is a styled 501 page with navigation; signed in, it names the guest', async () => {
  const out = await fetch(`${t.base}/o/ada.town.test/book`, { headers: browser });
  assert.is(out.status, 501);
  assert.match(out.headers.get('content-type') ?? '', /^text\/html/);
  secured(out.headers, '501 page');
  const page = await out.text();
  assert.match(page, /<link rel="stylesheet" href="\/static\/town.css">/);
  assert.match(page, /<a class="skip" href="#main">/);
  assert.match(page, /<h1>Not built yet<\/h1>/);
  assert.match(page, /route book is not built yet/);
  assert.match(page, /<nav aria-label="the town">[\s\S]*href="\/enter"/);
  const inside = await (await fetch(`${t.base}/o/ada.town.test/book`, { headers: signedIn })).text();
  assert.match(inside, /title="ada\.town\.test">ada<\/span> <a href="\/leave">/);
  assert.not.match(inside, /href="\/enter"/);
});

test('no such page: a browser gets a page (with who is signed in), an agent the envelope', async () => {
  const page = await fetch(`${t.base}/no/such/page`, { headers: signedIn });
  assert.is(page.status, 404);
  secured(page.headers, '404 page');
  const html = await page.text();
  assert.match(html, /<h1>No such page<\/h1>/);
  assert.match(html, /ada\.town\.test/, 'the session is read even though no route matched');
  const agent = await fetch(`${t.base}/no/such/page`);
  assert.is(agent.status, 404);
  assert.is((await agent.json()).class, 'unknownRoute');
  // The agents' paths answer JSON even to a browser.
  const api = await fetch(`${t.base}/AGENTS.md/nope`, { headers: browser });
  assert.match(api.headers.get('content-type') ?? '', /^application\/json/);
});

test('a JSON error that echoes the path is nosniff; the guide and the catalogue carry the headers too', async () => {
  const echoed = await fetch(`${t.base}/static/%3Cscript%3Ealert(1)%3C%2Fscript%3E.html`);
  assert.match(echoed.headers.get('content-type') ?? '', /^application\/json/);
  secured(echoed.headers, 'an envelope naming the path');
  secured((await fetch(`${t.base}/AGENTS.md`)).headers, 'the guide');
  secured((await fetch(`${t.base}/AGENTS.md/api`)).headers, 'the catalogue');
  secured((await fetch(`${t.base}/health`)).headers, 'the probe');
});

test('a refusal written straight to the socket (below koa) carries them too', async () => {
  const r = await raw(t.port, Buffer.from('GET / HTTP/2.0\r\nHost: x\r\n\r\n'));
  assert.is(r.status, 505);
  assert.is(r.headers['x-content-type-options'], 'nosniff');
  assert.is(r.headers['content-security-policy'], contentSecurityPolicy);
  assert.is(r.headers['x-frame-options'], 'DENY');
});

test('the error page of each class says what happened and what to do next, escaped', () => {
  const evil = '<script>alert(1)</script>';
  for (const [cls, title] of [
    ['unknown', 'Nothing here by that name'],
    ['rateLimited', 'Too many at once'],
    ['notImplemented', 'Not built yet'],
    ['hostTimeout', 'The town took too long'],
  ] as const) {
    const { html, status } = errorPage(new TownError(cls, evil, { hint: evil, headers: { 'Retry-After': '7' } }), undefined, '/town');
    assert.ok(status >= 400);
    assert.match(html, `<h1>${title}</h1>`);
    assert.not.match(html, /<script>alert/);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  }
  const slow = errorPage(new TownError('rateLimited', 'over', { headers: { 'Retry-After': '7' } }), { handle: 'ada.town.test', name: 'ada' }, '/town').html;
  assert.match(slow, /<body data-retry-after="7">/);
  assert.match(slow, /<a href="\/town">Try again now<\/a>/);
  assert.not.match(slow, /http-equiv="refresh"/);
  // A path that is not this town's own is never offered as a link.
  assert.match(errorPage(new TownError('busy', 'busy'), undefined, '//elsewhere.example/x').html, /<a href="\/">Try again now<\/a>/);
});

test.run();

/**
 * The feed page for people (spec 4.6): threads with the town's answers and receipts, a post box
 * when signed in, POST /feed answering 303 back to /feed, every guest text escaped, and a form
 * from another site refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Guest, request, startTestTown, type TestTown } from '../world/support.js';

let t: TestTown;
let ada: Guest;
let cookie: string;

test.before(async () => {
  t = await startTestTown();
  ada = await t.guest('ada');
  const door = await request(t.base, 'POST', '/enter', { json: { credential: ada.token } });
  cookie = String(door.headers['set-cookie']).split(';')[0]!;
});
test.after(async () => {
  await t.close();
});

const html = { accept: 'text/html' };

test('signed out: the threads, no post box; signed in: a post box', async () => {
  const out = await request(t.base, 'GET', '/feed', { headers: html });
  assert.is(out.status, 200);
  assert.match(out.text, /<h1>The feed<\/h1>/);
  assert.not.match(out.text, /<textarea/);
  const inside = await request(t.base, 'GET', '/feed', { cookie, headers: html });
  assert.match(inside.text, /<form method="post" action="\/feed"/);
});

test('a form post is 303 back to /feed; the page then shows the town’s answer with its receipt page, and says to reload until then', async () => {
  const r = await request(t.base, 'POST', '/feed', { cookie, form: { text: 'hello from a page' }, headers: { ...html, origin: t.base } });
  assert.is(r.status, 303, r.text);
  assert.is(r.headers.location, '/feed');
  const until = Date.now() + 2000;
  let page = await request(t.base, 'GET', '/feed', { cookie, headers: html });
  assert.match(page.text, /hello from a page/);
  while (!/receipt <a href="\/receipt\//.test(page.text) && Date.now() < until) {
    assert.match(page.text, /reload this page/, 'a page still waiting for the town says to reload');
    assert.is(page.headers.refresh, undefined, 'a reply being typed is never reloaded away');
    await new Promise((r) => setTimeout(r, 50));
    page = await request(t.base, 'GET', '/feed', { cookie, headers: html });
  }
  assert.match(page.text, /<b>the town<\/b>/);
  assert.match(page.text, /receipt <a href="\/receipt\/[a-z-]+">/);
  assert.not.match(page.text, /reload this page/, 'answered: nothing to wait for');
  // the receipt's page, for people
  const slug = /receipt <a href="\/receipt\/([a-z-]+)">/.exec(page.text)![1];
  const receipt = await request(t.base, 'GET', `/receipt/${slug}`, { headers: html });
  assert.is(receipt.status, 200);
  assert.match(receipt.text, /<h1>Receipt: done<\/h1>/);
});

test('every guest text is escaped', async () => {
  const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
  const r = await t.post('/AGENTS.md/feed', ada.token, { text: evil });
  assert.is(r.status, 200, r.text);
  const page = await request(t.base, 'GET', '/feed', { cookie, headers: html });
  assert.not.ok(page.text.includes('<script>alert(1)'), 'no guest markup');
  assert.not.ok(page.text.includes('<img src=x'), 'no guest markup');
  assert.ok(page.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;'));
});

test('a form of another site cannot post; signed out, POST /feed goes to the door', async () => {
  const cross = await request(t.base, 'POST', '/feed', { cookie, form: { text: 'forged' }, headers: { ...html, origin: 'https://evil.example' } });
  assert.is(cross.status, 403);
  const page = await request(t.base, 'GET', '/feed', { cookie, headers: html });
  assert.not.match(page.text, /forged/);
  const out = await request(t.base, 'POST', '/feed', { form: { text: 'who am i' }, headers: html });
  assert.is(out.status, 303);
  assert.match(String(out.headers.location), /^\/enter\?next=/);
});

test('an empty post from the page is refused with a page, not a 500', async () => {
  const r = await request(t.base, 'POST', '/feed', { cookie, form: { text: '  ' }, headers: { ...html, origin: t.base } });
  assert.is(r.status, 400);
  assert.match(String(r.headers['content-type']), /text\/html/);
});

test.run();

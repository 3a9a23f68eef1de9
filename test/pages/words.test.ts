/**
 * People's words on every page: each page for people, signed in and out, is read as a person
 * reads it (tags, attributes, scripts and the verbatim <code> and <pre> it quotes taken out) and
 * none of the API's words shows: no guide path, no queue or depth, no error class, no card
 * version talk, no `localhost` of a town served on one. Dates read as people write them, inside
 * <time datetime>. /play (no slash) goes to /play/; a receipt has a page of its own, which the
 * feed links to; /history follows the town live.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { feedPage } from '../../src/pages/feed-page.js';
import { readableTime } from '../../src/pages/layout.js';
import { startPagesTown, turn, type PageGuest, type PagesTown } from './support.js';

const words = suite<{ t: PagesTown; ann: PageGuest; slug: string }>('pages in people’s words');

words.before(async (ctx) => {
  // a town served on localhost: its guests' handles end in .localhost
  ctx.t = await startPagesTown(undefined, { origin: 'http://localhost:8080' });
  ctx.ann = await ctx.t.guest('ann');
  const lit = await turn(ctx.t, ctx.ann, 'lamp', 'fill', { fields: { measures: '2' } });
  ctx.slug = lit.receipt.slug;
  await turn(ctx.t, ctx.ann, `avatar-ann`, 'take', { fields: { thing: 'lamp' } });
});
words.after(async (ctx) => {
  await ctx.t.close();
});

/** What a person reads of a page: no markup, no attribute, no quoted code. */
export function visibleText(html: string): string {
  return html
    .replace(/<(script|style|pre|code)\b[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

/** API words no page shows a person. */
const apiWords = [/\/AGENTS\.md/, /\bqueued\b/i, /\bdepth\b/i, /unknownRoute/, /stands at version/i, /localhost/i, /no route (GET|POST)/, /\/xrpc\//];

const pagesToRead = (ann: string, slug: string) => [
  '/',
  '/town',
  '/town?open=square',
  '/map',
  '/map?from=post-office',
  '/kinds',
  '/library',
  '/library/lamp',
  '/library/market',
  '/library/postbox',
  '/lib',
  '/lib/lamp',
  '/history',
  '/enter',
  '/o/lamp',
  '/o/lamp?show=law,source,receipts',
  '/o/post-office',
  '/o/workshop',
  '/o/market',
  '/inspect/lamp',
  `/o/${ann}/book`,
  `/receipt/${encodeURIComponent(slug)}`,
  '/style/',
  // error pages
  '/no-such-page',
  '/o/dragon',
  '/receipt/no-such-receipt',
  '/play/dragon',
];

words('no page shows a person the API’s words, signed in or out', async ({ t, ann, slug }) => {
  const seen: string[] = [];
  const handle = 'ann.localhost';
  for (const signedIn of [true, false]) {
    const paths = [...pagesToRead(handle, slug), ...(signedIn ? ['/play/avatar-ann', '/play/lamp', '/play/market', '/play/post-office', '/leave'] : [])];
    for (const p of paths) {
      const r = await t.request('GET', p, signedIn ? { cookie: ann.cookie } : {});
      assert.ok(r.status < 500, `${p}: ${r.status}`);
      assert.match(String(r.headers['content-type']), /^text\/html/, `${p} is a page`);
      const text = visibleText(r.text);
      for (const w of apiWords) {
        const at = w.exec(text);
        if (at) seen.push(`${p} (${signedIn ? 'signed in' : 'signed out'}): "${text.slice(Math.max(0, at.index - 60), at.index + 60)}"`);
      }
    }
  }
  assert.equal(seen, [], 'pages in people’s words');
});

words('a receipt on the play page is in people’s words, done or refused', async ({ t, ann }) => {
  const plays: [string, Record<string, string>][] = [
    ['/play/market', { do: 'purse' }],
    ['/play/market', { do: 'sell?item=lamp', 'f.price': '2' }],
    ['/play/market', { do: 'buy?item=lamp&to=avatar-ann' }],
    ['/play/lamp', { do: 'fill', 'f.measures': '12' }],
    ['/play/avatar-ann', { do: 'go?room=post-office' }],
    ['/play/postbox', { do: 'post?to=notice-board&text=hello&copies=20' }],
    ['/play/avatar-ann', { do: 'go?room=square' }],
  ];
  const seen: string[] = [];
  for (const [p, form] of plays) {
    const r = await t.request('POST', p, { cookie: ann.cookie, form });
    assert.is(r.status, 200, `${p} ${JSON.stringify(form)}`);
    assert.match(r.text, /<section class="receipt (done|refused)"/);
    const text = visibleText(r.text);
    for (const w of apiWords) {
      const at = w.exec(text);
      if (at) seen.push(`POST ${p} ${JSON.stringify(form)}: "${text.slice(Math.max(0, at.index - 60), at.index + 60)}"`);
    }
  }
  assert.equal(seen, [], 'receipts in people’s words');
  const refused = await t.request('POST', '/play/lamp', { cookie: ann.cookie, form: { do: 'fill', 'f.measures': '12' } });
  assert.match(refused.text, /<h2>Not done<\/h2>/);
  assert.match(refused.text, /<dt>class<\/dt><dd><code>[A-Za-z]+<\/code><\/dd>/);
});

words('error pages say what happened in plain words, the class only in a small code line', async ({ t, ann }) => {
  const r = await t.request('GET', '/no-such-page', { cookie: ann.cookie });
  assert.is(r.status, 404);
  assert.match(r.text, /<h1>No such page<\/h1>/);
  assert.match(r.text, /<p class="h"><code>404 unknownRoute<\/code><\/p>/);
  assert.not.match(visibleText(r.text), /no route/);
});

words('dates read as people write them, inside <time datetime>', async ({ t, ann }) => {
  assert.is(readableTime(Date.UTC(2026, 11, 6, 19, 40)), '6 Dec 2026, 19:40 UTC');
  const history = await t.request('GET', '/history', { cookie: ann.cookie });
  assert.match(history.text, /<time datetime="2026-11-23T00:00:00\.000Z">23 Nov 2026<\/time>/);
  assert.match(history.text, /<time datetime="2026-11-23T12:00:00\.000Z">12:00 UTC<\/time>/);
  const book = await t.request('GET', '/o/ann.localhost/book', { cookie: ann.cookie });
  assert.match(book.text, /<time datetime="2026-11-23T12:00:00\.000Z">23 Nov 2026, 12:00 UTC<\/time>/);
  for (const page of [history, book]) assert.not.match(visibleText(page.text), /\d{4}-\d\d-\d\dT/);
});

words('/play goes to /play/; /history follows the town live', async ({ t, ann }) => {
  const bare = await t.request('GET', '/play', { cookie: ann.cookie });
  assert.is(bare.status, 301);
  assert.is(bare.headers.location, '/play/');
  const slash = await t.request('GET', '/play/', { cookie: ann.cookie });
  assert.is(slash.status, 303);
  assert.match(String(slash.headers.location), /^\/play\/avatar-ann/);
  const history = await t.request('GET', '/history', { cookie: ann.cookie });
  assert.match(history.text, /<body data-live="\d+">/);
  const out = await t.request('GET', '/history');
  assert.not.match(out.text, /data-live/, 'only a signed-in page follows the streams');
});

words('a receipt has a page in words, and the feed links to it', async ({ t, slug }) => {
  const page = await t.request('GET', `/receipt/${encodeURIComponent(slug)}`);
  assert.is(page.status, 200);
  assert.match(page.text, /<h1>Receipt: done<\/h1>/);
  assert.match(page.text, /<dt>to<\/dt><dd><a href="\/o\/lamp">lamp<\/a><\/dd><dt>by<\/dt><dd>ann<\/dd><dt>when<\/dt><dd><time datetime="/);
  assert.match(page.text, /<details class="exact-receipt"><summary>the exact receipt<\/summary>[\s\S]*<code>fill<\/code>/);
  const missing = await t.request('GET', '/receipt/no-such-receipt');
  assert.is(missing.status, 404);
  // the feed page's receipt links lead to that page, not to the API's receipt route
  const post = (text: string, town: boolean) => ({
    uri: `at://did:web:localhost/town.feed.post/${town ? 2 : 1}`,
    author: town ? { did: 'did:web:localhost', handle: 'localhost' } : { did: 'did:web:localhost:guest:ann', handle: 'ann.localhost' },
    createdAt: '2026-11-23T12:00:00.000Z',
    text,
    root: 'at://did:web:localhost/town.feed.post/1',
    town,
    ...(town ? { receipt: { slug, cid: 'bafy', height: 9 } } : {}),
  });
  const feed = feedPage(undefined, [{ post: post('hello town', false), replies: [post('Hello, ann.localhost.', true)] }], 9, undefined, 'localhost:8080');
  assert.match(visibleText(feed), /Hello, ann\./);
  assert.not.match(visibleText(feed), /localhost/);
  assert.match(feed, `href="/receipt/${encodeURIComponent(slug)}"`);
  assert.not.match(feed, /\/AGENTS\.md/);
  assert.match(feed, /<span title="ann\.localhost">ann<\/span> · <time datetime="2026-11-23T12:00:00\.000Z">23 Nov 2026, 12:00 UTC<\/time>/);
  assert.not.match(feed, /data-waiting/, 'answered: nothing to wait for');
  const waitingPage = feedPage(undefined, [{ post: post('anyone?', false), replies: [] }], 9);
  assert.match(waitingPage, /<body data-waiting="">/, 'the script looks again while the town answers');
  const waiting = visibleText(waitingPage);
  assert.match(waiting, /reload this page/);
  assert.not.match(waiting, /by itself/);
});

words.run();

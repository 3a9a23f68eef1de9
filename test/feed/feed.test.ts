/**
 * The town feed end to end over HTTP (spec 2.9, 4.4, 4.6): posts, replies and roots, the town's
 * answer with a receipt that resolves, thread and before paging, the quota, every refusal.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { type Guest, request, startTestTown, type TestTown } from '../world/support.js';

let t: TestTown;
let ada: Guest;
let bob: Guest;

test.before(async () => {
  t = await startTestTown();
  ada = await t.guest('ada');
  bob = await t.guest('bob');
});
test.after(async () => {
  await t.close();
});

/** Reads the feed until `ok` holds of it (the town answers within seconds), or fails after `ms`. */
async function feedUntil(token: string, ok: (threads: any[]) => boolean, query = '', ms = 2000): Promise<any[]> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await t.get(`/AGENTS.md/feed${query}`, token);
    assert.is(r.status, 200, r.text);
    if (ok(r.json.threads)) return r.json.threads;
    if (Date.now() > until) throw new Error(`the feed did not get there within ${ms} ms: ${r.text.slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a post answers with the fields of 2.9, and the town answers under it within 2 s with a receipt that resolves', async () => {
  const started = Date.now();
  const r = await t.post('/AGENTS.md/feed', ada.token, { text: 'hello town' });
  assert.is(r.status, 200, r.text);
  const post = r.json;
  assert.match(post.uri, /^at:\/\/did:web:town\.test\/town\.feed\.post\/[2-7a-z]{13}$/);
  assert.equal(post.author, { did: 'did:web:town.test:guest:ada', handle: 'ada.town.test' });
  assert.is(post.text, 'hello town');
  assert.is(post.root, post.uri);
  assert.is(post.replyTo, undefined);
  assert.is(post.town, false);
  assert.is(post.createdAt, new Date(t.clock()).toISOString());
  assert.ok(post._links.thread.href.includes(encodeURIComponent(post.uri)));

  const threads = await feedUntil(ada.token, (th) => th.some((x: any) => x.post.uri === post.uri && x.replies.some((p: any) => p.town)));
  const answeredWithin = Date.now() - started;
  assert.ok(answeredWithin < 2000, `answered in ${answeredWithin} ms`);
  const thread = threads.find((x: any) => x.post.uri === post.uri);
  const answer = thread.replies.find((p: any) => p.town);
  assert.is(answer.replyTo, post.uri);
  assert.is(answer.root, post.uri);
  assert.is(answer.author.did, 'did:web:town.test');
  assert.match(answer.text, /Hello, /);
  assert.ok(answer.receipt?.slug, 'the answer carries its receipt');
  const receipt = await t.get(`/AGENTS.md/receipt/${encodeURIComponent(answer.receipt.slug)}`, ada.token);
  assert.is(receipt.status, 200, receipt.text);
  assert.is(receipt.json.object ?? receipt.json.receipt?.object ?? 'town', 'town');
  // The turn was the author's, under the intent derived from the post.
  const byIntent = await t.get(`/AGENTS.md/receipt?intent=${encodeURIComponent(`feed:${post.uri.slice(post.uri.lastIndexOf('/') + 1)}`)}`, ada.token);
  assert.is(byIntent.status, 200, byIntent.text);
});

test('replies name their parent and root; the town answers only top-level posts', async () => {
  const top = (await t.post('/AGENTS.md/feed', ada.token, { text: 'what are kinds?' })).json;
  const reply = await t.post('/AGENTS.md/feed', bob.token, { text: 'lamps and doors', reply_to: top.uri });
  assert.is(reply.status, 200, reply.text);
  assert.is(reply.json.replyTo, top.uri);
  assert.is(reply.json.root, top.uri);
  const deeper = await t.post('/AGENTS.md/feed', ada.token, { text: 'thanks', reply_to: reply.json.uri });
  assert.is(deeper.json.replyTo, reply.json.uri);
  assert.is(deeper.json.root, top.uri, 'a reply to a reply keeps the root');
  const [thread] = await feedUntil(ada.token, (th) => th.length === 1 && th[0].replies.length === 3, `?thread=${encodeURIComponent(top.uri)}`);
  const uris = thread.replies.map((p: any) => p.uri);
  assert.equal(uris, [...uris].sort(), 'replies in the order they were posted');
  assert.equal(
    thread.replies.filter((p: any) => !p.town).map((p: any) => p.text),
    ['lamps and doors', 'thanks'],
  );
  assert.is(thread.replies.filter((p: any) => p.town).length, 1, 'one answer, to the top-level post only');
});

test('threads come newest activity first (a post or an answer in it); before pages to older threads', async () => {
  const posts: { uri: string }[] = [];
  for (let i = 0; i < 23; i++) {
    // Spread over two clock hours: one guest may post 20 times an hour.
    t.clock.advance(200_000);
    const r = await t.post('/AGENTS.md/feed', bob.token, { text: `page post ${i}` });
    assert.is(r.status, 200, r.text);
    posts.push(r.json);
  }
  const answered = (th: any) => th.replies.some((p: any) => p.town);
  const newest = (th: any) => [th.post.uri, ...th.replies.map((p: any) => p.uri)].sort().at(-1);
  await feedUntil(bob.token, (th) => th.length === 20 && th.every(answered) && th.some((x: any) => x.post.uri === posts[22]!.uri));
  const seen: any[] = [];
  let href: string | undefined = '/AGENTS.md/feed';
  while (href) {
    const page = await t.get(href, bob.token);
    assert.is(page.status, 200, page.text);
    assert.ok(page.json.threads.length <= 20);
    seen.push(...page.json.threads);
    href = page.json._links.next?.href;
  }
  const lasts = seen.map(newest);
  assert.equal(lasts, [...lasts].sort().reverse(), 'newest activity first, across pages');
  assert.is(new Set(seen.map((x) => x.post.uri)).size, seen.length, 'no thread on two pages');
  for (const p of posts)
    assert.ok(
      seen.some((x) => x.post.uri === p.uri),
      'every thread on some page',
    );
  // Activity moves a thread up: a reply to an old thread brings it first.
  t.clock.advance(60_000);
  await t.post('/AGENTS.md/feed', ada.token, { text: 'bump', reply_to: posts[0]!.uri });
  await feedUntil(ada.token, (th) => th[0]?.post.uri === posts[0]!.uri);
});

test('@name in a post reaches that resident as a line of the town card', async () => {
  const r = await t.post('/AGENTS.md/feed', ada.token, { text: 'has anyone seen @bob, or @cy?' });
  assert.is(r.status, 200, r.text);
  await feedUntil(ada.token, (th) => th.some((x: any) => x.post.uri === r.json.uri && x.replies.some((p: any) => p.town)));
  const card = await t.get('/AGENTS.md/world/town/card', bob.token);
  assert.ok(
    card.json.lines.some((l: string) => l.startsWith('ada.town.test mentions @bob:')),
    JSON.stringify(card.json.lines),
  );
  assert.ok(card.json.lines.some((l: string) => l.startsWith('ada.town.test mentions @cy:')));
});

test('refusals: empty, white space, non-text, too long, unknown fields, a reply_to that names no post, unknown thread', async () => {
  const cases: [unknown, number, string][] = [
    [{ text: '' }, 400, 'hostRequest'],
    [{ text: '   \n ' }, 400, 'hostRequest'],
    [{ text: 42 }, 400, 'hostRequest'],
    [{ text: 'x'.repeat(limits.feedPostChars + 1) }, 400, 'hostRequest'],
    [{ txt: 'hi' }, 400, 'hostRequest'],
    [{ text: 'hi', reply_to: 'at://did:web:town.test/town.feed.post/3zzzzzzzzzzzz' }, 400, 'hostRequest'],
    [{ text: 'hi', reply_to: 'at://did:web:elsewhere.test/town.feed.post/3kabcdefghijk' }, 400, 'hostRequest'],
    [{ text: 'hi', reply_to: 'not a uri' }, 400, 'hostRequest'],
  ];
  for (const [body, status, cls] of cases) {
    const r = await t.post('/AGENTS.md/feed', ada.token, body);
    assert.is(r.status, status, `${JSON.stringify(body).slice(0, 80)}: ${r.text}`);
    assert.is(r.json.class, cls);
    assert.ok(r.json._links.self);
  }
  const notJson = await request(t.base, 'POST', '/AGENTS.md/feed', { token: ada.token, headers: { 'content-type': 'application/json' } });
  assert.is(notJson.status, 400);
  const unknownThread = await t.get(`/AGENTS.md/feed?thread=${encodeURIComponent('at://did:web:town.test/town.feed.post/3kabcdefghijk')}`, ada.token);
  assert.is(unknownThread.status, 404, unknownThread.text);
  assert.is(unknownThread.json.class, 'unknown');
  const badBefore = await t.get('/AGENTS.md/feed?before=nope', ada.token);
  assert.is(badBefore.status, 400);
});

test('the JSON feed routes take only the bearer header: a session cookie alone is 401', async () => {
  const door = await request(t.base, 'POST', '/enter', { json: { credential: ada.token } });
  const cookie = String(door.headers['set-cookie']).split(';')[0]!;
  const read = await request(t.base, 'GET', '/AGENTS.md/feed', { cookie });
  assert.is(read.status, 401);
  assert.is(read.json.class, 'unauthenticated');
  const write = await request(t.base, 'POST', '/AGENTS.md/feed', { cookie, json: { text: 'via cookie' } });
  assert.is(write.status, 401);
});

test('feed quota: me shows what is left; past it, rateLimited with Retry-After until the hour turns', async () => {
  const cy = await t.guest('cy');
  const me = await t.get('/AGENTS.md/me', cy.token);
  assert.equal({ limit: me.json.feed.limit, remaining: me.json.feed.remaining }, { limit: limits.feedQuotaPerHour, remaining: limits.feedQuotaPerHour });
  // Start at the top of an hour so the quota does not turn over midway.
  const hour = 3_600_000;
  t.clock.set((Math.floor(t.clock() / hour) + 1) * hour);
  for (let i = 0; i < limits.feedQuotaPerHour; i++) {
    const r = await t.post('/AGENTS.md/feed', cy.token, { text: `quota ${i}` });
    assert.is(r.status, 200, r.text);
  }
  assert.is((await t.get('/AGENTS.md/me', cy.token)).json.feed.remaining, 0);
  t.clock.advance(60_000);
  const over = await t.post('/AGENTS.md/feed', cy.token, { text: 'one more' });
  assert.is(over.status, 429, over.text);
  assert.is(over.json.class, 'rateLimited');
  assert.is(over.headers['retry-after'], String(hour / 1000 - 60));
  t.clock.advance(hour);
  assert.is((await t.post('/AGENTS.md/feed', cy.token, { text: 'a new hour' })).status, 200);
});

test.run();

/**
 * The commonplace book, /o/{handle}/book (spec 4.6): what a resident wrote, newest first, 50 a
 * page (`?page=N`), escaped, linked from their avatar's page; a name that is no resident is 404.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startPagesTown, turn, type PageGuest, type PagesTown } from './support.js';

const book = suite<{ t: PagesTown; ann: PageGuest }>('book');

book.before(async (ctx) => {
  ctx.t = await startPagesTown();
  ctx.ann = await ctx.t.guest('ann');
});
book.after(async (ctx) => {
  await ctx.t.close();
});

book('newest first, 50 a page, escaped; the avatar page links to it', async ({ t, ann }) => {
  for (let i = 0; i < 54; i++) await turn(t, ann, 'lamp', 'fill', { fields: { measures: 0 } });
  await turn(t, ann, 'avatar-ann', 'rename', { fields: { name: `<b>"'ann` } });
  const first = await t.request('GET', '/o/ann.town.test/book', { cookie: ann.cookie });
  assert.is(first.status, 200);
  assert.match(first.text, /<h1>ann: a commonplace book<\/h1>/);
  const items = first.text.match(/<li class="done">/g) ?? [];
  assert.is(items.length, 50);
  // The newest first: the rename, then the fills.
  assert.match(
    first.text,
    /<ol class="book"><li class="done"><p class="h"><time[^>]*>[^<]*<\/time> · <a href="\/o\/avatar-ann">avatar-ann<\/a>\.<code>rename<\/code>/,
  );
  assert.not.match(first.text, /<b>"'ann/);
  assert.match(first.text, /href="\?page=2" rel="next"/);
  const second = await t.request('GET', '/o/ann.town.test/book?page=2');
  assert.is(second.status, 200, 'a reader without a session reads it too');
  assert.is((second.text.match(/<li class="done">/g) ?? []).length, 5);
  assert.match(second.text, /href="\?page=1" rel="prev"/);
  assert.not.match(second.text, /rel="next"/);
  const beyond = await t.request('GET', '/o/ann.town.test/book?page=9');
  assert.match(beyond.text, /Nothing further back/);
  // The bare name reaches the same book; the avatar's page links to it.
  assert.match((await t.request('GET', '/o/ann/book')).text, /<h1>ann: a commonplace book<\/h1>/);
  assert.match((await t.request('GET', '/o/avatar-ann')).text, /<a class="book" href="\/o\/ann\.town\.test\/book">ann's commonplace book<\/a>/);
  assert.not.match((await t.request('GET', '/o/lamp')).text, /commonplace book/);
});

book('a name that is no resident is a 404 page', async ({ t }) => {
  for (const p of ['/o/nobody.town.test/book', '/o/Not%20A%20Name/book']) {
    const r = await t.request('GET', p);
    assert.is(r.status, 404, p);
    assert.match(r.text, /Nothing here by that name/);
  }
});

book.run();

/**
 * The market on the play page: standing in the square a guest sees a small market panel (the
 * purse, the goods for sale each with a buy button, a sell form for each thing carried); each
 * button casts the market's own spell, and the receipt says in words what happened, or why not.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startPagesTown, type PageGuest, type PagesTown } from './support.js';

const market = suite<{ t: PagesTown; ann: PageGuest; bob: PageGuest; annAt: string; bobAt: string }>('the market on the play page');

market.before(async (ctx) => {
  ctx.t = await startPagesTown();
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
  // each guest's avatar, where /play/ sends it
  ctx.annAt = String((await ctx.t.request('GET', '/play/', { cookie: ctx.ann.cookie })).headers.location);
  ctx.bobAt = String((await ctx.t.request('GET', '/play/', { cookie: ctx.bob.cookie })).headers.location);
  // the read models fold the arrivals in a moment
  for (let i = 0; i < 50 && (await ctx.t.request('GET', ctx.bobAt, { cookie: ctx.bob.cookie })).status !== 200; i++)
    await new Promise((r) => setTimeout(r, 50));
});
market.after(async (ctx) => {
  await ctx.t.close();
});

const panel = (html: string) => /<section class="market" aria-labelledby="market-h">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';

market('in the square the market is one click away: open a purse, sell what you carry, buy it back into your hands', async ({ t, ann, bob, annAt, bobAt }) => {
  const first = await t.request('GET', annAt, { cookie: ann.cookie });
  const before = panel(first.text);
  assert.match(before, /<h2 id="market-h">The market<\/h2>/);
  assert.match(before, /<input type="hidden" name="do" value="purse"><button>open a purse of 10 coins<\/button>/);
  assert.match(before, /For sale:<\/strong> nothing/);
  assert.not.match(before, /Sell what you carry/, 'nothing carried, nothing to sell');

  const opened = await t.request('POST', '/play/market', { cookie: ann.cookie, form: { do: 'purse' } });
  assert.match(opened.text, /<section class="receipt done"/);
  assert.match(panel(opened.text), /Your purse holds 10 coins\./);

  await t.request('POST', annAt, { cookie: ann.cookie, form: { do: 'take?thing=lamp' } });
  const holding = panel((await t.request('GET', annAt, { cookie: ann.cookie })).text);
  assert.match(
    holding,
    /<form class="quick" method="post" action="\/play\/market"><input type="hidden" name="do" value="sell\?item=lamp"><label for="sell-price-0">price<\/label> <input id="sell-price-0" name="f.price" type="number"[^>]*> <button>sell lamp<\/button><\/form>/,
  );
  const sold = await t.request('POST', '/play/market', { cookie: ann.cookie, form: { do: 'sell?item=lamp', 'f.price': '3' } });
  assert.match(sold.text, /<section class="receipt done"/);

  const bobAvatar = decodeURIComponent(bobAt.slice('/play/'.length));
  // bob sees it for sale; without a purse the market refuses him, and says why in words
  const seen = panel((await t.request('GET', bobAt, { cookie: bob.cookie })).text);
  assert.match(seen, `<input type="hidden" name="do" value="buy?item=lamp&amp;to=${encodeURIComponent(bobAvatar)}"><button>buy lamp for 3 coins</button>`);
  const refused = await t.request('POST', '/play/market', { cookie: bob.cookie, form: { do: `buy?item=lamp&to=${bobAvatar}` } });
  assert.match(refused.text, /<section class="receipt refused"[^>]*><h2>Not done<\/h2>/);
  assert.match(refused.text, /costs 3 coins and your purse holds 0 coins/);
  assert.match(refused.text, /<dt>class<\/dt><dd><code>cardRefused<\/code><\/dd>/);
  await t.request('POST', '/play/market', { cookie: bob.cookie, form: { do: 'purse' } });
  const bought = await t.request('POST', '/play/market', { cookie: bob.cookie, form: { do: `buy?item=lamp&to=${bobAvatar}` } });
  assert.match(bought.text, /<section class="receipt done"/);
  assert.match(panel(bought.text), /Your purse holds 7 coins\./);
  assert.match(bought.text, /You carry:<\/strong> <ul><li><a href="\/play\/lamp">lamp<\/a>/);
  assert.match(panel((await t.request('GET', annAt, { cookie: ann.cookie })).text), /Your purse holds 13 coins\./);
});

market('away from the square there is no market panel', async ({ t, ann, annAt }) => {
  const moved = await t.request('POST', annAt, { cookie: ann.cookie, form: { do: 'go?room=library' } });
  assert.match(moved.text, /You are in the library/);
  assert.is(panel(moved.text), '');
  await t.request('POST', annAt, { cookie: ann.cookie, form: { do: 'go?room=square' } });
});

market.run();

/**
 * Playing the town in a real browser, as a person does: ann signs in and sees where she stands;
 * leaves by a door with one click and comes back; takes the lamp and drops it; reads the
 * receipt the page announces (in words, the exact receipt one click away, and its own page);
 * opens a purse at the market and buys what bob put up for sale; reads a library page as HTML.
 * axe finds no violation on any of these pages (of any impact), and each is screenshot at
 * 1280 and 390 px wide into the test's own temp folder.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allViolations, type BrowserTown, chromiumPath, launchBrowser, skipNotice, startBrowserTown, textOf, type Watched, watchedPage } from './support.js';

interface Ctx {
  browser: Browser;
  t: BrowserTown;
  ann: BrowserContext;
  watched: Watched;
  shots: string;
  avatar: string;
}

const play = suite<Ctx>('browser: playing the town');
const it = chromiumPath ? play : play.skip;

if (chromiumPath) {
  play.before(async (ctx) => {
    [ctx.browser, ctx.t] = await Promise.all([launchBrowser(), startBrowserTown()]);
    ctx.ann = await ctx.browser.newContext({ viewport: { width: 1280, height: 900 } });
    ctx.watched = await watchedPage(ctx.ann);
    ctx.shots = mkdtempSync(path.join(os.tmpdir(), 'town-play-shots-'));
    process.stdout.write(`\n  browser/play.test: screenshots in ${ctx.shots}\n`);
  });
  play.after(async (ctx) => {
    await ctx.browser?.close();
    await ctx.t?.close();
  });
} else skipNotice('browser/play.test');

/** Screenshots of the page at desktop and phone width, under the test's temp folder; axe's violations. */
async function look(ctx: Ctx, page: Page, name: string): Promise<void> {
  mkdirSync(ctx.shots, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: path.join(ctx.shots, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  const found = await allViolations(page);
  assert.equal(found, [], `${name}: axe finds no violation`);
}

function noProblems(ctx: Ctx): void {
  assert.equal(ctx.watched.problems.splice(0), [], 'the pages logged no errors');
}

/** Clicks a button that posts a form, and waits for the page it answers. */
async function press(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

it('ann signs in and sees where she stands', async (ctx) => {
  const page = ctx.watched.page;
  const code = await ctx.t.invitation();
  await page.goto(`${ctx.t.base}/enter`);
  await page.fill('#code', code);
  await page.fill('#invite-name', 'ann');
  await Promise.all([page.waitForURL(/\/enter$/), page.click('form:has(#code) button')]);
  // /play without its slash lands on her avatar
  await page.goto(`${ctx.t.base}/play`);
  assert.match(page.url(), /\/play\/avatar-ann/);
  ctx.avatar = decodeURIComponent(new URL(page.url()).pathname.slice('/play/'.length));
  assert.match(await textOf(page.locator('#standing-h')), /You are in the town square/);
  assert.match(await textOf(page.locator('section.standing')), /Lying here:[\s\S]*lamp/);
  await look(ctx, page, 'play-square');
  noProblems(ctx);
});

it('she leaves by a door with one click and comes back', async (ctx) => {
  const page = ctx.watched.page;
  await press(page, 'section.standing .ways button:has-text("go to the library")');
  assert.match(await textOf(page.locator('#standing-h')), /You are in the library/);
  // the receipt is announced and takes focus
  const receipt = page.locator('section.receipt');
  assert.is(await receipt.getAttribute('role'), 'status');
  assert.is(await page.evaluate(() => (globalThis as any).document.activeElement?.id), 'receipt');
  await press(page, 'section.standing .ways button:has-text("go to the town square")');
  assert.match(await textOf(page.locator('#standing-h')), /You are in the town square/);
  noProblems(ctx);
});

it('she takes the lamp and drops it, and reads the receipt in words', async (ctx) => {
  const page = ctx.watched.page;
  await press(page, 'section.standing .here button:has-text("take lamp")');
  const receipt = page.locator('section.receipt');
  assert.is(await receipt.getAttribute('class'), 'receipt done');
  assert.match(await textOf(receipt.locator('h2')), /Done/);
  assert.match(await textOf(receipt.locator('dl.facts')), /by\s*ann/);
  // the exact receipt is folded, one click away
  const exact = receipt.locator('details.exact-receipt');
  assert.is(await exact.getAttribute('open'), null);
  await exact.locator('summary').click();
  assert.is(await exact.getAttribute('open'), '');
  assert.match(await textOf(exact), /height\s*\d+/);
  await look(ctx, page, 'play-receipt');
  assert.match(await textOf(page.locator('section.standing .carried')), /lamp/);
  // its page, for people
  const slug = (await textOf(exact.locator('code.slug'))).trim();
  await press(page, 'details.exact-receipt a[href^="/receipt/"]');
  assert.match(await textOf(page.locator('h1')), /Receipt: done/);
  assert.match(await textOf(page.locator('main')), new RegExp(`takes lamp[\\s\\S]*${slug}`));
  await look(ctx, page, 'receipt-page');
  await page.goto(`${ctx.t.base}/play/${encodeURIComponent(ctx.avatar)}`);
  await press(page, 'section.standing .carried button:has-text("drop lamp")');
  assert.match(await textOf(page.locator('section.standing .here')), /lamp/);
  assert.match(await textOf(page.locator('section.standing .carried')), /nothing/);
  noProblems(ctx);
});

it('she buys at the market what bob put up for sale', async (ctx) => {
  // bob, through the API: a purse, the lamp taken and put up for 2 coins
  const code = await ctx.t.invitation();
  const accepted = await fetch(`${ctx.t.base}/AGENTS.md/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, name: 'bob' }),
  });
  const bob = (await accepted.json()) as { credential: string; principal: string };
  const cast = async (object: string, method: string, fields: Record<string, string>) => {
    const r = await fetch(`${ctx.t.base}/AGENTS.md/world/${encodeURIComponent(object)}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bob.credential}` },
      body: JSON.stringify({ intent: `bob-${method}-${Math.random()}`, fields }),
    });
    const reply = (await r.json()) as { status: string; line: string };
    assert.is(reply.status, 'done', `bob ${method}: ${reply.line}`);
  };
  const me = (await (await fetch(`${ctx.t.base}/AGENTS.md/me`, { headers: { authorization: `Bearer ${bob.credential}` } })).json()) as { avatar?: string };
  const bobAvatar = me.avatar ?? 'avatar-bob';
  await cast('market', 'purse', {});
  await cast(bobAvatar, 'take', { thing: 'lamp' });
  await cast('market', 'sell', { item: 'lamp', price: '2' });

  const page = ctx.watched.page;
  await page.goto(`${ctx.t.base}/play/${encodeURIComponent(ctx.avatar)}`);
  const market = page.locator('section.market');
  assert.match(await textOf(market.locator('h2')), /The market/);
  await press(page, 'section.market button:has-text("open a purse")');
  assert.match(await textOf(page.locator('section.market')), /Your purse holds 10 coins/);
  await look(ctx, page, 'market');
  await press(page, 'section.market button:has-text("buy lamp for 2 coins")');
  assert.is(await page.locator('section.receipt').getAttribute('class'), 'receipt done');
  assert.match(await textOf(page.locator('section.market')), /Your purse holds 8 coins/);
  assert.match(await textOf(page.locator('section.standing .carried')), /lamp/);
  await look(ctx, page, 'market-bought');
  noProblems(ctx);
});

it('she reads a library page as HTML, and the town', async (ctx) => {
  const page = ctx.watched.page;
  await page.goto(`${ctx.t.base}/library/market`);
  assert.match(await textOf(page.locator('main .md h1')), /market/);
  assert.ok((await page.locator('main table').count()) > 0, 'the spells as a table');
  await look(ctx, page, 'library-market');
  await page.goto(`${ctx.t.base}/town`);
  await look(ctx, page, 'town');
  await page.goto(`${ctx.t.base}/history`);
  assert.ok(Number(await page.locator('body').getAttribute('data-live')) > 0, '/history follows the town live');
  noProblems(ctx);
});

/** API words no page shows a person (test/pages/words.test.ts reads the same over HTTP). */
const apiWords = [/\/AGENTS\.md/, /\bqueued\b/i, /\bdepth\b/i, /unknownRoute/, /stands at version/i, /no route (GET|POST)/];

it('what she reads on every page is in people’s words, the feed’s answers too', async (ctx) => {
  const page = ctx.watched.page;
  await page.goto(`${ctx.t.base}/feed`);
  await page.fill('#post', 'hello');
  await Promise.all([page.waitForURL(/\/feed$/), page.click('form.say:has(#post) button')]);
  // the town answers within seconds, and the page, waiting for it, looks again by itself
  await page.waitForSelector('article.post.town', { timeout: 20_000 });
  assert.is(await page.locator('body').getAttribute('data-waiting'), null);
  await look(ctx, page, 'feed');
  const receipt = await page.locator('article.post.town a[href^="/receipt/"]').first().getAttribute('href');
  const seen: string[] = [];
  for (const p of [
    '/',
    '/town',
    '/map',
    '/history',
    '/feed',
    '/kinds',
    '/library',
    '/library/postbox',
    '/o/market',
    `/play/${encodeURIComponent(ctx.avatar)}`,
    String(receipt),
    '/nowhere',
  ]) {
    await page.goto(`${ctx.t.base}${p}`);
    // what a person reads: the page's text, but the code it quotes verbatim
    const text = await page.evaluate(() => {
      const main = (globalThis as any).document.body.cloneNode(true);
      for (const c of main.querySelectorAll('code, pre, script')) c.remove();
      return main.textContent as string;
    });
    for (const w of apiWords) if (w.test(text)) seen.push(`${p}: ${w}`);
  }
  assert.equal(seen, []);
  ctx.watched.problems.splice(0).forEach((problem) => assert.match(problem, /\/nowhere/, 'only the page asked for in vain failed'));
});

it('a page whose live stream the town refused says so, offers a reload, and follows again once it may', async (ctx) => {
  const page = ctx.watched.page;
  // her one watched page on a page that follows nothing
  await page.goto(`${ctx.t.base}/library`);
  // four pages follow the town: a session's share of the live streams
  const following: Page[] = [];
  for (let i = 0; i < 4; i++) {
    const p = await ctx.ann.newPage();
    await p.goto(`${ctx.t.base}/town`);
    following.push(p);
  }
  // the fifth is refused (429): it says so, with a button to reload
  const fifth = await ctx.ann.newPage();
  await fifth.goto(`${ctx.t.base}/town`);
  const notice = fifth.locator('p.live-refused');
  await notice.waitFor({ state: 'visible', timeout: 10_000 });
  assert.match(await textOf(notice), /stopped following the town/);
  assert.is(await notice.getAttribute('role'), 'status');
  assert.is(await notice.locator('button').textContent(), 'reload now');
  await look(ctx, fifth, 'live-refused');
  // one page closes; the fifth tries again by itself, and the notice goes
  await following.pop()!.close();
  await notice.waitFor({ state: 'detached', timeout: 20_000 });
  for (const p of [...following, fifth]) await p.close();
  noProblems(ctx);
});

play.run();

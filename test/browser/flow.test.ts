/**
 * A person's path through the town in a real browser: enter with an
 * invitation at /enter, play the lamp by filling a spell's form and see the receipt, watch /town
 * in a second browser redraw itself when someone else casts, and sign out. What a guest wrote
 * (`<script>` and attribute-breaking quotes) stays text on every page that shows it. No page
 * logs a console error or fails a load along the way.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type BrowserTown, chromiumPath, launchBrowser, screenshot, skipNotice, startBrowserTown, textOf, type Watched, watchedPage } from './support.js';

interface Ctx {
  browser: Browser;
  t: BrowserTown;
  ann: BrowserContext;
  bob: BrowserContext;
  watched: Watched[];
  annKey: string;
}

const flow = suite<Ctx>('browser: a person in the town');
const it = chromiumPath ? flow : flow.skip;

if (chromiumPath) {
  flow.before(async (ctx) => {
    ctx.watched = [];
    [ctx.browser, ctx.t] = await Promise.all([launchBrowser(), startBrowserTown()]);
    ctx.ann = await ctx.browser.newContext({ viewport: { width: 1280, height: 900 } });
    ctx.bob = await ctx.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  });
  flow.after(async (ctx) => {
    await ctx.browser?.close();
    await ctx.t?.close();
  });
} else skipNotice('browser/flow.test');

/** The context's one watched page (made once, reused by every test); its problems are checked at the end of each. */
const pageOf = new Map<BrowserContext, Watched>();
async function open(ctx: Ctx, context: BrowserContext): Promise<Page> {
  let w = pageOf.get(context);
  if (!w) {
    w = await watchedPage(context);
    pageOf.set(context, w);
    ctx.watched.push(w);
  }
  return w.page;
}

function noProblems(ctx: Ctx): void {
  const problems = ctx.watched.flatMap((w) => w.problems.splice(0));
  assert.equal(problems, [], 'the pages logged no errors');
}

const text = (page: Page, selector: string) => textOf(page.locator(selector).first());

it('a guest enters with an invitation: the key is shown once, and the browser is signed in', async (ctx) => {
  const page = await open(ctx, ctx.ann);
  const code = await ctx.t.invitation();
  await page.goto(`${ctx.t.base}/enter`);
  assert.match(await text(page, 'h1'), /Enter the town/);
  // The browser itself checks the name (the pattern compiles under the `v` flag).
  await page.fill('#code', code);
  await page.fill('#invite-name', 'Ann!');
  assert.is(await page.locator('#invite-name').evaluate((el: any) => el.validity.patternMismatch), true, 'a name the town would refuse');
  await page.fill('#invite-name', 'ann');
  assert.is(await page.locator('#invite-name').evaluate((el: any) => el.validity.valid), true);
  await Promise.all([page.waitForURL(/\/enter$/), page.click('form:has(#code) button')]);
  assert.match(await text(page, 'h1'), /Welcome, ann\.town\.test/);
  ctx.annKey = await text(page, '#key');
  assert.match(ctx.annKey, /\S{20,}/);
  assert.is(await page.locator('nav .who').getAttribute('title'), 'ann.town.test');
  await screenshot(page, 'flow-key');
  noProblems(ctx);
});

it('she plays the lamp by filling its spell form, and sees the receipt', async (ctx) => {
  const page = await open(ctx, ctx.ann);
  await page.goto(`${ctx.t.base}/play/`);
  assert.match(page.url(), /\/play\/avatar-ann$/);
  // The lamp lies near her avatar: a link, not something to type.
  await Promise.all([page.waitForURL(/\/play\/lamp$/), page.click('section.near a[href="/play/lamp"]')]);
  const fill = page.locator('#spell-fill');
  const measures = fill.locator('input[name="f.measures"]');
  assert.is(await measures.getAttribute('type'), 'number');
  assert.is(await measures.getAttribute('min'), '0');
  assert.is(await measures.getAttribute('max'), '9');
  await measures.fill('3');
  await Promise.all([page.waitForURL(/\/play\/lamp$/), fill.locator('button').click()]);
  const receipt = page.locator('section.receipt');
  assert.is(await receipt.getAttribute('class'), 'receipt done');
  assert.match(await textOf(receipt), /pours in 3 measures of oil/);
  assert.match(await textOf(receipt.locator('details.exact-receipt')), /height\s*\d+/);
  await screenshot(page, 'flow-receipt');
  // A spell that wants one card is a button per card near: ann goes to the library at a click.
  await page.goto(`${ctx.t.base}/play/avatar-ann`);
  await Promise.all([page.waitForURL(/\/play\/avatar-ann$/), page.click('#spell-go .quicks button:has-text("the library")')]);
  assert.match(await textOf(page.locator('section.receipt')), /goes to library/);
  noProblems(ctx);
});

it('bob watches /town on his phone; it redraws itself when ann casts', async (ctx) => {
  // Bob signs in with a key he holds (the key form), on a narrow screen.
  const code = await ctx.t.invitation();
  const accepted = await fetch(`${ctx.t.base}/AGENTS.md/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, name: 'bob' }),
  });
  const { credential } = (await accepted.json()) as { credential: string };
  const page = await open(ctx, ctx.bob);
  await page.goto(`${ctx.t.base}/enter?next=/town`);
  await page.fill('#credential', credential);
  await Promise.all([page.waitForURL(/\/town$/), page.click('form:has(#credential) button')]);
  const drawn = Number(await page.locator('body').getAttribute('data-live'));
  assert.ok(drawn > 0, 'the town page says the height it was drawn at');
  await screenshot(page, 'flow-town-watching');
  // Ann casts from her own browser; bob's page hears `moved` and draws itself again.
  const annPage = await open(ctx, ctx.ann);
  await annPage.goto(`${ctx.t.base}/play/lamp`);
  await annPage.locator('#spell-light button').first().click();
  await annPage.waitForSelector('section.receipt');
  await page.waitForFunction((h: number) => Number((globalThis as any).document.body.getAttribute('data-live')) > h, drawn, { timeout: 10_000 });
  assert.match(await text(page, 'h1'), /the town/);
  noProblems(ctx);
});

it('what a guest wrote stays text on every page that shows it', async (ctx) => {
  const evil = `<script>window.pwned=1</script>"'><img src=x onerror="window.pwned=2">`;
  const page = await open(ctx, ctx.ann);
  // Her avatar's name (32 characters at most), a room's description, a row of the board, a post.
  await page.goto(`${ctx.t.base}/play/avatar-ann`);
  await page.fill('#spell-rename input[name="f.name"]', `"'><img src=x onerror=alert(1)>`);
  await page.click('#spell-rename button');
  await page.waitForSelector('section.receipt');
  // The town's rooms are the town's (their law lets only the owner describe them): ann crafts a
  // room of her own at the workbench and describes that.
  await page.goto(`${ctx.t.base}/play/library`);
  await page.fill('#spell-describe [name="f.description"]', evil);
  await page.click('#spell-describe button');
  assert.is(await page.locator('section.receipt').getAttribute('class'), 'receipt refused', "a guest cannot describe the town's library");
  await page.goto(`${ctx.t.base}/play/bench`);
  await page.selectOption('#spell-craft [name="f.kind"]', 'room');
  await page.click('#spell-craft button');
  const crafted = (await page.locator('section.receipt').textContent()) ?? '';
  const room = /room-\d+/.exec(crafted)?.[0];
  assert.ok(room, `the workbench offered a room: ${crafted}`);
  await page.goto(`${ctx.t.base}/play/${room}`);
  await page.fill('#spell-describe [name="f.description"]', evil);
  await page.click('#spell-describe button');
  assert.is(await page.locator('section.receipt').getAttribute('class'), 'receipt done');
  await page.goto(`${ctx.t.base}/play/notice-board`);
  await page.fill('#spell-add [name="f.key"]', `"'><b>`);
  await page.fill('#spell-add [name="f.text"]', evil);
  await page.click('#spell-add button');
  assert.is(await page.locator('section.receipt').getAttribute('class'), 'receipt done');
  await page.goto(`${ctx.t.base}/feed`);
  await page.fill('#post', evil);
  await Promise.all([page.waitForURL(/\/feed$/), page.click('form.say:has(#post) button')]);

  for (const p of [
    `/town?open=${room}`,
    `/o/${room}`,
    '/o/avatar-ann',
    '/play/notice-board',
    '/o/notice-board',
    '/inspect/notice-board',
    `/inspect/${room}`,
    '/history',
    '/feed',
    '/o/ann.town.test/book',
  ]) {
    await page.goto(`${ctx.t.base}${p}`);
    const counts = await page.evaluate(() => {
      const d = (globalThis as any).document;
      return {
        inline: d.querySelectorAll('script:not([src])').length,
        img: d.querySelectorAll('img').length,
        b: d.querySelectorAll('main b').length,
        pwned: (globalThis as any).pwned === undefined ? 0 : 1,
      };
    });
    assert.equal(counts, { inline: 0, img: 0, b: p === '/feed' ? counts.b : 0, pwned: 0 }, `${p}: nothing a guest wrote became markup`);
    // textContent, not innerText: the exact card is folded away (a closed <details>).
    const body = (await page.locator('main').textContent()) ?? '';
    assert.ok(body.includes('<img src=x onerror=') || body.includes('<script>window.pwned=1</script>'), `${p} shows the text as text`);
  }
  noProblems(ctx);
});

it('she signs out: the page says so, and the navigation offers the door again', async (ctx) => {
  const page = await open(ctx, ctx.ann);
  await page.goto(`${ctx.t.base}/leave`);
  assert.match(await text(page, 'main'), /Signed in as/);
  await Promise.all([page.waitForURL(/\/leave$/), page.click('main form button')]);
  assert.match(await text(page, 'h1'), /Signed out/);
  assert.is(await page.locator('main button').count(), 0, 'no sign-out button once signed out');
  assert.is(await page.locator('nav a[href="/enter"]').count(), 1);
  await screenshot(page, 'flow-signed-out');
  // Her key still works: she may come back with it.
  await page.goto(`${ctx.t.base}/enter`);
  await page.fill('#credential', ctx.annKey);
  await Promise.all([page.waitForURL(/\/play\/avatar-ann$/), page.click('form:has(#credential) button')]);
  noProblems(ctx);
});

flow.run();

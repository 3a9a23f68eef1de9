/**
 * Every page for people in a real browser: each at 1280 and 390 px wide,
 * screenshot kept under test-artifacts/screenshots/, checked by axe (no serious or critical
 * violation; text contrast at least 4.5:1), with a clean console, signed in and signed out; the
 * error pages too, and a 429 page that loads itself again after Retry-After. The guest door of
 * an open town works out its proof in the page (its script is the town's own file, under the
 * policy that allows no inline script).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../src/contract/limits.js';
import { createLimiters } from '../../src/contract/rate-limit.js';
import {
  type BrowserTown,
  chromiumPath,
  launchBrowser,
  screenshot,
  seriousViolations,
  skipNotice,
  startBrowserTown,
  textOf,
  type Watched,
  watchedPage,
} from './support.js';

interface Ctx {
  browser: Browser;
  t: BrowserTown;
  ann: BrowserContext;
  anon: BrowserContext;
  signedIn: Watched;
  signedOut: Watched;
}

const pages = suite<Ctx>('browser: every page');
const it = chromiumPath ? pages : pages.skip;

/** Error pages these tests ask for on purpose: their status is not a console problem. */
const provoked = (url: string, status: number) => /\/(no-such|nowhere)/.test(url) && status === 404;

if (chromiumPath) {
  pages.before(async (ctx) => {
    // An open town (the door offers a key for the asking), its proof made easy for the test.
    [ctx.browser, ctx.t] = await Promise.all([launchBrowser(), startBrowserTown({ open: true, arrivalBits: 8 })]);
    ctx.ann = await ctx.browser.newContext({ viewport: { width: 1280, height: 900 } });
    ctx.anon = await ctx.browser.newContext({ viewport: { width: 1280, height: 900 } });
    ctx.signedIn = await watchedPage(ctx.ann, provoked);
    ctx.signedOut = await watchedPage(ctx.anon, provoked);
  });
  pages.after(async (ctx) => {
    await ctx.browser?.close();
    await ctx.t?.close();
  });
} else skipNotice('browser/pages.test');

/**
 * Visits a page: its status, its axe check, and a screenshot at each width. Returns the
 * serious or critical violations found, with the page named.
 */
async function visit(w: Watched, base: string, p: string, name: string, status = 200): Promise<string[]> {
  const page = w.page;
  await page.setViewportSize({ width: 1280, height: 900 });
  const reply = await page.goto(`${base}${p}`);
  assert.is(reply?.status(), status, `${p} answers ${status}`);
  const found = (await seriousViolations(page)).map((v) => `${name} ${p}: ${v}`);
  await screenshot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, name);
  // Nothing may be wider than a phone: no sideways scrolling of the whole page.
  const wide = await page.evaluate(() => {
    const d = (globalThis as any).document.documentElement;
    return d.scrollWidth - d.clientWidth;
  });
  assert.ok(wide <= 1, `${p} fits 390 px (${wide} px too wide)`);
  return found;
}

function noProblems(...watched: Watched[]): void {
  assert.equal(
    watched.flatMap((w) => w.problems.splice(0)),
    [],
    'no console errors, page errors or failed loads',
  );
}

it('a guest arrives on an open town: the page works out the proof with the town’s own script', async (ctx) => {
  const page = ctx.signedIn.page;
  await page.goto(`${ctx.t.base}/enter`);
  assert.match(await textOf(page.locator('#for-asking')), /A key for the asking/);
  await page.fill('#arrive-name', 'ann');
  await Promise.all([page.waitForURL(/\/enter$/), page.click('#arrive button')]);
  assert.match(await textOf(page.locator('h1')), /Welcome, ann\.town\.test/);
  // Something to show on the pages: a turn, and a post the town answers.
  await page.goto(`${ctx.t.base}/play/lamp`);
  await page.fill('#spell-fill [name="f.measures"]', '2');
  await page.click('#spell-fill button');
  await page.waitForSelector('section.receipt');
  await page.goto(`${ctx.t.base}/feed`);
  await page.fill('#post', 'Good morning, town.');
  await Promise.all([page.waitForURL(/\/feed$/), page.click('form.say:has(#post) button')]);
  noProblems(ctx.signedIn);
});

it('every page, signed in: no serious or critical axe violation, fits a phone, clean console', async (ctx) => {
  const all = [
    ['/', 'home'],
    ['/town', 'town'],
    ['/town?open=square', 'town-open'],
    ['/map', 'map'],
    ['/map?from=square', 'map-from'],
    ['/kinds', 'kinds'],
    ['/library', 'library'],
    ['/library/lamp', 'library-page'],
    ['/lib', 'modules'],
    ['/lib/lamp', 'module'],
    ['/history', 'history'],
    ['/feed', 'feed'],
    ['/o/lamp', 'card'],
    ['/o/lamp?show=law,source,receipts', 'card-more'],
    ['/o/avatar-ann', 'avatar'],
    ['/o/ann.town.test/book', 'book'],
    ['/inspect/lamp', 'inspect'],
    ['/inspect/square', 'inspect-room'],
    ['/play/lamp', 'play'],
    ['/play/avatar-ann', 'play-avatar'],
    ['/play/door-square-library', 'play-door'],
    ['/enter', 'enter-signed-in'],
    ['/leave', 'leave'],
    ['/style/', 'style'],
  ];
  const found: string[] = [];
  for (const [p, name] of all) found.push(...(await visit(ctx.signedIn, ctx.t.base, p!, `in-${name}`)));
  assert.equal(found, [], 'axe: no serious or critical violations');
  noProblems(ctx.signedIn);
});

it('every page a reader without a session sees, and the error pages', async (ctx) => {
  const all: [string, string, number][] = [
    ['/', 'home', 200],
    ['/enter', 'enter', 200],
    ['/town', 'town', 200],
    ['/o/lamp', 'card', 200],
    ['/feed', 'feed', 200],
    ['/leave', 'leave', 200],
    ['/o/no-such-card', 'error-404-card', 404],
    ['/nowhere/at/all', 'error-404-route', 404],
  ];
  const found: string[] = [];
  for (const [p, name, status] of all) found.push(...(await visit(ctx.signedOut, ctx.t.base, p, `out-${name}`, status)));
  // Signed in, an error page names the guest and does not offer the door.
  found.push(...(await visit(ctx.signedIn, ctx.t.base, '/play/no-such-card', 'in-error-404-play', 404)));
  assert.equal(found, [], 'axe: no serious or critical violations');
  const page = ctx.signedIn.page;
  assert.match(await textOf(page.locator('h1')), /Nothing here by that name/);
  assert.is(await page.locator('nav .who').getAttribute('title'), 'ann.town.test');
  assert.match(await textOf(page.locator('nav .who')), /^ann$/);
  assert.is(await page.locator('a[href="/enter"]').count(), 0);
  const out = ctx.signedOut.page;
  await out.goto(`${ctx.t.base}/nowhere/at/all`);
  assert.match(await textOf(out.locator('h1')), /No such page/);
  assert.is(await out.locator('nav a[href="/enter"]').count(), 1);
  // /favicon.ico is the town's icon, not a 404 in the console.
  const icon = await ctx.anon.request.get(`${ctx.t.base}/favicon.ico`);
  assert.is(icon.status(), 200);
  assert.is(icon.headers()['content-type'], 'image/x-icon');
  noProblems(ctx.signedIn, ctx.signedOut);
});

it('a page over its rate limit is a styled page that loads itself again after Retry-After', async (ctx) => {
  // A town whose readers without a session may see 3 pages in 3 seconds.
  const small = await startBrowserTown({
    limiters: (clock) =>
      createLimiters(clock, {
        credential: limits.ratePerCredential,
        identity: limits.ratePerAddressOnChallengeAndVerify,
        page: [3, 3],
        xrpc: limits.ratePerAddressOnXrpcWithoutCredential,
      }),
  });
  const context = await ctx.browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const w = await watchedPage(context, (url, status) => url.includes('/kinds') && status === 429);
    const page: Page = w.page;
    for (let i = 0; i < 3; i++) assert.is((await page.goto(`${small.base}/kinds`))?.status(), 200);
    const over = await page.goto(`${small.base}/kinds`);
    assert.is(over?.status(), 429);
    assert.match(await textOf(page.locator('h1')), /Too many at once/);
    assert.match(await textOf(page.locator('main')), /loads itself again/);
    assert.equal(await seriousViolations(page), []);
    await screenshot(page, 'out-error-429');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'out-error-429');
    // No click: the page asks again by itself once the wait is over.
    await page.waitForSelector('h1:text-is("kinds")', { timeout: 8000 });
    noProblems(w);
  } finally {
    await context.close();
    await small.close();
  }
});

pages.run();

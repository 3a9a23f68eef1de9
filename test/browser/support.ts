/**
 * The browser tests' harness: a real town served over HTTP, and Debian's Chromium
 * driven by playwright-core. One browser is launched per test file and its pages are reused.
 *
 * Chromium is looked for at $CHROMIUM_PATH, then /usr/bin/chromium (Debian's `chromium`
 * package, which .ci/run installs), then the other usual names. Without one, every browser test
 * is registered as skipped and a line says so: the suite stays green on a machine without a
 * browser, and CI, which has one, runs them.
 *
 * Screenshots go to test-artifacts/screenshots/ (git-ignored), one per page and width.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { settingsFromEnv } from '../../src/config.js';
import type { Limiters } from '../../src/contract/rate-limit.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { issueInvitation } from '../../src/identity/operator.js';
import { openTown, type Town } from '../../src/town.js';

const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The Chromium to drive, or undefined when this machine has none. */
export function findChromium(): string | undefined {
  const named = process.env.CHROMIUM_PATH;
  if (named) return existsSync(named) ? named : undefined;
  return candidates.find((c) => existsSync(c));
}

/** The Chromium these tests drive; undefined skips them. */
export const chromiumPath = findChromium();

/** Says, once per file, that its browser tests are skipped and how to run them. */
export function skipNotice(file: string): void {
  process.stdout.write(
    `\n  ${file}: browser tests SKIPPED, no Chromium found (apt-get install chromium, or set CHROMIUM_PATH; CI installs it through .ci/run)\n`,
  );
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    // As root (CI containers) Chromium will not start its sandbox.
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-dev-shm-usage'],
  });
}

export interface BrowserTown {
  town: Town;
  base: string;
  /** A fresh open invitation code. */
  invitation(guest?: string): Promise<string>;
  /** Moves the town's clock (and its rate limits) on. */
  advance(ms: number): void;
  close(): Promise<void>;
}

/** The whole town, as `npm start` assembles it (every room, the feed's reactor), on a free port. */
export async function startBrowserTown(o: { open?: boolean; arrivalBits?: number; limiters?: (clock: () => number) => Limiters } = {}): Promise<BrowserTown> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'town-browser-'));
  let offset = 0;
  const clock = () => Date.now() + offset;
  const town = await openTown({
    settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: true, open: o.open ?? false },
    clock,
    origin: 'http://town.test',
    arrivalBits: o.arrivalBits,
    limiters: o.limiters?.(clock),
    logger: { error: (message, fields) => process.stderr.write(`town logged: ${message} ${JSON.stringify(fields).slice(0, 2000)}\n`) },
  });
  const server: RunningServer = await startServer(town.app, { port: 0, host: '127.0.0.1', closeGraceMs: 500, lingerMs: 50 });
  return {
    town,
    base: `http://127.0.0.1:${server.address.port}`,
    invitation: async (guest) => (await issueInvitation(town.events, clock, { guest: guest ?? null, lifetimeMs: 86_400_000 })).code,
    advance: (ms) => {
      offset += ms;
    },
    async close() {
      await server.close();
      await town.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What went wrong in a page: console errors, uncaught exceptions, failed requests. */
export interface Watched {
  page: Page;
  problems: string[];
}

/**
 * A page whose console errors, uncaught exceptions and failed loads are collected. `expected`
 * lets a test say which failed responses it provoked on purpose (an error page it asked for).
 */
export async function watchedPage(context: BrowserContext, expected: (url: string, status: number) => boolean = () => false): Promise<Watched> {
  const page = await context.newPage();
  // Fail in seconds, not playwright's 30: a page of this town answers in milliseconds.
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // Chromium reports every non-2xx load as a console error; those a test asked for are not problems.
    const status = /status of (\d{3})/.exec(m.text())?.[1];
    if (status && expected(m.location().url, Number(status))) return;
    problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (r) => {
    const failure = r.failure()?.errorText ?? '';
    // A stream the page closes by navigating away, or a navigation replaced by the next, is not a fault.
    if (failure.includes('ERR_ABORTED')) return;
    problems.push(`request failed: ${r.url()} ${failure}`);
  });
  return { page, problems };
}

const artifacts = path.resolve('test-artifacts', 'screenshots');

/** Saves a full-page screenshot as test-artifacts/screenshots/<name>-<width>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(artifacts, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const file = path.join(artifacts, `${name.replace(/[^A-Za-z0-9._-]+/g, '_')}-${width}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The axe violations of a page that are serious or critical, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Legacy mode runs axe in the page itself (no second page per check): the town has no frames.
  // Only violations are detailed: passes and incomplete results are most of axe's time.
  const results = await new AxeBuilder({ page })
    .setLegacyMode(true)
    .options({ resultTypes: ['violations'] })
    .analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Every axe violation (any impact), for the record. */
export async function allViolations(page: Page): Promise<{ id: string; impact: string; nodes: number }[]> {
  const results = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  return results.violations.map((v) => ({ id: v.id, impact: v.impact ?? 'unknown', nodes: v.nodes.length }));
}

/** A locator's text as the DOM holds it (folded <details> included). */
export const textOf = async (l: Locator): Promise<string> => (await l.textContent()) ?? '';

/**
 * The frame every page for people is drawn in (spec 4.6): one stylesheet, one script that only
 * enhances (every page works without it), a link past the navigation, and a navigation bar that
 * says who is signed in. Every value a page shows goes through `e` (escape-html): guests write
 * card names, lines and states, so nothing they wrote may reach the page as markup. Pages carry
 * no inline script or style: the front's Content-Security-Policy allows only the town's own files.
 */
import escapeHtml from 'escape-html';
import type { TownContext } from '../contract/town-context.js';
import type { Caller } from '../contract/caller.js';

export const e = (value: unknown): string => escapeHtml(String(value));

/** A path segment for a card id: a `/` inside an id travels as %2F (spec 2.1). */
export const seg = (id: string): string => encodeURIComponent(id);

/** Who the navigation names: a signed-in guest (or one just admitted, before their next page). */
export type Reader = Pick<Caller, 'handle' | 'name'>;

export interface PageOptions {
  caller?: Reader;
  /**
   * `data-live` on <body>: the script redraws the page when the journal moves past it. Only a
   * signed-in reader follows the live streams (spec 4.6: cookie); others refresh by hand.
   */
  liveHeight?: number;
  /** `data-view`: the script follows /live/{object} from this version (signed in only). */
  liveView?: { object: string; version: number };
  /** Scripts of the town's own beside town.js (`/static/<name>`), e.g. the arrival proof. */
  scripts?: string[];
  /**
   * `data-retry-after` on <body>: the script loads the same address again after this many
   * seconds (a 429 or 503 page retrying by itself). A script rather than a meta refresh, which
   * would move a reader on without their say (WCAG 2.2.1; axe's meta-refresh rule).
   */
  retryAfterSeconds?: number;
  /**
   * `data-waiting` on <body>: the page shows something the town is still answering (the feed's
   * post without its answer, which lands after the journal moves): the script looks again every
   * few seconds while nobody types. Without the script the page says to reload.
   */
  waiting?: boolean;
  /** A class on <main> (e.g. `error`). */
  mainClass?: string;
}

/** The navigation's places: path, label. */
const places: [string, string][] = [
  ['/', 'home'],
  ['/town', 'town'],
  ['/map', 'map'],
  ['/kinds', 'kinds'],
  ['/library', 'library'],
  ['/lib', 'modules'],
  ['/history', 'history'],
  ['/feed', 'feed'],
];

export function navigation(caller: Reader | undefined): string {
  const links = places.map(([href, label]) => `<a href="${href}">${label}</a>`).join(' ');
  const who = caller
    ? `<a href="/play/">play</a> <span class="who" title="${e(caller.handle)}">${e(caller.name)}</span> <a href="/leave">leave</a>`
    : '<a href="/enter">enter</a>';
  return `<nav aria-label="the town">${links} <span class="me">${who}</span></nav>`;
}

export function layout(title: string, body: string, o: PageOptions = {}): string {
  const signedIn = o.caller !== undefined;
  const live = signedIn && o.liveHeight !== undefined ? ` data-live="${e(o.liveHeight)}"` : '';
  const view = signedIn && o.liveView ? ` data-view-object="${e(o.liveView.object)}" data-view-version="${e(o.liveView.version)}"` : '';
  const scripts = (o.scripts ?? []).map((s) => `<script src="/static/${e(s)}" defer></script>`).join('');
  const waiting = o.waiting ? ' data-waiting=""' : '';
  const retry = o.retryAfterSeconds !== undefined ? ` data-retry-after="${e(Math.max(1, Math.ceil(o.retryAfterSeconds)))}"` : '';
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${e(title)} · Town</title><link rel="icon" href="/favicon.ico"><link rel="stylesheet" href="/static/town.css">` +
    `<script src="/static/town.js" defer></script>${scripts}</head>` +
    `<body${live}${view}${waiting}${retry}><a class="skip" href="#main">skip to the page</a><header>${navigation(o.caller)}</header>` +
    `<main id="main"${o.mainClass ? ` class="${e(o.mainClass)}"` : ''}>${body}</main></body></html>`
  );
}

/** Sends a page. */
export function sendPage(ctx: TownContext, html: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = html;
}

/** Who is reading: the signed-in guest, or `*`-only visibility for a reader without a session. */
export const readerOf = (caller: Caller | undefined): string => caller?.principal ?? '';

/** `guest:host:ann` → ann; anything else as it is. */
export const shortName = (p: string): string => (p.startsWith('guest:') ? p.slice(p.lastIndexOf(':') + 1) : p);

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A moment as people read it: `6 Dec 2026, 19:40 UTC` (`day`: `6 Dec 2026`; `clock`: `19:40 UTC`). */
export function readableTime(at: number | string, shape: 'full' | 'day' | 'clock' = 'full'): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  const day = `${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  const clock = `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`;
  return shape === 'day' ? day : shape === 'clock' ? clock : `${day}, ${clock}`;
}

/** A <time> element: the exact moment in `datetime`, the readable one as its text. */
export function timeTag(at: number | string, shape: 'full' | 'day' | 'clock' = 'full'): string {
  const d = new Date(at);
  const iso = Number.isNaN(d.getTime()) ? String(at) : d.toISOString();
  return `<time datetime="${e(iso)}">${e(readableTime(at, shape))}</time>`;
}

/** Preformatted text with numbered line anchors (`#L3`). */
export function numbered(text: string, prefix = 'L'): string {
  const lines = text.split('\n');
  return (
    '<pre class="source">' +
    lines.map((l, i) => `<span id="${prefix}${i + 1}"><a href="#${prefix}${i + 1}" class="ln">${i + 1}</a> ${e(l)}</span>`).join('\n') +
    '</pre>'
  );
}

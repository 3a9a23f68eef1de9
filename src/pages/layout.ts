/**
 * The frame every page for people is drawn in (spec 4.6): one stylesheet, one script that only
 * enhances (every page works without it), and a navigation bar. Every value a page shows goes
 * through `e` (escape-html): guests write card names, lines and states, so nothing they wrote
 * may reach the page as markup.
 */
import escapeHtml from 'escape-html';
import type { TownContext } from '../http/handler.js';
import type { Caller } from '../contract/caller.js';

export const e = (value: unknown): string => escapeHtml(String(value));

/** A path segment for a card id: a `/` inside an id travels as %2F (spec 2.1). */
export const seg = (id: string): string => encodeURIComponent(id);

export interface PageOptions {
  caller?: Caller;
  /** `data-live` on <body>: the script redraws the page when the journal moves past it. */
  liveHeight?: number;
  /** `data-view`: the script follows /live/{object} from this version. */
  liveView?: { object: string; version: number };
}

export function layout(title: string, body: string, o: PageOptions = {}): string {
  const who = o.caller ? `<span class="who">${e(o.caller.handle)}</span> <a href="/leave">leave</a>` : '<a href="/enter">enter</a>';
  const live = o.liveHeight !== undefined ? ` data-live="${e(o.liveHeight)}"` : '';
  const view = o.liveView ? ` data-view-object="${e(o.liveView.object)}" data-view-version="${e(o.liveView.version)}"` : '';
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${e(title)}</title><link rel="stylesheet" href="/static/town.css">` +
    '<script src="/static/town.js" defer></script></head>' +
    `<body${live}${view}><nav><a href="/">home</a> <a href="/town">town</a> <a href="/map">map</a>` +
    ' <a href="/kinds">kinds</a> <a href="/library">library</a> <a href="/lib">modules</a>' +
    ` <a href="/history">history</a> <a href="/feed">feed</a> <span class="me">${who}</span></nav>` +
    `<main>${body}</main></body></html>`
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

/** Preformatted text with numbered line anchors (`#L3`). */
export function numbered(text: string, prefix = 'L'): string {
  const lines = text.split('\n');
  return (
    '<pre class="source">' +
    lines.map((l, i) => `<span id="${prefix}${i + 1}"><a href="#${prefix}${i + 1}" class="ln">${i + 1}</a> ${e(l)}</span>`).join('\n') +
    '</pre>'
  );
}

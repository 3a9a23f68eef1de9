/**
 * GET /library and /library/{name}: the sealed library's pages, Markdown rendered to HTML by
 * markdown-it with raw HTML off: any markup in the text is escaped, and its link check refuses
 * javascript: and data: links, so a page can never carry script (docs/dependencies.md).
 */
import MarkdownIt from 'markdown-it';
import { sealedLibrary } from '../cards/library/index.js';
import { TownError } from '../contract/town-error.js';
import type { Caller } from '../contract/caller.js';
import { e, layout } from './layout.js';

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** A library page's Markdown as HTML that carries no markup of the text's own. */
export const libraryHtml = (md: string): string => markdown.render(md);

const firstLine = (md: string) =>
  md
    .split('\n')
    .find((l) => l.trim() !== '' && !l.startsWith('#'))
    ?.trim() ?? '';

export function libraryIndexPage(caller: Caller | undefined): string {
  const pages = [...(sealedLibrary().pages ?? new Map<string, string>()).entries()];
  const items = pages.map(([name, md]) => `<li><a href="/library/${encodeURIComponent(name)}">${e(name)}</a> — ${e(firstLine(md))}</li>`);
  return layout(
    'the library',
    `<h1>the library</h1><p>The sealed library: every kind the town is built from, each with its page.</p><ul>${items.join('')}</ul>`,
    { caller },
  );
}

export function libraryPage(name: string, caller: Caller | undefined): string {
  const md = sealedLibrary().pages?.get(name);
  if (md === undefined)
    throw new TownError('unknownRoute', `the library has no page ${JSON.stringify(name.slice(0, 80))}`, { hint: 'the library lists its pages at /library' });
  return layout(
    `library: ${name}`,
    `<h1>library: ${e(name)}</h1><p><a href="/library">the library</a> · <a href="/lib/${encodeURIComponent(name)}">module source</a></p><div class="md">${libraryHtml(md)}</div>`,
    { caller },
  );
}

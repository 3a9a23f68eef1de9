/**
 * GET /o/{object}: the card's paint, the exact card folded beneath, what it wants, its doors,
 * and on demand (`?show=law`, `source`, `receipts`) its law, source and last 20 receipts; a
 * link to play when signed in.
 */
import type { Caller } from '../contract/caller.js';
import type { CardDoc } from '../projections/cards.js';
import { cardReply, shownCard } from '../queries/card.js';
import { sourceReply } from '../queries/source.js';
import type { WorldReads } from '../queries/world-reads.js';
import { limits } from '../contract/limits.js';
import { doorsList, exactCard, paintOf, wantsOf, type CardView } from './card-panel.js';
import { e, layout, numbered, readerOf, seg, shortName } from './layout.js';
import { carriedMark, receiptsOf, spoken, visibleCards } from './reads.js';
import { bookHref } from './book-page.js';

/** Doors of the room a card is (or lies in), as the reader may see them. */
export async function doorsNear(r: WorldReads, reader: string, card: Pick<CardView, 'id' | 'kind' | 'place'>): Promise<CardDoc[]> {
  const room = card.kind === 'room' ? card.id : card.place;
  if (!room) return [];
  return visibleCards(r, reader, { kind: 'door', place: room }, 64);
}

export async function lawSection(r: WorldReads, id: string, reader: string): Promise<string> {
  const s = await sourceReply(r, id, reader, false);
  if (!s.law.length) return '<section id="law"><h2>law</h2><p>No law: anything its spells allow.</p></section>';
  return `<section id="law"><h2>law</h2><dl class="law">${s.law.map((c) => `<dt>${e(c.clause)}</dt><dd><code>${e(c.line)}</code><br>${e(c.reading)}</dd>`).join('')}</dl></section>`;
}

export async function receiptsSection(r: WorldReads, id: string, n: number): Promise<string> {
  const docs = await receiptsOf(r, id, n);
  const rows = docs.map(
    (d) =>
      `<li class="${e(d.status)}"><span class="h">#${e(d.height)}</span> ${e(spoken(r, d.line))} <span class="by">${e(shortName(d.principal))}</span> <code>${e(d.slug)}</code>${carriedMark(r, d.height)}</li>`,
  );
  return `<section id="receipts"><h2>newest receipts</h2>${rows.length ? `<ol class="receipts">${rows.join('')}</ol>` : '<p>None yet.</p>'}</section>`;
}

export async function cardPage(r: WorldReads, id: string, caller: Caller | undefined, show: string | undefined): Promise<string> {
  const reader = readerOf(caller);
  const card = await cardReply(r, id, reader);
  card.lines = card.lines.map((l) => spoken(r, l));
  const { card: doc } = await shownCard(r, id, reader);
  const doors = await doorsNear(r, reader, card);
  const wanted = new Set((show ?? '').split(','));
  const more: string[] = [];
  if (wanted.has('law')) more.push(await lawSection(r, id, reader));
  if (wanted.has('source')) {
    const s = await sourceReply(r, id, reader, false);
    more.push(`<section id="source"><h2>source</h2>${numbered(s.source)}</section>`);
  }
  if (wanted.has('receipts')) more.push(await receiptsSection(r, id, limits.receiptsOnCardPage));
  const here = `/o/${seg(id)}`;
  const onDemand =
    `<p class="more">show: <a href="${here}?show=law#law">law</a> · <a href="${here}?show=source#source">source</a>` +
    ` · <a href="${here}?show=receipts#receipts">last ${limits.receiptsOnCardPage} receipts</a> · <a href="/inspect/${seg(id)}">inspect</a></p>`;
  const play = caller ? `<p><a class="play" href="/play/${seg(id)}">play ${e(id)}</a></p>` : '<p><a href="/enter">enter</a> to play</p>';
  // An avatar's page leads to its resident's commonplace book.
  const book = card.kind === 'avatar' ? bookHref(doc.owner) : undefined;
  const bookLink = book ? `<p><a class="book" href="${e(book)}">${e(card.owner)}'s commonplace book</a></p>` : '';
  const body = `<h1>${e(id)}</h1>${paintOf(card)}${play}${bookLink}${exactCard(card, doc.state)}${wantsOf(card)}${doorsList(doors, false)}${onDemand}${more.join('')}`;
  return layout(id, body, { caller, liveView: card.paint !== undefined ? { object: id, version: card.version } : undefined });
}

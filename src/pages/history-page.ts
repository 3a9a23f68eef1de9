/**
 * GET /history: the chronicle, a day a page, from the journal's receipt lines. Days are counted
 * in the town's own calendar: day 1 is the UTC day of its founding entry. `?day=N` shows day N;
 * `?from=N&to=M` narrows the days paged through; `?page=N` is the N-th day of the range counting
 * back from its newest (page 1). Lines about cards the reader may not see are left out.
 */
import type { Caller } from '../contract/caller.js';
import { receiptDocs, type ReceiptDoc } from '../projections/receipts.js';
import type { WorldReads } from '../queries/world-reads.js';
import { e, layout, readerOf, seg, shortName, timeTag } from './layout.js';
import { carriedMark, spoken, visibleIdSet } from './reads.js';

const dayMs = 86_400_000;
/** The most lines one day's page shows (the newest of the day). */
export const linesPerDay = 500;

export interface HistoryQuery {
  day?: string;
  from?: string;
  to?: string;
  page?: string;
}

export async function historyPage(r: WorldReads, caller: Caller | undefined, q: HistoryQuery, height?: number): Promise<string> {
  const receipts = r.reads.collection(receiptDocs.name);
  const [first] = (await receipts.find({ world: r.world }, { sort: { height: 1 }, limit: 1 })) as ReceiptDoc[];
  const [last] = (await receipts.find({ world: r.world }, { sort: { height: -1 }, limit: 1 })) as ReceiptDoc[];
  if (!first || !last) return layout('the chronicle', '<h1>the chronicle</h1><p>Nothing has happened yet.</p>', { caller, liveHeight: height });
  const founded = Math.floor(first.clock / dayMs);
  const lastDay = Math.max(1, Math.floor(last.clock / dayMs) - founded + 1);
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const from = Math.max(1, Math.min(num(q.from) ?? 1, lastDay));
  const to = Math.max(from, Math.min(num(q.to) ?? lastDay, lastDay));
  const page = Math.max(1, num(q.page) ?? 1);
  const day = q.day !== undefined ? Math.max(1, Math.min(num(q.day)!, lastDay)) : Math.max(from, to - Math.min(page, to) + 1);
  const start = (founded + day - 1) * dayMs;
  const docs = (await receipts.find(
    { world: r.world, clock: { $gte: start, $lt: start + dayMs } },
    { sort: { height: -1 }, limit: linesPerDay },
  )) as ReceiptDoc[];
  const seen = await visibleIdSet(
    r,
    readerOf(caller),
    docs.map((d) => d.object),
  );
  const shown = docs.filter((d) => d.object === '' || seen.has(d.object));
  const rows = shown.map(
    (d) =>
      `<li class="${e(d.status)}">${timeTag(d.clock, 'clock')}` +
      ` <span class="by">${e(shortName(d.principal))}</span> ${e(spoken(r, d.line))}${d.object ? ` <a href="/o/${seg(d.object)}">${e(d.object)}</a>` : ''} <span class="h">#${e(d.height)}</span>${carriedMark(r, d.height)}</li>`,
  );
  const range = q.from !== undefined || q.to !== undefined ? `from=${from}&to=${to}&` : '';
  const nav: string[] = [];
  if (q.day !== undefined) {
    if (day > 1) nav.push(`<a rel="prev" href="/history?day=${day - 1}">day ${day - 1}</a>`);
    if (day < lastDay) nav.push(`<a rel="next" href="/history?day=${day + 1}">day ${day + 1}</a>`);
  } else {
    if (day > from) nav.push(`<a rel="prev" href="/history?${range}page=${page + 1}">day ${day - 1}</a>`);
    if (page > 1) nav.push(`<a rel="next" href="/history?${range}page=${page - 1}">day ${day + 1}</a>`);
  }
  const body =
    `<h1>the chronicle: day ${e(day)}</h1><p>${timeTag(start, 'day')}; the town has ${e(lastDay)} day${lastDay === 1 ? '' : 's'}.</p>` +
    (rows.length ? `<ol class="chronicle" reversed>${rows.join('')}</ol>` : '<p>Nothing you can see happened that day.</p>') +
    (docs.length === linesPerDay ? `<p>The newest ${linesPerDay} lines of the day.</p>` : '') +
    (nav.length ? `<p class="pages">${nav.join(' · ')}</p>` : '');
  return layout(`the chronicle: day ${day}`, body, { caller, liveHeight: height });
}

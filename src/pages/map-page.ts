/**
 * GET /map: the doors between the rooms the reader may see, a page at a time; `?from=<card>`
 * keeps the doors out of one room (or out of the room a card lies in).
 */
import type { Caller } from '../contract/caller.js';
import type { WorldReads } from '../queries/world-reads.js';
import { e, layout, readerOf, seg } from './layout.js';
import { labelOf, visibleCards, visibleIdSet } from './reads.js';

export const doorsPerMapPage = 64;
/** Pages beyond this are not served (a number no town's doors reach, kept well inside any store's skip). */
const maxMapPage = 100_000;

export async function mapPage(r: WorldReads, caller: Caller | undefined, q: { from?: string; page?: string }): Promise<string> {
  const reader = readerOf(caller);
  let room: string | undefined;
  if (q.from !== undefined) {
    const [card] = await visibleCards(r, reader, { id: q.from }, 1);
    // A card the reader may not see is treated as no card at all: the map of nothing.
    room = card ? (card.kind === 'room' ? card.id : card.place) : '';
  }
  const page = Math.min(maxMapPage, Math.max(1, Number(q.page ?? '1') || 1));
  const filter: Record<string, unknown> = { kind: 'door' };
  if (room !== undefined) filter.place = room;
  const fetched = await visibleCards(r, reader, filter, doorsPerMapPage + 1, (page - 1) * doorsPerMapPage);
  const doors = fetched.slice(0, doorsPerMapPage);
  const ends = await visibleIdSet(
    r,
    reader,
    doors.flatMap((d) => [labelOf(d.state, 'from') ?? '', labelOf(d.state, 'to') ?? '']),
  );
  const end = (id: string) => (id && ends.has(id) ? `<a href="/map?from=${encodeURIComponent(id)}">${e(id)}</a>` : '<em>nowhere you can see</em>');
  const rows = doors.map((d) => {
    const open = d.state.tag === 'record' && d.state.fields.some((f) => f.name === 'open' && f.value.tag === 'boolean' && !f.value.value) ? 'closed' : 'open';
    return `<tr><td>${end(labelOf(d.state, 'from') ?? '')}</td><td><a href="/o/${seg(d.id)}">${e(labelOf(d.state, 'name') ?? d.id)}</a> (${open})</td><td>${end(labelOf(d.state, 'to') ?? '')}</td></tr>`;
  });
  const base = q.from !== undefined ? `/map?from=${encodeURIComponent(q.from)}&` : '/map?';
  const nav = [
    page > 1 ? `<a rel="prev" href="${base}page=${page - 1}">newer</a>` : '',
    fetched.length > doorsPerMapPage ? `<a rel="next" href="${base}page=${page + 1}">more doors</a>` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const title = q.from !== undefined ? `doors out of ${q.from}` : 'the door map';
  const body =
    `<h1>${e(title)}</h1>` +
    (rows.length
      ? `<table class="map"><thead><tr><th>from</th><th>door</th><th>to</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
      : '<p>No doors you can see here.</p>') +
    (nav ? `<p class="pages">${nav}</p>` : '');
  return layout(title, body, { caller });
}

/**
 * GET /town: every room and door the reader may see, each room a panel (who is here, what lies
 * here, its newest lines, its doors, its scene, its spells); `?open=<card>` unfolds one panel.
 * The page redraws itself on `moved` (the script follows /live from the height it was drawn at).
 */
import type { Caller } from '../contract/caller.js';
import type { CardDoc } from '../projections/cards.js';
import { actionsOf } from '../queries/card.js';
import { packageOf, type WorldReads } from '../queries/world-reads.js';
import { e, layout, readerOf, seg } from './layout.js';
import { labelOf, visibleCards } from './reads.js';

/** The most cards one town page reads; a town beyond that is read through /map and /kinds. */
const cardsOnTownPage = 5000;

export async function townPage(r: WorldReads, caller: Caller | undefined, open: string | undefined, height: number): Promise<string> {
  const reader = readerOf(caller);
  const cards = await visibleCards(r, reader, {}, cardsOnTownPage);
  const byId = new Map(cards.map((c) => [c.id, c]));
  const inPlace = new Map<string, CardDoc[]>();
  for (const c of cards) if (c.place) inPlace.set(c.place, [...(inPlace.get(c.place) ?? []), c]);
  const rooms = cards.filter((c) => c.kind === 'room');
  const link = (id: string) => `<a href="/o/${seg(id)}">${e(byId.get(id) ? (labelOf(byId.get(id)!.state, 'name') ?? id) : id)}</a>`;
  const panels: string[] = [];
  for (const room of rooms) {
    const lying = inPlace.get(room.id) ?? [];
    const doors = lying.filter((c) => c.kind === 'door');
    const things = lying.filter((c) => c.kind !== 'door' && c.kind !== 'avatar');
    const here = lying.filter((c) => c.kind === 'avatar').map((c) => c.id);
    const unfolded = open === room.id;
    const doorItems = doors
      .map((d) => {
        const to = labelOf(d.state, 'to') ?? '';
        return `<li>${link(d.id)}${to && byId.has(to) ? ` → <a href="/town?open=${encodeURIComponent(to)}#${e(to)}">${e(labelOf(byId.get(to)!.state, 'name') ?? to)}</a>` : ''}</li>`;
      })
      .join('');
    let more = '';
    if (unfolded) {
      const pkg = await packageOf(r, room.pin);
      const spells = Object.entries(actionsOf(pkg));
      more =
        `<h3>newest lines</h3>${room.lines.length ? `<ol class="lines">${room.lines.map((l) => `<li>${e(l)}</li>`).join('')}</ol>` : '<p>Quiet so far.</p>'}` +
        (spells.length
          ? `<h3>spells</h3><ul>${spells.map(([name, s]) => `<li>${caller ? `<a href="/play/${seg(room.id)}#spell-${encodeURIComponent(name)}">${e(s)}</a>` : e(s)}</li>`).join('')}</ul>`
          : '');
    } else if (room.lines.length) {
      more = `<p class="last">${e(room.lines[room.lines.length - 1])}</p>`;
    }
    panels.push(
      `<section class="room${unfolded ? ' open' : ''}" id="${e(room.id)}"><h2>${link(room.id)}</h2>` +
        `<p class="scene">${e(labelOf(room.state, 'description') ?? '')}</p>` +
        `<p><strong>here:</strong> ${here.length ? here.map(link).join(', ') : 'nobody'}</p>` +
        `<p><strong>lying here:</strong> ${things.length ? things.map((t) => link(t.id)).join(', ') : 'nothing'}</p>` +
        (doorItems ? `<ul class="doors">${doorItems}</ul>` : '') +
        more +
        (unfolded ? '' : `<p><a href="/town?open=${encodeURIComponent(room.id)}#${e(room.id)}">unfold</a></p>`) +
        '</section>',
    );
  }
  const body =
    `<h1>the town</h1><p>${rooms.length} rooms you can see, drawn at journal height ${e(height)}.</p>` +
    (panels.length ? panels.join('') : '<p>No rooms you can see.</p>');
  return layout('the town', body, { caller, liveHeight: height });
}

/**
 * The parts of a card every card-facing page shows (spec 4.6): its paint, the exact card folded
 * beneath, what it wants, and its doors.
 */
import type { CardDoc } from '../projections/cards.js';
import type { cardReply } from '../queries/card.js';
import { e, seg, shortName } from './layout.js';
import { showData } from '../cards/typed-text.js';
import { labelOf } from './reads.js';

export type CardView = Awaited<ReturnType<typeof cardReply>>;

export function paintOf(card: CardView): string {
  return card.paint !== undefined
    ? `<p class="paint" id="paint">${e(card.paint)}</p>`
    : `<p class="paint" id="paint"><em>${e(card.kind)}</em> ${e(card.id)}</p>`;
}

/** The exact card, folded: every field as the caller may have it. */
export function exactCard(card: CardView, state: CardDoc['state']): string {
  const lines = card.lines.length ? `<ol class="lines">${card.lines.map((l) => `<li>${e(l)}</li>`).join('')}</ol>` : '<p>No lines yet.</p>';
  return (
    '<details class="exact"><summary>the exact card</summary><dl>' +
    `<dt>id</dt><dd>${e(card.id)}</dd><dt>kind</dt><dd>${e(card.kind)} <span class="pin">${e(card.pinSlug)}</span></dd>` +
    `<dt>version</dt><dd>${e(card.version)}</dd><dt>owner</dt><dd>${e(card.owner || 'nobody')}</dd><dt>maker</dt><dd>${e(card.maker)}</dd>` +
    `<dt>place</dt><dd>${card.place ? `<a href="/o/${seg(card.place)}">${e(card.place)}</a>` : '—'}</dd>` +
    `<dt>seen by</dt><dd>${e(card.visibility)}</dd><dt>state</dt><dd><code>${e(showData(state))}</code></dd></dl>` +
    `<h2 class="sub">newest lines</h2>${lines}</details>`
  );
}

export function wantsOf(card: CardView): string {
  if (!card.wants.length) return '';
  return `<section class="wants"><h2>wants</h2><ul>${card.wants.map((w) => `<li><strong>${e(w.name)}</strong> ${e(w.reading)}</li>`).join('')}</ul></section>`;
}

/** Doors, each as where it leads; `play` links go to the play page. */
export function doorsList(doors: CardDoc[], play: boolean): string {
  if (!doors.length) return '';
  const items = doors.map((d) => {
    const to = labelOf(d.state, 'to') ?? '';
    const name = labelOf(d.state, 'name') ?? d.id;
    const target = to ? ` → <a href="/${play ? 'play' : 'o'}/${seg(to)}">${e(to)}</a>` : '';
    return `<li><a href="/o/${seg(d.id)}">${e(name)}</a>${target}</li>`;
  });
  return `<section class="doors"><h2>doors</h2><ul>${items.join('')}</ul></section>`;
}

export const byWhom = (p: string) => e(shortName(p));

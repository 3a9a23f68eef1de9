/** GET /kinds: every kind among the cards the reader may see, each linking to an inspector. */
import type { Caller } from '../contract/caller.js';
import type { WorldReads } from '../queries/world-reads.js';
import { e, layout, readerOf, seg } from './layout.js';
import { visibleCards } from './reads.js';

export async function kindsPage(r: WorldReads, caller: Caller | undefined): Promise<string> {
  const cards = await visibleCards(r, readerOf(caller), {}, 5000);
  const kinds = new Map<string, { first: string; count: number }>();
  for (const c of cards) {
    const k = kinds.get(c.kind);
    if (k) k.count++;
    else kinds.set(c.kind, { first: c.id, count: 1 });
  }
  const rows = [...kinds.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([kind, k]) =>
        `<li id="${e(kind)}"><a href="/inspect/${seg(k.first)}">${e(kind)}</a> — ${k.count} card${k.count === 1 ? '' : 's'}, e.g. <a href="/o/${seg(k.first)}">${e(k.first)}</a>` +
        ` · <a href="/library/${encodeURIComponent(kind)}">page</a></li>`,
    );
  return layout('kinds', `<h1>kinds</h1>${rows.length ? `<ul class="kinds">${rows.join('')}</ul>` : '<p>No cards you can see.</p>'}`, { caller });
}

/**
 * GET /lib and /lib/{name}: the modules the town holds that the reader may read, which are the
 * modules of the packages pinned by cards the reader may see (a module only an unseen card runs
 * is not named). One name may have several texts (a card reprogrammed); `?cid=` picks one.
 */
import { cidOf } from '../cards/compile.js';
import { TownError } from '../contract/town-error.js';
import type { Caller } from '../contract/caller.js';
import { packageOf, type WorldReads } from '../queries/world-reads.js';
import { e, layout, numbered, readerOf } from './layout.js';
import { visibleCards } from './reads.js';

interface ModuleText {
  name: string;
  cid: string;
  source: string;
  kinds: Set<string>;
}

async function readableModules(r: WorldReads, caller: Caller | undefined): Promise<Map<string, ModuleText[]>> {
  const cards = await visibleCards(r, readerOf(caller), {}, 5000);
  const pins = [...new Set(cards.map((c) => c.pin))];
  const out = new Map<string, ModuleText[]>();
  for (const pin of pins) {
    const pkg = await packageOf(r, pin);
    if (!pkg) continue;
    for (const m of pkg.modules) {
      const cid = cidOf({ name: m.name, source: m.source });
      const texts = out.get(m.name) ?? [];
      const known = texts.find((t) => t.cid === cid);
      if (known) known.kinds.add(pkg.kind);
      else texts.push({ name: m.name, cid, source: m.source, kinds: new Set([pkg.kind]) });
      out.set(m.name, texts);
    }
  }
  return out;
}

export async function libIndexPage(r: WorldReads, caller: Caller | undefined): Promise<string> {
  const modules = await readableModules(r, caller);
  const items = [...modules.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([name, texts]) =>
        `<li><a href="/lib/${encodeURIComponent(name)}">${e(name)}</a> — ${texts.length} text${texts.length === 1 ? '' : 's'}, used by ${e([...new Set(texts.flatMap((t) => [...t.kinds]))].join(', '))}</li>`,
    );
  return layout('modules', `<h1>modules</h1>${items.length ? `<ul>${items.join('')}</ul>` : '<p>No modules you may read.</p>'}`, { caller });
}

export async function libModulePage(r: WorldReads, name: string, cid: string | undefined, caller: Caller | undefined): Promise<string> {
  const texts = (await readableModules(r, caller)).get(name);
  const chosen = cid === undefined ? texts?.[0] : texts?.find((t) => t.cid === cid);
  if (!texts || !chosen) {
    throw new TownError('unknown', `no module ${JSON.stringify(name.slice(0, 80))}${cid !== undefined ? ' with that cid' : ''} that you may read`, {
      hint: 'the modules you may read are listed at /lib',
    });
  }
  const others = texts
    .filter((t) => t !== chosen)
    .map((t) => `<li><a href="/lib/${encodeURIComponent(name)}?cid=${encodeURIComponent(t.cid)}"><code>${e(t.cid)}</code></a></li>`);
  const body =
    `<h1>module ${e(name)}</h1><p>cid <code>${e(chosen.cid)}</code>; used by ${e([...chosen.kinds].join(', '))}</p>` +
    numbered(chosen.source) +
    (others.length ? `<h2>other texts</h2><ul>${others.join('')}</ul>` : '');
  return layout(`module ${name}`, body, { caller });
}

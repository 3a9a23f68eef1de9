/**
 * GET /inspect/{object}: the card's source set with line anchors, its kind and pinned code,
 * owner and maker, its spells as forms posting `do` to /play/{object}, its law with readings,
 * its rules and wants, its fields, and its newest receipts. Redraws itself on `moved`.
 */
import type { Caller } from '../contract/caller.js';
import { cardReply, shownCard } from '../queries/card.js';
import { sourceReply } from '../queries/source.js';
import type { WorldReads } from '../queries/world-reads.js';
import { spoken } from './reads.js';
import { e, layout, numbered, readerOf, seg } from './layout.js';
import { lawSection, receiptsSection } from './card-page.js';
import { spellForms } from './spell-forms.js';
import { showData } from '../cards/typed-text.js';

export async function inspectPage(r: WorldReads, id: string, caller: Caller | undefined, height: number): Promise<string> {
  const reader = readerOf(caller);
  const card = await cardReply(r, id, reader);
  card.lines = card.lines.map((l) => spoken(r, l));
  const { card: doc, pkg } = await shownCard(r, id, reader);
  const src = await sourceReply(r, id, reader, false);
  const fields =
    doc.state.tag === 'record'
      ? `<dl class="fields">${doc.state.fields.map((f) => `<dt>${e(f.name)}</dt><dd><code>${e(showData(f.value))}</code></dd>`).join('')}</dl>`
      : `<p><code>${e(showData(doc.state))}</code></p>`;
  const rules = pkg?.rules.length
    ? `<ul>${pkg.rules.map((x) => `<li><strong>${e(x.name)}</strong> <code>${e(x.text)}</code></li>`).join('')}</ul>`
    : '<p>No rules.</p>';
  const wants = pkg?.wants.length ? `<ul>${pkg.wants.map((w) => `<li><strong>${e(w.name)}</strong> ${e(w.reading)}</li>`).join('')}</ul>` : '<p>No wants.</p>';
  const spells = caller ? spellForms(id, pkg) : '<p><a href="/enter">Enter</a> to cast its spells.</p>';
  const body =
    `<h1>inspect ${e(id)}</h1>` +
    `<dl class="who"><dt>kind</dt><dd><a href="/kinds#${e(card.kind)}">${e(card.kind)}</a> → pinned <code>${e(src.pinSlug)}</code></dd>` +
    `<dt>owner</dt><dd>${e(card.owner || 'nobody')}</dd><dt>maker</dt><dd>${e(card.maker)}</dd><dt>version</dt><dd>${e(card.version)}</dd></dl>` +
    `<p><a href="/o/${seg(id)}">card page</a>${caller ? ` · <a href="/play/${seg(id)}">play</a>` : ''}</p>` +
    spells +
    (await lawSection(r, id, reader)) +
    `<section><h2>rules</h2>${rules}</section><section><h2>wants</h2>${wants}</section>` +
    `<section><h2>fields</h2>${fields}</section>` +
    `<section id="source"><h2>source</h2>${numbered(src.source)}</section>` +
    (await receiptsSection(r, id, 8));
  return layout(`inspect ${id}`, body, { caller, liveHeight: height });
}

/**
 * GET /play/{object}: the card's paint, the card folded beneath, its wants and doors, one reply
 * box (`?say=` fills it) with the card's spells suggested, and each spell as a form of its own.
 * POST /play/{object}: a reply (`text`, to `receive` as {text, post: ""}) or one of the forms
 * offered (`do` = `action?field=value&…`, `f.<field>` for what the reader typed), cast as the
 * signed-in guest under a fresh intent; the page shows the receipt line, what came back, and
 * the card afterwards.
 */
import { randomUUID } from 'node:crypto';
import type { FormField } from '../cards/program.js';
import type { Decided } from '../commands/world-service.js';
import { TownError } from '../contract/town-error.js';
import type { Caller } from '../contract/caller.js';
import type { PackageDoc } from '../projections/cards.js';
import { actionsOf, cardReply, shownCard } from '../queries/card.js';
import { outcomeReply } from '../queries/turn-reply.js';
import type { WorldReads } from '../queries/world-reads.js';
import { offersAfter } from '../queries/offers.js';
import { doorsList, exactCard, paintOf, wantsOf } from './card-panel.js';
import { doorsNear } from './card-page.js';
import { e, layout, seg } from './layout.js';

/** One input per form field, named `f.<field>`, so a `do` form posts what the reader typed. */
function input(f: FormField): string {
  const name = `f.${f.name}`;
  const req = f.optional ? '' : ' required';
  switch (f.form.kind) {
    case 'oneOf':
      return `<label>${e(f.name)} <select name="${e(name)}"${req}>${f.form.options.map((o) => `<option>${e(o)}</option>`).join('')}</select></label>`;
    case 'boolean':
      return `<label>${e(f.name)} <select name="${e(name)}"><option>true</option><option>false</option></select></label>`;
    case 'natural':
      return `<label>${e(f.name)} <input name="${e(name)}" type="number" min="${e(f.form.min)}" max="${e(f.form.max)}"${req}></label>`;
    default:
      return `<label>${e(f.name)} <input name="${e(name)}" maxlength="${e(f.form.max)}"${f.optional || f.form.min === 0 ? '' : req}></label>`;
  }
}

/** The card's spells as forms posting `do` to /play/{object}. */
export function spellForms(id: string, pkg: PackageDoc | undefined): string {
  const listed = actionsOf(pkg);
  const forms = (pkg?.methods ?? [])
    .filter((m) => listed[m.name] !== undefined)
    .map((m) => {
      const fields = (m.form ?? []).map(input).join(' ');
      return (
        `<form class="spell" method="post" action="/play/${seg(id)}"><input type="hidden" name="do" value="${e(m.name)}">` +
        `<button>${e(m.name)}</button> ${fields} <code class="template">${e(listed[m.name])}</code></form>`
      );
    });
  return forms.length ? `<section class="spells"><h2>spells</h2>${forms.join('')}</section>` : '';
}

export async function playPage(r: WorldReads, id: string, caller: Caller, say: string | undefined, outcome = ''): Promise<string> {
  const card = await cardReply(r, id, caller.principal);
  const { card: doc, pkg } = await shownCard(r, id, caller.principal);
  const doors = await doorsNear(r, caller.principal, card);
  const suggestions = card.spells.map((s) => `<li><a href="/play/${seg(id)}?say=${encodeURIComponent(s)}">${e(s)}</a></li>`).join('');
  const reply =
    `<form class="reply" method="post" action="/play/${seg(id)}">` +
    `<label for="say">say to ${e(id)}</label><textarea id="say" name="text" rows="2">${e(say ?? '')}</textarea><button>reply</button></form>` +
    (suggestions ? `<details open><summary>spells it hears</summary><ul class="suggest">${suggestions}</ul></details>` : '');
  const body =
    `${outcome}<h1>${e(id)}</h1>${paintOf(card)}${reply}${spellForms(id, pkg)}${wantsOf(card)}${doorsList(doors, true)}` +
    `${exactCard(card, doc.state)}<p><a href="/o/${seg(id)}">card page</a> · <a href="/inspect/${seg(id)}">inspect</a></p>`;
  return layout(`play ${id}`, body, { caller, liveView: card.paint !== undefined ? { object: id, version: card.version } : undefined });
}

export interface PlayRequest {
  method: string;
  fields: Record<string, string>;
}

/**
 * What a play form asks for. `text` goes to `receive`; `do` must name one of the forms the card
 * offers the caller (anything else is refused before a turn is spent).
 */
export function playRequest(body: Record<string, unknown>, pkg: PackageDoc | undefined): PlayRequest {
  if (typeof body.do === 'string') {
    const at = body.do.indexOf('?');
    const method = at < 0 ? body.do : body.do.slice(0, at);
    const fields: Record<string, string> = {};
    if (at >= 0) for (const [k, v] of new URLSearchParams(body.do.slice(at + 1))) fields[k] = v;
    for (const [k, v] of Object.entries(body)) if (k.startsWith('f.') && typeof v === 'string') fields[k.slice(2)] = v;
    if (actionsOf(pkg)[method] === undefined) {
      throw new TownError('hostRequest', `${method} is not one of the spells this card offers you`, { hint: 'use one of the forms on the play page' });
    }
    return { method, fields };
  }
  return { method: 'receive', fields: { text: typeof body.text === 'string' ? body.text : '', post: '' } };
}

export const freshIntent = () => `play:${randomUUID()}`;

/** The receipt of a play, shown open above the card. */
export async function outcomeSection(r: WorldReads, caller: Caller, decided: Decided): Promise<string> {
  const reply = outcomeReply(decided.outcome, { height: decided.height }) as {
    status?: string;
    class?: string;
    line?: string;
    revealed?: string[];
    offers?: string[];
    receipt?: { slug: string; height: number };
  };
  const revealed = reply.revealed?.length ? `<ul class="revealed">${reply.revealed.map((x) => `<li>${e(x)}</li>`).join('')}</ul>` : '';
  // What came back: cards made for the caller by this turn and by the sends delivered with it.
  const offers = reply.receipt ? await offersAfter(r, caller.principal, reply.receipt.height - 1) : [];
  const back = offers.length
    ? `<h3>came back</h3><ul class="offers">${offers.map((o) => `<li><a href="/o/${seg(o.object)}">${e(o.text)}</a></li>`).join('')}</ul>`
    : '';
  const receipt = reply.receipt ? ` <code class="slug">${e(reply.receipt.slug)}</code> at #${e(reply.receipt.height)}` : '';
  return (
    `<section class="receipt ${e(reply.status ?? '')}" role="status"><h2>${e(reply.status ?? '')}${reply.class ? ` (${e(reply.class)})` : ''}</h2>` +
    `<p class="line">${e(reply.line ?? '')}${receipt}</p>${revealed}${back}</section>`
  );
}

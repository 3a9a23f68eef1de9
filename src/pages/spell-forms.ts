/**
 * A card's spells as forms: each spell a form posting `do` to /play/{object},
 * with one input per field typed by its kind and bounds (a number within its range, a choice
 * among its options, text within its length, a card id offered from what lies near), and a cast
 * button. A spell that wants one card, where the cards near are known, is also offered as one
 * button per card ("go library", "carry lamp"): nothing is typed by hand that the page can name.
 */
import type { FieldForm, FormField } from '../cards/program.js';
import type { PackageDoc } from '../projections/cards.js';
import { actionsOf } from '../queries/card.js';
import { e, seg } from './layout.js';

/** A card near the one being played, and how the page names it. */
export interface NearCard {
  id: string;
  name: string;
}

/** What lies near a card, by what a field of that name would want. */
export interface Nearby {
  /** Rooms one door away. */
  rooms: NearCard[];
  /** The room itself (offered for typing, never as a button: an avatar is already there). */
  here: NearCard[];
  doors: NearCard[];
  /** Things lying in the room, and what the reader's avatar carries. */
  things: NearCard[];
  /** Avatars in the room, the reader's own first. */
  avatars: NearCard[];
}

/** The card ids the `nearby` datalist offers for every object field. */
export const allNear = (n: Nearby): NearCard[] => {
  const seen = new Map<string, NearCard>();
  for (const c of [...n.avatars, ...n.things, ...n.doors, ...n.rooms, ...n.here]) if (!seen.has(c.id)) seen.set(c.id, c);
  return [...seen.values()];
};

/** Which cards a field wants, by its name; undefined when its name says nothing. */
function wanted(field: string, n: Nearby): NearCard[] | undefined {
  if (field === 'room') return n.rooms;
  if (field === 'door') return n.doors;
  if (field === 'thing' || field === 'item') return n.things;
  if (field === 'avatar' || field === 'who') return n.avatars;
  return undefined;
}

/** The card id rule (spec 2.1) as an HTML pattern; `v`-flag safe (`/` and `-` escaped). */
const objectPattern = '[A-Za-z0-9._:\\/\\-]+';

function bounds(f: FieldForm): string {
  switch (f.kind) {
    case 'natural':
      return `a whole number ${f.min} to ${f.max}`;
    case 'text':
      // What a guest writes into a spell is public: it is part of the receipt, and a card's lines
      // and the chronicle (/history) show it to anyone, signed in or not (docs/world.md).
      return `${f.min === 0 ? `text, up to ${f.max} characters (may be empty)` : `text, ${f.min} to ${f.max} characters`}; anyone reading the town can see it`;
    case 'object':
      return f.min === 0 ? 'a card id (may be empty)' : 'a card id';
    case 'oneOf':
      return `one of ${f.options.join(', ')}`;
    case 'boolean':
      return 'yes or no';
  }
}

/** One input for one field, named `f.<field>` (what the reader typed wins over `do`'s own). */
function input(id: string, f: FormField, datalist: boolean): string {
  const name = e(`f.${f.name}`);
  const form = f.form;
  const described = ` aria-describedby="${id}-b"`;
  const required = f.optional ? '' : ' required';
  let control: string;
  switch (form.kind) {
    case 'oneOf':
      control = `<select id="${id}" name="${name}"${required}${described}>${form.options.map((o) => `<option>${e(o)}</option>`).join('')}</select>`;
      break;
    case 'boolean':
      control = `<select id="${id}" name="${name}"${described}><option>true</option><option>false</option></select>`;
      break;
    case 'natural':
      control = `<input id="${id}" name="${name}" type="number" inputmode="numeric" step="1" min="${e(form.min)}" max="${e(form.max)}"${required}${described}>`;
      break;
    case 'object':
      control =
        `<input id="${id}" name="${name}" type="text" autocomplete="off" spellcheck="false" pattern="${e(objectPattern)}"` +
        ` maxlength="${e(form.max)}"${form.min > 0 ? required : ''}${datalist ? ' list="nearby"' : ''}${described}>`;
      break;
    default:
      control =
        form.max > 120
          ? `<textarea id="${id}" name="${name}" rows="2" maxlength="${e(form.max)}"${form.min > 0 ? ` minlength="${e(form.min)}"` : ''}${form.min > 0 ? required : ''}${described}></textarea>`
          : `<input id="${id}" name="${name}" type="text" maxlength="${e(form.max)}"${form.min > 0 ? ` minlength="${e(form.min)}"` : ''}${form.min > 0 ? required : ''}${described}>`;
  }
  return `<span class="field"><label for="${id}">${e(f.name)}</label> ${control} <span class="b" id="${id}-b">${e(bounds(form))}</span></span>`;
}

/**
 * One button per card for a spell that wants exactly one card (its other fields may be left
 * empty), where the field's name says which cards near it would do.
 */
function quickCasts(action: string, id: string, fields: FormField[], nearby: Nearby | undefined): string {
  if (!nearby) return '';
  const needed = fields.filter((f) => !f.optional);
  if (needed.length !== 1 || needed[0]!.form.kind !== 'object') return '';
  const field = needed[0]!;
  const cards = (wanted(field.name, nearby) ?? []).filter((c) => c.id !== id).slice(0, 12);
  if (!cards.length) return '';
  const buttons = cards.map((c) => {
    const value = `${field.name}=${encodeURIComponent(c.id)}`;
    return (
      `<form class="quick" method="post" action="/play/${seg(id)}"><input type="hidden" name="do" value="${e(`${action}?${value}`)}">` +
      `<button>${e(action)} ${e(c.name)}</button></form>`
    );
  });
  return `<div class="quicks" aria-label="${e(action)} at once">${buttons.join('')}</div>`;
}

/** The card's spells as forms posting `do` to /play/{object}; `nearby` adds choices and buttons. */
export function spellForms(id: string, pkg: PackageDoc | undefined, nearby?: Nearby): string {
  const listed = actionsOf(pkg);
  const datalist = nearby && allNear(nearby).length > 0;
  const forms = (pkg?.methods ?? [])
    .filter((m) => listed[m.name] !== undefined)
    .map((m) => {
      const fields = m.form ?? [];
      const base = `spell-${m.name}`;
      const inputs = fields.map((f) => input(`${base}-${f.name}`, f, Boolean(datalist))).join(' ');
      return (
        `<div class="spell" id="${e(base)}"><form method="post" action="/play/${seg(id)}"><input type="hidden" name="do" value="${e(m.name)}">` +
        `<fieldset><legend>${e(m.name)}</legend>${inputs} <button>cast ${e(m.name)}</button>` +
        ` <code class="template">${e(listed[m.name])}</code></fieldset></form>${quickCasts(m.name, id, fields, nearby)}</div>`
      );
    });
  if (!forms.length) return '';
  const options = datalist
    ? `<datalist id="nearby">${allNear(nearby!)
        .map((c) => `<option value="${e(c.id)}">${e(c.name)}</option>`)
        .join('')}</datalist>`
    : '';
  return `<section class="spells" aria-labelledby="spells-h"><h2 id="spells-h">spells it hears</h2>${forms.join('')}${options}</section>`;
}

/**
 * GET /play/{object}: the card's paint, each of its spells as a form of its own (spell-forms.ts:
 * typed inputs, and a button per card near for a spell that wants one), one reply box for prose
 * (`?say=` fills it), its wants, its doors and the cards near as links, and the card folded
 * beneath.
 * POST /play/{object}: a reply (`text`, to `receive` as {text, post: ""}) or one of the forms
 * offered (`do` = `action?field=value&…`, `f.<field>` for what the reader typed), cast as the
 * signed-in guest under a fresh intent; the page shows the receipt line, what came back, and
 * the card afterwards.
 */
import { randomUUID } from 'node:crypto';
import type { Decided } from '../commands/world-service.js';
import { TownError } from '../contract/town-error.js';
import type { Caller } from '../contract/caller.js';
import type { CardDoc, PackageDoc } from '../projections/cards.js';
import type { TypedData } from '../contract/typed.js';
import { actionsOf, cardReply, shownCard } from '../queries/card.js';
import { outcomeReply } from '../queries/turn-reply.js';
import type { WorldReads } from '../queries/world-reads.js';
import { offersAfter } from '../queries/offers.js';
import { type CardView, doorsList, exactCard, paintOf, wantsOf } from './card-panel.js';
import { e, layout, seg } from './layout.js';
import { type ReceiptFacts, receiptWords, verdict } from './receipt-words.js';
import { fieldOf, labelOf, spoken, visibleCards } from './reads.js';
import { type NearCard, type Nearby, spellForms } from './spell-forms.js';

/** Where the reader's avatar stands: its room, what lies there and what it carries, read once a page. */
interface Standing {
  me: CardDoc;
  room: CardDoc;
  lying: CardDoc[];
  carried: CardDoc[];
}

async function standingOf(r: WorldReads, reader: string, avatar: string | undefined): Promise<Standing | undefined> {
  if (!avatar) return undefined;
  const [me] = await visibleCards(r, reader, { id: avatar }, 1);
  if (!me?.place) return undefined;
  const [room] = await visibleCards(r, reader, { id: me.place }, 1);
  if (!room) return undefined;
  // what lies in a room and what an avatar carries are read from places, the one truth (docs/world.md)
  const [lying, carried] = await Promise.all([visibleCards(r, reader, { place: room.id }, 200), visibleCards(r, reader, { place: avatar }, 200)]);
  return { me, room, lying, carried };
}

const nameOf = (c: CardDoc) => labelOf(c.state, 'name') ?? labelOf(c.state, 'title') ?? c.id;

/** What lies near the card: its room, the room's doors and where they lead, things, avatars. */
async function nearbyOf(
  r: WorldReads,
  reader: string,
  card: CardView,
  avatar: string | undefined,
  st: Standing | undefined,
): Promise<{ nearby: Nearby; doors: CardDoc[] }> {
  const room = card.kind === 'room' ? card.id : card.place;
  const lying = room === st?.room.id ? st.lying : room ? await visibleCards(r, reader, { place: room }, 200) : [];
  const doors = lying.filter((c) => c.kind === 'door');
  const targets = doors.map((d) => labelOf(d.state, 'to') ?? '').filter((to) => to !== '');
  const carried = st?.carried ?? [];
  const named = await visibleCards(r, reader, { id: { $in: [...new Set([...targets, ...(room ? [room] : [])])] } }, 200);
  const byId = new Map([...lying, ...named, ...carried, ...(st ? [st.me] : [])].map((c) => [c.id, c]));
  const near = (id: string): NearCard[] => {
    const c = byId.get(id);
    return c ? [{ id, name: nameOf(c) }] : [];
  };
  const avatars = [...(avatar ? [avatar] : []), ...lying.filter((c) => c.kind === 'avatar' && c.id !== avatar).map((c) => c.id)];
  const things = [...lying.filter((c) => c.kind !== 'door' && c.kind !== 'avatar').map((c) => c.id), ...carried.map((c) => c.id)];
  return {
    doors,
    nearby: {
      rooms: [...new Set(targets)].flatMap(near),
      here: room ? near(room) : [],
      doors: doors.flatMap((d) => near(d.id)),
      things: [...new Set(things)].flatMap(near),
      avatars: [...new Set(avatars)].flatMap(near),
    },
  };
}

/** The cards near, each a link to play it. */
function nearList(id: string, nearby: Nearby): string {
  const items = [...nearby.avatars, ...nearby.things].filter((c) => c.id !== id);
  if (!items.length) return '';
  return `<section class="near" aria-labelledby="near-h"><h2 id="near-h">near here</h2><ul>${items.map((c) => `<li><a href="/play/${seg(c.id)}">${e(c.name)}</a>${c.name !== c.id ? ` <code>${e(c.id)}</code>` : ''}</li>`).join('')}</ul></section>`;
}

/** A button that casts one spell of the reader's avatar with one field filled, from any play page. */
function avatarButton(avatar: string, method: string, field: string, value: string, label: string): string {
  return (
    `<form class="quick" method="post" action="/play/${seg(avatar)}"><input type="hidden" name="do" value="${e(`${method}?${field}=${encodeURIComponent(value)}`)}">` +
    `<button>${e(label)}</button></form>`
  );
}

/**
 * Where the reader stands, as a game screen shows it: the room's name and words, who and what
 * is here, the ways out as buttons, and what the reader carries (each with a button to drop,
 * and each thing here one to take). Read from places, the one truth of where a card is.
 */
async function standing(r: WorldReads, reader: string, avatar: string | undefined, st: Standing | undefined): Promise<string> {
  if (!avatar || !st) return '';
  const { room, lying, carried } = st;
  const others = lying.filter((c) => c.kind === 'avatar' && c.id !== avatar);
  const things = lying.filter((c) => c.kind !== 'avatar' && c.kind !== 'door');
  const listed = new Set(itemsOf(room.state, 'doors').flatMap((d) => (d.tag === 'label' ? [d.value] : [])));
  const doors = lying.filter((c) => c.kind === 'door' && listed.has(c.id));
  const market = things.find((c) => c.kind === 'market');
  const targets = await visibleCards(r, reader, { id: { $in: doors.map((d) => labelOf(d.state, 'to') ?? '') } }, 50);
  const roomName = (id: string) => {
    const t = targets.find((c) => c.id === id);
    return t ? nameOf(t) : id;
  };
  const link = (c: CardDoc) => `<a href="/play/${seg(c.id)}">${e(nameOf(c))}</a>`;
  const ways = doors
    .map((d) => labelOf(d.state, 'to') ?? '')
    .filter((to) => to !== '')
    .map((to) => avatarButton(avatar, 'go', 'room', to, `go to ${roomName(to)}`));
  return (
    `<section class="standing" aria-labelledby="standing-h"><h2 id="standing-h">You are in ${e(nameOf(room))}</h2>` +
    `<p class="scene">${e(labelOf(room.state, 'description') ?? '')}</p>` +
    `<p><strong>Here with you:</strong> ${others.length ? others.map(link).join(', ') : 'nobody'}</p>` +
    `<div class="here"><strong>Lying here:</strong> ${things.length ? `<ul>${things.map((c) => `<li>${link(c)} ${avatarButton(avatar, 'take', 'thing', c.id, `take ${nameOf(c)}`)}</li>`).join('')}</ul>` : 'nothing'}</div>` +
    `<div class="ways"><strong>Ways out:</strong> ${ways.length ? ways.join('') : 'none'}</div>` +
    `<div class="carried"><strong>You carry:</strong> ${carried.length ? `<ul>${carried.map((c) => `<li>${link(c)} ${avatarButton(avatar, 'drop', 'thing', c.id, `drop ${nameOf(c)}`)}</li>`).join('')}</ul>` : 'nothing'}</div>` +
    '</section>' +
    (market ? await marketPanel(r, reader, avatar, market, carried) : '')
  );
}

/** A list field of a record state, as its items. */
const itemsOf = (state: TypedData | undefined, name: string): TypedData[] => {
  const v = state ? fieldOf(state, name) : undefined;
  return v?.tag === 'list' ? v.items : [];
};
const naturalOf = (v: TypedData | undefined): number => (v?.tag === 'natural' ? Number(v.value) : 0);

/** The coins a market holds for a guest: its `coins` map, whichever way the map travels. */
function coinsOf(market: TypedData, principal: string): number {
  const coins = fieldOf(market, 'coins');
  if (coins?.tag === 'record') return naturalOf(fieldOf(coins, principal));
  if (coins?.tag === 'list') {
    for (const item of coins.items) if (labelOf(item, 'key') === principal) return naturalOf(fieldOf(item, 'value'));
  }
  return 0;
}

/**
 * The market lying where the reader stands, kept small: the reader's purse (or a button to open
 * it), the goods for sale each with a button to buy it into the reader's hands, and a form to
 * sell each thing the reader carries. Each button casts one of the market's own spells.
 */
async function marketPanel(r: WorldReads, reader: string, avatar: string, market: CardDoc, carried: CardDoc[]): Promise<string> {
  const at = `/play/${seg(market.id)}`;
  const cast = (act: string, label: string, extra = '') =>
    `<form class="quick" method="post" action="${at}"><input type="hidden" name="do" value="${e(act)}">${extra}<button>${e(label)}</button></form>`;
  const granted = itemsOf(market.state, 'granted').some((g) => g.tag === 'label' && g.value === reader);
  const coins = coinsOf(market.state, reader);
  const purse = granted
    ? `<p>Your purse holds ${e(coins)} coin${coins === 1 ? '' : 's'}.</p>`
    : `<p>You have no purse here yet. ${cast('purse', 'open a purse of 10 coins')}</p>`;
  const goods = itemsOf(market.state, 'goods').filter((g) => {
    const buyer = labelOf(g, 'buyer') ?? '';
    return buyer === '' || buyer === reader;
  });
  const named = await visibleCards(r, reader, { id: { $in: goods.map((g) => labelOf(g, 'item') ?? '') } }, 64);
  const nameOfItem = (id: string) => {
    const c = named.find((n) => n.id === id);
    return c ? nameOf(c) : id;
  };
  const forSale = goods.map((g) => {
    const item = labelOf(g, 'item') ?? '';
    const price = naturalOf(fieldOf(g, 'price'));
    const label = `buy ${nameOfItem(item)} for ${price} coin${price === 1 ? '' : 's'}`;
    return `<li>${cast(`buy?item=${encodeURIComponent(item)}&to=${encodeURIComponent(avatar)}`, label)}</li>`;
  });
  const sell = carried.map((c, i) => {
    const field = `<label for="sell-price-${i}">price</label> <input id="sell-price-${i}" name="f.price" type="number" min="0" max="1000" value="1" required> `;
    return `<li>${cast(`sell?item=${encodeURIComponent(c.id)}`, `sell ${nameOf(c)}`, field)}</li>`;
  });
  return (
    `<section class="market" aria-labelledby="market-h"><h2 id="market-h">The market</h2>${purse}` +
    `<div><strong>For sale:</strong> ${forSale.length ? `<ul>${forSale.join('')}</ul>` : 'nothing'}</div>` +
    (sell.length ? `<div><strong>Sell what you carry:</strong> <ul>${sell.join('')}</ul></div>` : '') +
    '</section>'
  );
}

export interface PlayOptions {
  /** `?say=`: text to put in the reply box. */
  say?: string;
  /** The receipt of the play just cast, shown above the card. */
  outcome?: string;
  /** The reader's avatar: offered first for fields that want an avatar, its things for things. */
  avatar?: string;
}

export async function playPage(r: WorldReads, id: string, caller: Caller, o: PlayOptions = {}): Promise<string> {
  const card = await cardReply(r, id, caller.principal);
  card.lines = card.lines.map((l) => spoken(r, l));
  const { card: doc, pkg } = await shownCard(r, id, caller.principal);
  const st = await standingOf(r, caller.principal, o.avatar);
  const { nearby, doors } = await nearbyOf(r, caller.principal, card, o.avatar, st);
  const reply =
    `<form class="reply" method="post" action="/play/${seg(id)}">` +
    `<label for="say">say to ${e(id)}</label><textarea id="say" name="text" rows="2">${e(o.say ?? '')}</textarea><button>reply</button>` +
    '<p class="h">Prose goes to the card as it is; a spell typed here is cast as written.</p></form>';
  const here = await standing(r, caller.principal, o.avatar, st);
  const body =
    `<h1>${e(id)}</h1>${o.outcome ?? ''}${here}${paintOf(card)}${spellForms(id, pkg, nearby)}${reply}${wantsOf(card)}${doorsList(doors, true)}${nearList(id, nearby)}` +
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

/**
 * The receipt of a play, shown above the card in people's words (receipt-words.ts): what
 * happened, to what, by whom; a refusal's reason and hint; the exact receipt folded.
 */
export async function outcomeSection(r: WorldReads, caller: Caller, decided: Decided, object: string): Promise<string> {
  const reply = outcomeReply(decided.outcome, { height: decided.height }) as ReceiptFacts & {
    offers?: string[];
    receipt?: { slug: string | null; height: number };
  };
  // What came back: cards made for the caller by this turn and by the sends delivered with it.
  const offers = reply.receipt ? await offersAfter(r, caller.principal, reply.receipt.height - 1) : [];
  const back = offers.length
    ? `<h3>came back</h3><ul class="offers">${offers.map((o) => `<li><a href="/o/${seg(o.object)}">${e(o.text)}</a></li>`).join('')}</ul>`
    : '';
  const words = receiptWords({
    ...reply,
    line: spoken(r, reply.line ?? ''),
    object: reply.object ?? object,
    by: caller.name,
    slug: reply.receipt?.slug ?? null,
    height: reply.receipt?.slug ? reply.receipt.height : undefined,
  });
  return (
    `<section class="receipt ${e(reply.status ?? '')}" id="receipt" role="status" aria-live="polite" tabindex="-1" autofocus><h2>${e(verdict(reply.status))}</h2>` +
    `${words}${back}</section>`
  );
}

/**
 * The place law: what `move thing to place` may do. Where a card is has one truth, its `place`
 * (the room it lies in, or the card holding it); rooms and avatars do not keep a second list, so
 * a move is one write and nothing can disagree with it (docs/world.md).
 *
 * A card's code moves a card (itself or another) when all of these hold, else the whole turn is
 * refused:
 * - both cards exist and the turn's guest may see them (`unknownObject`);
 * - the thing is within the mover's reach: the mover itself, a card it holds, a card lying beside
 *   it, or a card the caster's avatar holds standing beside it (handed in) (`outOfReach`);
 * - the thing is the guest's to move: the guest owns it, nobody owns it, it lies in a card the
 *   guest owns (as a thing handed to the guest's avatar does), or the mover holds it: a card
 *   governs what was handed into it (`notYours`);
 * - the place is within reach of the hands that move it: the hands themselves, the place they
 *   stand in, a card lying beside them or a card they hold (`noWay`). The hands are the mover
 *   when it moves another card; a card moving itself is moved by the card holding it, or, lying
 *   loose, by the hands of the caster's avatar standing beside it;
 * - the place is not the thing, nor inside it, nor where it already is (`here`);
 * - an avatar goes only by a way, a door of its room leading to another room (`waysFrom`):
 *   nothing carries a guest's avatar into a thing, so every avatar stands in a room (`noWay`).
 */
import type { Card } from '../entry.js';
import type { Refusal } from '../refusal.js';
import { field, type TypedData } from '../../../contract/typed.js';

/** What the place law reads of a turn: cards as the turn sees them, and who casts it. */
export interface MoveScope {
  card(id: string): Card | undefined;
  visible(id: string): Card | undefined;
  readonly scope: { principal: string };
  /** Each guest's avatar: an avatar goes only by a way, so it always stands in a place of the town. */
  readonly world: { avatars: ReadonlyMap<string, string> };
}

const labelField = (state: TypedData, name: string): string | undefined => {
  if (state.tag !== 'record') return undefined;
  const v = field(state, name);
  return v && v.tag === 'label' ? v.value : undefined;
};

const labelsField = (state: TypedData, name: string): string[] => {
  if (state.tag !== 'record') return [];
  const v = field(state, name);
  if (v?.tag !== 'list') return [];
  return v.items.flatMap((i) => (i.tag === 'label' ? [i.value] : []));
};

/**
 * The ways out of a place: for each card its state lists under `doors` that still lies there, is
 * open (when it has `open`) and leads somewhere (`to`), the door and where it leads. A room says
 * which doors are its ways (its owner adds and removes them), so a door carried off, or lying in
 * a room that does not list it, leads nowhere.
 */
export function waysFrom(turn: MoveScope, placeId: string): { door: string; to: string }[] {
  const place = placeId ? turn.visible(placeId) : undefined;
  if (!place) return [];
  const out: { door: string; to: string }[] = [];
  for (const id of labelsField(place.state, 'doors')) {
    const door = turn.visible(id);
    if (!door || door.place !== placeId) continue;
    const to = labelField(door.state, 'to');
    const open = door.state.tag === 'record' ? field(door.state, 'open') : undefined;
    if (!to || (open?.tag === 'boolean' && !open.value)) continue;
    // a way leads to a place of the town: a card that lies nowhere itself (a room), never into a thing
    const there = turn.visible(to);
    if (there?.place !== '') continue;
    out.push({ door: id, to });
  }
  return out;
}

/** The ways from a place in words, for a refusal's reading: "door-a to library, door-b to square". */
function waysText(turn: MoveScope, placeId: string): string {
  const ways = waysFrom(turn, placeId);
  return ways.length
    ? `the ways from ${placeId}: ${ways.map((w) => `go room=${w.to} (by ${w.door})`).join(', ')}`
    : `no way leads out of ${placeId || 'nowhere'}`;
}

/** For a cast at the caster's own avatar, the ways from where it stands (else ''): a hint that names what works. */
export function waysHint(turn: Pick<MoveScope, 'card' | 'visible' | 'world'> & { scope: { principal: string } }, cardId: string): string {
  const avatar = turn.world.avatars.get(turn.scope.principal);
  if (avatar !== cardId) return '';
  const card = turn.card(cardId);
  return card ? waysText(turn as MoveScope, card.place) : '';
}

const refused = (object: string, clause: string, reading: string): Refusal => ({
  class: 'cardRefused',
  object,
  clause,
  reading,
  reason: `refused ${clause}: ${reading}`,
});

/** Is `inner` the card `outer` or inside it (held by it, or by something it holds)? A place never holds its own holder. */
export function within(turn: Pick<MoveScope, 'card'>, inner: string, outer: string): boolean {
  let at: string | undefined = inner;
  for (let hops = 0; at && hops < 64; hops++) {
    if (at === outer) return true;
    at = turn.card(at)?.place;
  }
  return false;
}

/** The card holding `c` when `c` is held (its place is a card that itself lies somewhere), not lying in a room. */
function holderOf(turn: MoveScope, c: Card): Card | undefined {
  const holder = c.place ? turn.card(c.place) : undefined;
  return holder && holder.place !== '' ? holder : undefined;
}

/** Why `mover` may not move `thingId` to `toId` in this turn, or undefined when it may. */
export function moveRefusal(turn: MoveScope, moverId: string, thingId: string, toId: string): Refusal | undefined {
  const mover = turn.card(moverId)!;
  const thing = turn.visible(thingId);
  if (!thing) return { class: 'unknownObject', reason: `${moverId} moves ${thingId}, and there is no card ${thingId}`, object: thingId };
  const to = turn.visible(toId);
  if (!to)
    return {
      class: 'unknownObject',
      reason: `there is no card ${toId} to move ${thingId} to${thingId === moverId && !holderOf(turn, thing) ? `; ${waysText(turn, thing.place)}` : ''}`,
      object: toId,
    };
  if (thing.place === toId) return refused(thingId, 'here', `${thingId} is already in ${toId}`);
  if (within(turn, toId, thingId)) return refused(thingId, 'here', `${toId} is ${thingId} or inside it`);
  const lyingAt = (c: Card, place: string) => place !== '' && c.place === place;
  // The caster's own hands: its avatar. A thing it holds is handed in to a card lying where it
  // stands (a stall, a box); a loose thing lying beside it is moved by those hands.
  const casterId = turn.world.avatars.get(turn.scope.principal);
  const caster = casterId ? turn.card(casterId) : undefined;
  const handedIn = caster !== undefined && thing.place === caster.id && lyingAt(mover, caster.place);
  if (thingId !== moverId && thing.place !== moverId && !lyingAt(thing, mover.place) && !handedIn)
    return refused(
      thingId,
      'outOfReach',
      `${thingId} lies in ${thing.place || 'no place'}, out of ${moverId}'s reach (it takes what lies beside it, what it holds, and what you hand it standing beside it)`,
    );
  // Whose it is: a thing held by someone else's card is theirs to move, even when nobody owns it.
  const principal = turn.scope.principal;
  const holder = thing.place ? turn.card(thing.place) : undefined;
  const loose = thing.owner === '' && (!holder || holder.place === '' || holder.owner === '' || holder.owner === principal);
  // a card governs what was handed into it: its own code moves what it holds (a market hands on what it sells)
  const keeps = thingId !== moverId && thing.place === moverId;
  if (thing.owner !== principal && holder?.owner !== principal && !loose && !keeps)
    return refused(thingId, 'notYours', `${thingId} is not yours to move: it ${thing.owner ? `belongs to ${thing.owner}` : `is held by ${thing.place}`}`);
  // Where it may go: through a way from where it is; a thing moved by another card into that
  // card, down where it is or to a card beside it; a held thing (moving itself) down where its
  // holder is or to a card beside its holder.
  // Ways are for avatars: a guest walks through a door; a thing goes with the hands that carry it.
  const avatar = thing.owner !== '' && turn.world.avatars.get(thing.owner) === thingId;
  const way = avatar && waysFrom(turn, thing.place).some((w) => w.to === toId);
  if (avatar && !way) return refused(thingId, 'noWay', `an avatar goes only by a way; ${waysText(turn, thing.place)}`);
  const casterBeside = caster !== undefined && lyingAt(caster, thing.place) ? caster : undefined;
  const hands = thingId !== moverId ? mover : (holderOf(turn, thing) ?? casterBeside);
  const near = hands !== undefined && (toId === hands.id || toId === hands.place || lyingAt(to, hands.place) || to.place === hands.id);
  if (!way && !near) {
    const loose = thingId === moverId && hands === undefined;
    return refused(
      thingId,
      'noWay',
      loose
        ? `${thingId} lies in ${thing.place || 'no place'}, where you do not stand, and nobody holds it; go there or take it first`
        : `${toId} is not within reach of ${hands ? hands.id : thingId} (it puts things only into itself, down where it stands, into a card beside it or one it holds), and no way leads from ${thing.place || 'nowhere'} to ${toId}; ${waysText(turn, thing.place)}`,
    );
  }
  return undefined;
}

/**
 * The guest a card is the avatar of, if it is one: a thing that comes into a guest's avatar
 * becomes that guest's (handing over is giving; a sale hands on), unless nobody owns it.
 */
export function avatarGuest(avatars: ReadonlyMap<string, string>, card: Card): string | undefined {
  return card.owner && avatars.get(card.owner) === card.id ? card.owner : undefined;
}

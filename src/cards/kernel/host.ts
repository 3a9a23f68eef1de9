/**
 * Host spells every card hears: `become`, `adopt`, `lend`, `make`, and the opener's moderation
 * power `quiet` (plans are in cast.ts). Their names are reserved: a card's own method of the
 * same name is never reached by them, so no card can weaken `become`'s owner check.
 */
import type { FormField } from '../program.js';
import { field, label, type RecordData, type TypedData } from '../../contract/typed.js';
import { templateOf } from './fields.js';
import { badSpell } from './refusal.js';
import type { SpellItem } from './spell.js';
import { nameOf, refuse, type Turn } from './turn.js';
import { TOWN } from './world.js';
import { waysHint } from './turn/move.js';

const text = (min: number, max: number) => ({ kind: 'text' as const, min, max });

export const hostForms: ReadonlyMap<string, FormField[]> = new Map([
  [
    'become',
    [
      { name: 'kind', form: text(1, 64), optional: false },
      { name: 'law', form: text(0, 64), optional: true },
    ],
  ],
  ['adopt', []],
  [
    'lend',
    [
      { name: 'card', form: { kind: 'object' as const, min: 0, max: 128 }, optional: true },
      { name: 'to', form: text(1, 160), optional: false },
    ],
  ],
  ['make', [{ name: 'kind', form: text(1, 64), optional: false }]],
  [
    'quiet',
    [
      { name: 'guest', form: text(1, 160), optional: false },
      { name: 'until', form: text(1, 40), optional: false },
      { name: 'reading', form: text(0, 200), optional: true },
    ],
  ],
  ['plan', [{ name: 'acts', form: text(1, 8192), optional: false }]],
]);

/** Words that name the next positional value: `lend lamp to ann`, `quiet ann until 17…`. */
const keywords: ReadonlyMap<string, string[]> = new Map([
  ['become', ['law']],
  ['lend', ['to']],
  ['quiet', ['until']],
]);

export const isHost = (method: string) => hostForms.has(method);

export function hostTemplate(method: string): string {
  if (method === 'plan') return 'plan { <act>; <act> }';
  if (method === 'quiet') return 'quiet guest=<text 1..160> until=<text 1..40> -- <reading>';
  return templateOf(method, hostForms.get(method) ?? []);
}

/** Positional keyword spelling turned into named items: `lend lamp to ann` → `lend lamp to=ann`. */
export function hostItems(method: string, items: SpellItem[], reading: string | undefined): SpellItem[] {
  const words = keywords.get(method) ?? [];
  const out: SpellItem[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const next = items[i + 1];
    if (item.name === undefined && item.value.t === 'word' && words.includes(item.value.text) && next && next.name === undefined) {
      out.push({ name: item.value.text, value: next.value, at: next.at });
      i++;
      continue;
    }
    out.push(item);
  }
  if (reading !== undefined) out.push({ name: 'reading', value: { t: 'text', text: reading }, at: 0 });
  return out;
}

const GUEST_NAME = /^[a-z](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/**
 * A guest named by its principal, or by its bare name in this world's host. The host may carry
 * a port (`guest:localhost:8080:ann`, the quick start's town): the name is what follows the
 * last colon.
 */
export function principalOf(turn: Pick<Turn, 'world'>, who: string, fieldName: string, hint: string, town = false): string {
  if (town && who === TOWN) return who;
  const m = /^guest:([^\s]+):([^:\s]+)$/.exec(who);
  if (m && GUEST_NAME.test(m[2]!)) return who;
  if (!m && GUEST_NAME.test(who)) return `guest:${turn.world.host}:${who}`;
  return refuse(badSpell('badValue', `${fieldName}: ${JSON.stringify(who.slice(0, 64))} is not a guest (a name, or guest:<host>:<name>)`, hint));
}

/**
 * A guest's fields checked for what they name. Every `Object` names a card that exists and the
 * guest may see (else `unknownObject`; cast at the guest's own avatar, the reason names the ways
 * from where it stands). Every `Principal` is taken as state compares it: `guest:<host>:<name>` or `town`, a bare
 * name completed with this world's host (`credit who=bob` credits guest:<host>:bob), anything
 * else refused `badValue`. Card code's own sends are not guests' words and pass as they are.
 */
export function guestFields(
  turn: Pick<Turn, 'world' | 'visible' | 'card' | 'scope'>,
  cardId: string,
  form: FormField[] | undefined,
  args: TypedData,
  hint: string,
): TypedData {
  if (!form || args.tag !== 'record') return args;
  // Only real targets: an Object a guest names is a card that exists and that the guest may see,
  // so no card can keep (or walk to) an id that names nothing.
  for (const f of form) {
    if (f.form.kind !== 'object') continue;
    const v = field(args, f.name);
    if (v?.tag !== 'label' || v.value === '' || turn.visible(v.value)) continue;
    const ways = waysHint(turn, cardId);
    return refuse({ class: 'unknownObject', reason: `${f.name}: there is no card ${v.value}${ways ? `; ${ways}` : ''}`, object: v.value });
  }
  if (!form.some((f) => f.form.kind === 'text' && f.form.principal)) return args;
  const principals = new Set(form.filter((f) => f.form.kind === 'text' && f.form.principal).map((f) => f.name));
  return {
    tag: 'record',
    fields: args.fields.map((f) =>
      principals.has(f.name) && f.value.tag === 'label' && f.value.value !== ''
        ? { name: f.name, value: label(principalOf(turn, f.value.value, f.name, hint, true)) }
        : f,
    ),
  };
}

/** A clock: milliseconds since the epoch, or an ISO time with its zone (never local time). */
function clockOf(s: string, hint: string): number {
  if (/^[0-9]{1,15}$/.test(s)) return Number(s);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(s)) {
    const t = Date.parse(s);
    if (Number.isFinite(t)) return t;
  }
  return refuse(badSpell('badValue', `until: ${JSON.stringify(s)} is not a clock (milliseconds, or an ISO time such as 2026-11-23T18:00Z)`, hint));
}

const textOf = (args: RecordData, name: string): string => {
  const v = field(args, name);
  return v && v.tag === 'label' ? v.value : '';
};

export function hostAct(turn: Turn, cardId: string, method: string, args: RecordData): void {
  const hint = hostTemplate(method);
  const principal = turn.scope.principal;
  const who = nameOf(principal);
  if (turn.scope.delivery) return refuse(badSpell('noAction', `${method} is a host spell, cast by guests; a card cannot send it`, hint));
  switch (method) {
    case 'become':
      return become(turn, cardId, textOf(args, 'kind'), textOf(args, 'law'), hint);
    case 'adopt': {
      const card = turn.read(cardId);
      if (card.owner === principal) {
        turn.revealed.push(`${cardId} is already ${who}'s`);
        return;
      }
      const last = card.owner ? turn.world.seen.get(card.owner) : undefined;
      const abandoned = card.owner !== TOWN && (last === undefined || turn.scope.clock - last > turn.scope.options.abandonAfter);
      const ok = card.owner === '' || principal === turn.world.opener || abandoned;
      if (!ok) {
        return refuse({
          ...badSpell(
            'notYours',
            card.owner === TOWN ? `${cardId} belongs to the town` : `${cardId} belongs to ${nameOf(card.owner)}, who still plays here`,
            hint,
          ),
          object: cardId,
        });
      }
      turn.update(cardId, { owner: principal });
      turn.say(cardId, `${who} adopted ${cardId}`);
      return;
    }
    case 'lend': {
      const named = textOf(args, 'card');
      if (named && named !== cardId)
        return refuse(badSpell('otherCard', `this spell was cast at ${cardId} but lends ${named}; cast it at ${named}`, `lend ${named} to=<text 1..160>`));
      const card = turn.read(cardId);
      if (card.owner !== principal) return refuse({ ...badSpell('notYours', `only ${cardId}'s owner lends it`, hint), object: cardId });
      const guest = principalOf(turn, textOf(args, 'to'), 'to', hint);
      if (guest !== card.owner && !card.lent.includes(guest)) turn.update(cardId, { lent: [...card.lent, guest] });
      turn.say(cardId, `${who} lent ${cardId} to ${nameOf(guest)}`);
      return;
    }
    case 'make': {
      const kind = textOf(args, 'kind');
      const src = turn.scope.programs.kind(kind);
      if (!src)
        return refuse(badSpell('unknownKind', `no kind ${JSON.stringify(kind)} in the library; kinds: ${turn.scope.programs.kindNames().join(', ')}`, hint));
      const id = turn.make(src, { maker: principal, near: cardId });
      turn.say(id, `${who} made ${id}`);
      return;
    }
    case 'quiet': {
      if (principal !== turn.world.opener) return refuse(badSpell('opener', `only the world's opener quiets a guest`, hint));
      const guest = principalOf(turn, textOf(args, 'guest'), 'guest', hint);
      const until = clockOf(textOf(args, 'until'), hint);
      const reading = textOf(args, 'reading') || 'quieted by the opener';
      turn.quiet = { principal: guest, until, reading, by: principal };
      turn.revealed.push(`${nameOf(guest)} is quiet until ${new Date(until).toISOString()}: ${reading}`);
      return;
    }
  }
  return refuse({ class: 'evaluation', reason: `${method} is no host spell` });
}

function become(turn: Turn, cardId: string, kind: string, lawName: string, hint: string): void {
  const card = turn.read(cardId);
  const principal = turn.scope.principal;
  if (card.owner !== principal)
    return refuse({ ...badSpell('notYours', `only ${cardId}'s owner gives it new code${card.owner === '' ? '; adopt it first' : ''}`, hint), object: cardId });
  const programs = turn.scope.programs;
  const src = programs.kind(kind);
  if (!src) return refuse(badSpell('unknownKind', `no kind ${JSON.stringify(kind)} in the library; kinds: ${programs.kindNames().join(', ')}`, hint));
  let pkg = src;
  const ownLaw = turn.programOf(card).law;
  if (lawName && lawName !== 'none') {
    const lawSrc = programs.kind(lawName);
    if (!lawSrc)
      return refuse(
        badSpell(
          'unknownLaw',
          `no law ${JSON.stringify(lawName)}: a law is named by the library kind that keeps it (${programs.kindNames().join(', ')}), or none`,
          hint,
        ),
      );
    const compiled = programs.load(lawSrc);
    const clauses = compiled.ok ? compiled.program.law : [];
    if (!clauses.length) return refuse(badSpell('noLaw', `${lawName} has no law to take`, hint));
    const lawText = clauses.map((c) => c.text).join('\n');
    pkg = { ...src, law: src.law ? `${src.law}\n${lawText}` : lawText };
  } else if (!lawName && ownLaw.length) {
    const next = programs.load(src);
    if (next.ok && next.program.law.length === 0) {
      const kept = ownLaw.map((c) => c.name).join(', ');
      return refuse(
        badSpell(
          'noLaw',
          `${kind} has no law, so ${cardId} would lose its law (${kept}); say \`become ${kind} law none\` to drop it, or \`become ${kind} law ${card.kind}\` to keep it`,
          hint,
        ),
      );
    }
  }
  turn.reprogram(cardId, pkg, hint);
  turn.say(cardId, `${nameOf(principal)} made ${cardId} a ${kind}`);
  turn.revealed.push(`${cardId} became ${kind}`);
}

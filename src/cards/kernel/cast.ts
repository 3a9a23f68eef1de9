/**
 * Routing a request to what runs: a card's method (with `fields`, `argument` or a spell), the
 * default `receive` (the text parsed as a spell and cast), a card's own `receive` (prose), a
 * host spell, or a plan of several acts.
 */
import type { MethodInfo } from '../program.js';
import { emptyRecord, label, type RecordData, type TypedData } from '../typed.js';
import { checkArgument, fromFields, fromSpell, inferArgument, type Converted, type ObjectResolver } from './fields.js';
import { hostAct, hostForms, hostItems, hostTemplate, isHost } from './host.js';
import { badSpell, typeMismatch, type Refusal } from './refusal.js';
import { parseSpell, type Cast, type Plan, type Spell } from './spell.js';
import { refuse, Refused, type Turn } from './turn.js';

export type TurnInput = { via: 'fields'; fields: unknown } | { via: 'spell'; spell: string } | { via: 'argument'; argument: TypedData } | { via: 'none' };

/** What was cast, for the receipt (a spell to `receive` names the method it reached). */
export interface Casted {
  method: string;
}

const converted = (c: Converted): RecordData => (c.ok ? c.args : refuse(c.refusal));

function spellMethods(turn: Turn, cardId: string): MethodInfo[] {
  return turn.programOf(turn.read(cardId)).methods;
}

const findSpell = (methods: MethodInfo[], name: string) => methods.find((m) => m.name === name && m.kind === 'spell');
const ownsReceive = (methods: MethodInfo[]) => methods.some((m) => m.name === 'receive' && m.kind !== 'view');

/** The spells a card hears, with blanks: the hint for a spell it does not hear. */
export function hearsHint(methods: MethodInfo[]): string {
  const mine = methods.filter((m) => m.kind === 'spell').map((m) => m.template ?? m.name);
  return [...mine, 'make kind=<text 1..64>', 'become kind=<text 1..64>'].join(' | ');
}

/** Runs a request to `method` of `cardId`. */
export function castRequest(turn: Turn, cardId: string, method: string, input: TurnInput): Casted {
  if (method === 'receive') return receive(turn, cardId, input);
  if (isHost(method)) {
    const form = hostForms.get(method)!;
    const hint = hostTemplate(method);
    if (method === 'plan' && input.via !== 'spell') {
      const args = converted(
        input.via === 'fields'
          ? fromFields(form, input.fields, hint)
          : input.via === 'argument'
            ? checkArgument(form, input.argument, hint)
            : fromFields(form, {}, hint),
      );
      const acts = args.fields[0]!.value;
      const parsed = parseSpell(`plan { ${acts.tag === 'label' ? acts.value : ''} }`);
      if (!parsed.ok) return refuse(badSpell(parsed.fault.clause, parsed.fault.reason, hint));
      return castSpell(turn, cardId, parsed.spell, { made: [] });
    }
    if (input.via === 'spell') return castSpellFor(turn, cardId, method, input.spell);
    const args = converted(
      input.via === 'fields'
        ? fromFields(form, input.fields, hint)
        : input.via === 'argument'
          ? checkArgument(form, input.argument, hint)
          : fromFields(form, {}, hint),
    );
    hostAct(turn, cardId, method, args);
    return { method };
  }
  const methods = spellMethods(turn, cardId);
  const m = findSpell(methods, method);
  if (!m) {
    const other = methods.find((x) => x.name === method);
    const why = other ? `${method} is a ${other.kind} of ${cardId}, not a spell` : `${cardId} offers no method ${JSON.stringify(method.slice(0, 64))}`;
    return refuse({
      class: 'noMethod',
      reason: `${why}; it hears ${
        methods
          .filter((x) => x.kind === 'spell')
          .map((x) => x.name)
          .join(', ') || 'no spells of its own'
      }`,
      object: cardId,
    });
  }
  const hint = m.template ?? m.signature;
  let args: TypedData;
  switch (input.via) {
    case 'spell':
      return castSpellFor(turn, cardId, method, input.spell);
    case 'fields':
      if (!m.form) return refuse(typeMismatch(`${method} has no form; send its typed argument instead of fields`, m.signature));
      args = converted(fromFields(m.form, input.fields, hint));
      break;
    case 'argument':
      args = m.form ? converted(checkArgument(m.form, input.argument, hint)) : input.argument;
      break;
    case 'none':
      args = m.form ? converted(fromFields(m.form, {}, hint)) : emptyRecord;
      break;
  }
  turn.call(cardId, method, args);
  return { method };
}

/** A spell sent to a method by path: it must cast that very method. */
function castSpellFor(turn: Turn, cardId: string, method: string, text: string): Casted {
  const parsed = parseSpell(text);
  const hint = isHost(method) ? hostTemplate(method) : (findSpell(spellMethods(turn, cardId), method)?.template ?? method);
  if (!parsed.ok) return refuse(badSpell(parsed.fault.clause, parsed.fault.reason, hint));
  const spell = parsed.spell;
  const cast = spell.kind === 'plan' ? 'plan' : spell.method;
  if (cast !== method) return refuse(badSpell('noAction', `this spell casts ${cast}, but was sent to ${method}; send it to receive`, hint));
  return castSpell(turn, cardId, spell, { made: [] });
}

function receive(turn: Turn, cardId: string, input: TurnInput): Casted {
  let text: string;
  let post = '';
  const methods = spellMethods(turn, cardId);
  const hint = hearsHint(methods);
  switch (input.via) {
    case 'spell':
      text = input.spell;
      break;
    case 'fields': {
      const form = [
        { name: 'text', form: { kind: 'text' as const, min: 0, max: 65536 }, optional: false },
        { name: 'post', form: { kind: 'text' as const, min: 0, max: 512 }, optional: true },
      ];
      const args = converted(fromFields(form, input.fields, 'receive text=<text 0..65536>'));
      text = (args.fields[0]!.value as { value: string }).value;
      post = (args.fields[1]!.value as { value: string }).value;
      break;
    }
    case 'argument': {
      const a = input.argument;
      const t = a.tag === 'record' ? a.fields.find((f) => f.name === 'text')?.value : undefined;
      const p = a.tag === 'record' ? a.fields.find((f) => f.name === 'post')?.value : undefined;
      if (t?.tag !== 'label' || (p && p.tag !== 'label')) return refuse(typeMismatch('receive takes {text, post}', 'receive {text: <text>, post: <text>}'));
      text = t.value;
      post = p && p.tag === 'label' ? p.value : '';
      break;
    }
    case 'none':
      return refuse(badSpell('noAction', 'receive wants a spell', hint));
  }
  const parsed = parseSpell(text);
  if (ownsReceive(methods)) {
    if (parsed.ok && heard(parsed.spell, methods)) return castSpell(turn, cardId, parsed.spell, { made: [] });
    turn.call(cardId, 'receive', {
      tag: 'record',
      fields: [
        { name: 'text', value: label(text) },
        { name: 'post', value: label(post) },
      ],
    });
    return { method: 'receive' };
  }
  if (!parsed.ok) return refuse(badSpell(parsed.fault.clause, parsed.fault.reason, hint));
  return castSpell(turn, cardId, parsed.spell, { made: [] });
}

/** Would this spell reach something other than the card's own prose-answering `receive`? */
function heard(spell: Spell, methods: MethodInfo[]): boolean {
  if (spell.kind === 'plan') return true;
  return isHost(spell.method) || findSpell(methods, spell.method) !== undefined;
}

interface PlanScope {
  /** Cards made so far in the plan, `{made 1}` first. */
  made: string[];
  inPlan?: boolean;
}

function resolver(turn: Turn, scope: PlanScope, hint: string): ObjectResolver {
  return (v) => {
    if (v.t === 'made') {
      const id = scope.made[v.n - 1];
      if (id === undefined)
        return {
          ok: false,
          refusal: badSpell(
            'notMade',
            `{made ${v.n}} names nothing made before it${scope.inPlan ? ` (${scope.made.length} made so far)` : ': {made N} belongs to a plan'}`,
            hint,
          ),
        };
      return { ok: true, id };
    }
    if (v.t === 'word' && (v.text === 'me' || v.text === 'here')) {
      const avatar = turn.world.avatars.get(turn.scope.principal);
      const card = avatar ? turn.card(avatar) : undefined;
      if (!card)
        return {
          ok: false,
          refusal: badSpell('noAvatar', `\`${v.text}\` names your avatar${v.text === 'here' ? "'s room" : ''}, and you have none in this world`, hint),
        };
      return { ok: true, id: v.text === 'me' ? card.id : card.place || card.id };
    }
    return undefined;
  };
}

/** Casts a parsed spell at a card. */
export function castSpell(turn: Turn, cardId: string, spell: Spell, scope: PlanScope): Casted {
  if (spell.target) {
    if (spell.target.t === 'made' && !scope.inPlan)
      return refuse(
        badSpell('notMade', `{made ${spell.target.n}} names nothing made before it: {made N} belongs to a plan`, hearsHint(spellMethods(turn, cardId))),
      );
    if (spell.target.t === 'card' && spell.target.id !== cardId && !scope.inPlan) {
      return refuse(
        badSpell(
          'otherCard',
          `this spell names ${spell.target.id}, but was cast at ${cardId}; cast it at ${spell.target.id}`,
          `${spell.kind === 'plan' ? 'plan { … }' : spell.method}`,
        ),
      );
    }
  }
  if (spell.kind === 'plan') {
    if (scope.inPlan) return refuse(badSpell('notInPlan', 'a plan cannot hold another plan', hostTemplate('plan')));
    return runPlan(turn, cardId, spell);
  }
  return castAct(turn, cardId, spell, scope);
}

function castAct(turn: Turn, cardId: string, cast: Cast, scope: PlanScope): Casted {
  if (isHost(cast.method)) {
    const hint = hostTemplate(cast.method);
    const args = converted(fromSpell(hostForms.get(cast.method)!, hostItems(cast.method, cast.items, cast.reading), hint, resolver(turn, scope, hint)));
    hostAct(turn, cardId, cast.method, args);
    return { method: cast.method };
  }
  const methods = spellMethods(turn, cardId);
  const m = findSpell(methods, cast.method);
  if (!m) {
    const other = methods.find((x) => x.name === cast.method);
    const why = other ? `${cast.method} is a ${other.kind}, not a spell to cast` : `${cardId} hears no spell ${cast.method}`;
    return refuse({ ...badSpell('noAction', why, hearsHint(methods)), object: cardId });
  }
  if (cast.reading !== undefined)
    return refuse(badSpell('badValue', `\`--\` gives a reading to a moderation power; ${cast.method} takes none`, m.template ?? m.signature));
  const hint = m.template ?? m.signature;
  const resolve = resolver(turn, scope, hint);
  const args = converted(m.form ? fromSpell(m.form, cast.items, hint, resolve) : inferArgument(cast.items, m.signature, resolve));
  turn.call(cardId, cast.method, args);
  return { method: cast.method };
}

const powers = new Set(['quiet']);
const hostOnThings = new Set(['become', 'adopt', 'lend']);

/** Several acts in one turn; all stand or all fall. */
function runPlan(turn: Turn, cardId: string, plan: Plan): Casted {
  const hint = hostTemplate('plan');
  const max = turn.scope.options.maxActs;
  if (plan.acts.length > max) return refuse(badSpell('tooManyActs', `a plan holds at most ${max} acts; this one has ${plan.acts.length}`, hint));
  if (plan.acts.length === 0) return refuse({ class: 'evaluation', reason: 'a plan with no acts (malformed plan)' });
  let codes = 0;
  plan.acts.forEach((act, i) => {
    const n = `act ${i + 1} (${act.method})`;
    if (powers.has(act.method)) refuse(badSpell('notInPlan', `${n}: ${act.method} is a power, cast on its own, never in a plan`, hint));
    if (act.method === 'plan') refuse(badSpell('notInPlan', `${n}: a plan cannot hold another plan`, hint));
    if (act.method === 'become' && ++codes > 1) refuse(badSpell('codeTwice', `${n}: code is given twice in one plan; one become per plan`, hint));
    if (act.target?.t === 'card' && act.target.id !== cardId) {
      refuse(
        badSpell(
          'planWaits',
          `${n}: ${act.target.id} is another card; an act on it would wait for a send to be delivered, so cast it as a turn of its own`,
          hint,
        ),
      );
    }
  });
  const scope: PlanScope = { made: [], inPlan: true };
  plan.acts.forEach((act, i) => {
    const n = `act ${i + 1} (${act.method})`;
    let target = cardId;
    if (act.target?.t === 'made') {
      const id = scope.made[act.target.n - 1];
      if (id === undefined) refuse(badSpell('notMade', `${n}: {made ${act.target.n}} names nothing made before it (${scope.made.length} made so far)`, hint));
      target = id!;
    }
    if (hostOnThings.has(act.method) && scope.made.includes(target)) {
      refuse(badSpell('notInPlan', `${n}: ${act.method} on ${target}, a thing this plan made, is not for a plan; cast it once the plan stands`, hint));
    }
    const before = turn.madeIds.length;
    try {
      castAct(turn, target, act, scope);
    } catch (e) {
      if (e instanceof Refused && e.refusal.reason && !e.refusal.reason.startsWith('act ')) throw new Refused(prefixed(e.refusal, n));
      throw e;
    }
    scope.made.push(...turn.madeIds.slice(before));
  });
  return { method: 'plan' };
}

/** Names the act in the reason, except where the reason's wording is fixed (`refused <clause>: …`). */
function prefixed(r: Refusal, n: string): Refusal {
  if (r.class === 'cardRefused' || r.class === 'lawRefused') return r;
  return { ...r, reason: `${n}: ${r.reason}` };
}

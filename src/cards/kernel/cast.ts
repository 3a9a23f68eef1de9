/**
 * Casting a parsed spell at a card: one act (a card's spell or a host spell, its items turned
 * into the typed record the method takes), or a plan of several acts that all stand or all fall.
 * Requests reach here from the run stage (turn/run.ts) when they carry a spell.
 */
import type { MethodInfo } from '../program.js';
import type { RecordData } from '../../contract/typed.js';
import { fromSpell, inferArgument, type Converted, type ObjectResolver } from './fields.js';
import { hostAct, hostForms, hostItems, hostTemplate, isHost, guestFields } from './host.js';
import { badSpell, type Refusal } from './refusal.js';
import type { Cast, Plan, Spell } from './spell.js';
import { refuse, Refused, type Turn } from './turn.js';

export const converted = (c: Converted): RecordData => (c.ok ? c.args : refuse(c.refusal));

export function spellMethods(turn: Turn, cardId: string): MethodInfo[] {
  return turn.programOf(turn.read(cardId)).methods;
}

export const findSpell = (methods: MethodInfo[], name: string) => methods.find((m) => m.name === name && m.kind === 'spell');

/** The spells a card hears, with blanks: the hint for a spell it does not hear. */
export function hearsHint(methods: MethodInfo[]): string {
  const mine = methods.filter((m) => m.kind === 'spell').map((m) => m.template ?? m.name);
  return [...mine, 'make kind=<text 1..64>', 'become kind=<text 1..64>'].join(' | ');
}

export interface PlanScope {
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

/** Casts a parsed spell at a card; answers the method it reached (`plan` for a plan). */
export function castSpell(turn: Turn, cardId: string, spell: Spell, scope: PlanScope): string {
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

function castAct(turn: Turn, cardId: string, cast: Cast, scope: PlanScope): string {
  if (isHost(cast.method)) {
    const hint = hostTemplate(cast.method);
    const args = converted(fromSpell(hostForms.get(cast.method)!, hostItems(cast.method, cast.items, cast.reading), hint, resolver(turn, scope, hint)));
    hostAct(turn, cardId, cast.method, args);
    return cast.method;
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
  turn.call(cardId, cast.method, guestFields(turn, cardId, m.form, args, hint));
  return cast.method;
}

const powers = new Set(['quiet']);
const hostOnThings = new Set(['become', 'adopt', 'lend']);

/** Several acts in one turn; all stand or all fall. */
function runPlan(turn: Turn, cardId: string, plan: Plan): string {
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
  return 'plan';
}

/** Names the act in the reason, except where the reason's wording is fixed (`refused <clause>: …`). */
function prefixed(r: Refusal, n: string): Refusal {
  if (r.class === 'cardRefused' || r.class === 'lawRefused') return r;
  return { ...r, reason: `${n}: ${r.reason}` };
}

/**
 * Stage 3 of a turn (turn/decide-turn.ts): run the card. The request is routed to what runs: a
 * card's method (its `fields` or `argument` turned into the typed record its form takes), the
 * default `receive` (the text parsed as a spell and cast), a card's own `receive` (prose), a host
 * spell, or a plan of several acts. Method and argument are judged on the way (`noMethod`,
 * `typeMismatch`, `badSpell`), then the card runs under the turn's budget and the world's
 * capacities (`budget`, `capacity`): a run is stopped the moment it passes a bound, so bounds
 * are checked while it runs, not after. Any refusal is thrown as `Refused`.
 *
 * Deliveries and REPL turns run their card through here too.
 */
import { emptyRecord, label, type RecordData, type TypedData } from '../../../contract/typed.js';
import { castSpell, converted, findSpell, hearsHint, spellMethods } from '../cast.js';
import type { FormField, MethodInfo } from '../../program.js';
import { checkArgument, fromFields } from '../fields.js';
import { hostAct, hostForms, hostTemplate, isHost, guestFields } from '../host.js';
import { badSpell, typeMismatch } from '../refusal.js';
import { parseSpell, type Spell } from '../spell.js';
import { refuse, type Turn } from '../turn.js';

/** What the card is given (turn/request.ts reads it off the request). */
export type TurnInput = { via: 'fields'; fields: unknown } | { via: 'spell'; spell: string } | { via: 'argument'; argument: TypedData } | { via: 'none' };

/** A host spell's arguments from a request that is not a spell: its fields, its typed argument, or none. */
function hostArgs(form: FormField[], input: Exclude<TurnInput, { via: 'spell' }>, hint: string): RecordData {
  return converted(
    input.via === 'fields'
      ? fromFields(form, input.fields, hint)
      : input.via === 'argument'
        ? checkArgument(form, input.argument, hint)
        : fromFields(form, {}, hint),
  );
}

/** Runs a request to `method` of `cardId`; answers the method it reached (a spell to `receive` names its own). */
export function runCard(turn: Turn, cardId: string, method: string, input: TurnInput): string {
  if (method === 'receive') return receive(turn, cardId, input);
  if (isHost(method)) {
    const form = hostForms.get(method)!;
    const hint = hostTemplate(method);
    if (method === 'plan' && input.via !== 'spell') {
      const args = hostArgs(form, input, hint);
      const acts = args.fields[0]!.value;
      const parsed = parseSpell(`plan { ${acts.tag === 'label' ? acts.value : ''} }`);
      if (!parsed.ok) return refuse(badSpell(parsed.fault.clause, parsed.fault.reason, hint));
      return castSpell(turn, cardId, parsed.spell, { made: [] });
    }
    if (input.via === 'spell') return castSpellFor(turn, cardId, method, input.spell);
    const args = hostArgs(form, input, hint);
    hostAct(turn, cardId, method, args);
    return method;
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
  turn.call(cardId, method, guestFields(turn, cardId, m.form, args, hint));
  return method;
}

/** A spell sent to a method by path: it must cast that very method. */
function castSpellFor(turn: Turn, cardId: string, method: string, text: string): string {
  const parsed = parseSpell(text);
  const hint = isHost(method) ? hostTemplate(method) : (findSpell(spellMethods(turn, cardId), method)?.template ?? method);
  if (!parsed.ok) return refuse(badSpell(parsed.fault.clause, parsed.fault.reason, hint));
  const spell = parsed.spell;
  const cast = spell.kind === 'plan' ? 'plan' : spell.method;
  if (cast !== method) return refuse(badSpell('noAction', `this spell casts ${cast}, but was sent to ${method}; send it to receive`, hint));
  return castSpell(turn, cardId, spell, { made: [] });
}

const ownsReceive = (methods: MethodInfo[]) => methods.some((m) => m.name === 'receive' && m.kind !== 'view');

function receive(turn: Turn, cardId: string, input: TurnInput): string {
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
    return 'receive';
  }
  if (!parsed.ok) return refuse(badSpell(parsed.fault.clause, parsed.fault.reason, hint));
  return castSpell(turn, cardId, parsed.spell, { made: [] });
}

/** Would this spell reach something other than the card's own prose-answering `receive`? */
function heard(spell: Spell, methods: MethodInfo[]): boolean {
  if (spell.kind === 'plan') return true;
  return isHost(spell.method) || findSpell(methods, spell.method) !== undefined;
}

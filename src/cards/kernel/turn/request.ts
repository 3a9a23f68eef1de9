/**
 * Stage 1 of a turn (turn/decide-turn.ts): read the request. Its fields as canonical JSON text
 * (the entry keeps that same text), its fingerprint (what a repeat of the intent must match),
 * the request as the entry keeps it, and the input: one of spell, fields, argument.
 */
import { TypedDataC } from '../../../contract/typed.js';
import type { TurnCommand } from '../commands.js';
import { fingerprintOfText, stableJson } from '../content-id.js';
import type { Request } from '../entry.js';
import type { Refusal } from '../refusal.js';
import type { TurnInput } from './run.js';

/** The plain JSON fields as canonical text; undefined when the request gives none. */
export const fieldsTextOf = (cmd: { fields?: unknown }): string | undefined => (cmd.fields === undefined ? undefined : stableJson(cmd.fields));

/** The fingerprint of `{object, method, fields, spell, argument, if}` (stable JSON, absent keys left out). */
export function requestFingerprint(cmd: Pick<TurnCommand, 'object' | 'method' | 'fields' | 'spell' | 'argument' | 'if'>): string {
  return fingerprintWith(cmd, fieldsTextOf(cmd));
}

/**
 * `requestFingerprint` with the fields' stable JSON already written (the stored request keeps
 * the same text), the request's stable JSON put together here, keys in sorted order.
 */
export function fingerprintWith(cmd: Pick<TurnCommand, 'object' | 'method' | 'spell' | 'argument' | 'if'>, fieldsText: string | undefined): string {
  const parts: string[] = [];
  if (cmd.argument !== undefined) parts.push(`"argument":${stableJson(cmd.argument)}`);
  if (fieldsText !== undefined) parts.push(`"fields":${fieldsText}`);
  if (cmd.if !== undefined) parts.push(`"if":${stableJson(cmd.if)}`);
  if (cmd.method !== undefined) parts.push(`"method":${stableJson(cmd.method)}`);
  if (cmd.object !== undefined) parts.push(`"object":${stableJson(cmd.object)}`);
  if (cmd.spell !== undefined) parts.push(`"spell":${stableJson(cmd.spell)}`);
  return fingerprintOfText(`{${parts.join(',')}}`);
}

/** The request as the entry keeps it; `fieldsText` is the stable JSON of `cmd.fields`. */
export function storedRequest(cmd: TurnCommand, fieldsText: string | undefined): Request {
  const r: Request = { object: cmd.object, method: cmd.method };
  if (fieldsText !== undefined) r.fields = fieldsText;
  if (typeof cmd.spell === 'string') r.spell = cmd.spell;
  if (cmd.argument !== undefined && TypedDataC.is(cmd.argument)) r.argument = cmd.argument;
  if (cmd.if) r.if = cmd.if.map((x) => ({ object: x.object, version: x.version }));
  return r;
}

/**
 * What the card is given: one of spell, fields, argument (none: the method's empty form). A
 * request giving two, a spell that is no text or an argument that is no typed data is refused
 * `typeMismatch`; the turn reports that after its gates (cards.md: method and argument come after
 * intent, visibility and roots).
 */
export function inputOf(cmd: { fields?: unknown; spell?: string; argument?: unknown }): TurnInput | Refusal {
  const given = [cmd.fields !== undefined, cmd.spell !== undefined, cmd.argument !== undefined].filter(Boolean).length;
  if (given > 1) return { class: 'typeMismatch', reason: 'give one of spell, fields, argument', expected: 'one of {spell}, {fields}, {argument}' };
  if (cmd.spell !== undefined) {
    if (typeof cmd.spell !== 'string') return { class: 'typeMismatch', reason: 'spell is text', expected: 'spell: <text>' };
    return { via: 'spell', spell: cmd.spell };
  }
  if (cmd.fields !== undefined) return { via: 'fields', fields: cmd.fields };
  if (cmd.argument !== undefined) {
    if (!TypedDataC.is(cmd.argument))
      return { class: 'typeMismatch', reason: 'argument is not typed data (spec 2.6)', expected: '{tag: record, fields: [{name, value}]}' };
    return { via: 'argument', argument: cmd.argument };
  }
  return { via: 'none' };
}

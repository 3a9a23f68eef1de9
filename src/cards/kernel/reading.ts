/**
 * What the service reads off a world without deciding anything: a card's program, its
 * `_actions` and `forms` (spec 2.4), its law as lines, a view drawn for a viewer.
 */
import type { FormField, Program, RunResult } from '../program.js';
import type { Card } from './entry.js';
import type { Programs } from './programs.js';
import type { World } from './world.js';

/** The compiled program a card runs (undefined if its code is missing or no longer compiles). */
export function cardProgram(world: World, programs: Programs, card: Card): Program | undefined {
  const pkg = world.packages.get(card.pin);
  if (!pkg) return undefined;
  const r = programs.load(pkg, pkg.pin);
  return r.ok ? r.program : undefined;
}

/** Not listed in `_actions` (spec 2.4): receive, render, page, publishPage and every view. */
const unlisted = new Set(['receive', 'render', 'page', 'publishPage']);

/** `_actions`: method name → spell template, for each spell that has a form. */
export function actionsOf(program: Program): Record<string, string> {
  return Object.fromEntries(
    program.methods.filter((m) => m.kind === 'spell' && m.form && m.template && !unlisted.has(m.name)).map((m) => [m.name, m.template!]),
  );
}

/** `forms` of `GET source`: each spell's fields with their bounds in full. */
export function formsOf(program: Program): Record<string, FormField[]> {
  return Object.fromEntries(program.methods.filter((m) => m.kind === 'spell' && m.form).map((m) => [m.name, m.form!]));
}

/** `law` of `GET source`: one line per clause, with its reading. */
export function lawLines(program: Program): string[] {
  return program.law.map((c) => c.text);
}

/** A view (paint, page, …) drawn for `viewer`, under a small budget; never throws. */
export function drawView(program: Program, card: Card, name: string, viewer: string, budget = { ticks: 100_000, heap: 1 << 20, bytes: 65_536 }): RunResult {
  try {
    return program.view(name, card.state, viewer, budget);
  } catch (e) {
    return { ok: false, refusal: { class: 'evaluation', reason: e instanceof Error ? e.message : String(e) }, usage: { ticks: 0, heap: 0, bytes: 0 } };
  }
}

/**
 * Stage 4 of a turn (turn/decide-turn.ts): law. Once the card has run, the law is checked on
 * every card the turn wrote, wants opened and closed are revealed, and the working set becomes
 * the entry's parts (writes with new versions, cards made, packages, offers, sends, a quiet).
 * A card made or reprogrammed in the turn is checked as new (no `before`). A broken clause is
 * thrown as `Refused` (`lawRefused`), which rolls the whole turn back. The rules of the turn's
 * acts run once the law holds, so a rule that fails never hides the law's refusal.
 *
 * Deliveries, arrivals, creates and REPL turns end the same way.
 */
import type { Program } from '../../program.js';
import type { Card, Write } from '../entry.js';
import { lawRefusal } from '../refusal.js';
import { sameData } from '../seed.js';
import { refuse, type Turn, type TurnEffects } from '../turn.js';
import { linesKept } from '../world.js';

export function checkLaw(turn: Turn): TurnEffects {
  const { scope, before, reprogrammed, says } = turn;
  const writes: Write[] = [];
  const made: Card[] = [];
  // the law first, on every card written; then the rules of the acts (their says are narrated)
  const written = new Map<string, Program>();
  for (const [id, card] of turn.working) {
    const was = before.get(id);
    if (!(!was || !sameData(was.state, card.state) || reprogrammed.has(id))) continue;
    const program = turn.programOf(card);
    written.set(id, program);
    const fresh = !was || reprogrammed.has(id);
    const broken = program.checkLaw(fresh ? undefined : was.state, card.state, {
      caller: scope.caller,
      owner: card.owner,
      self: id,
      now: scope.clock,
    });
    if (broken) refuse(lawRefusal(id, broken.name, broken.reading));
  }
  turn.runRules();
  for (const [id, card] of turn.working) {
    const was = before.get(id);
    const program = written.get(id);
    const changedState = program !== undefined;
    if (program) revealWants(turn, id, was, card, program);
    const lines = says.get(id) ?? [];
    if (!was) {
      made.push(lines.length ? { ...card, lines: lines.slice(-linesKept) } : card);
      continue;
    }
    const w: Write = { id, version: was.version + 1 };
    if (changedState) w.state = card.state;
    if (card.kind !== was.kind) w.kind = card.kind;
    if (card.pin !== was.pin) {
      w.pin = card.pin;
      w.pinSlug = card.pinSlug;
    }
    if (card.owner !== was.owner) w.owner = card.owner;
    if (card.visibility !== was.visibility) w.visibility = card.visibility;
    if (card.lent !== was.lent) w.lent = card.lent;
    if (card.place !== was.place) w.place = card.place;
    if (lines.length) w.say = lines;
    const changed =
      changedState ||
      lines.length > 0 ||
      card.kind !== was.kind ||
      card.pin !== was.pin ||
      card.owner !== was.owner ||
      card.visibility !== was.visibility ||
      card.lent !== was.lent ||
      card.place !== was.place;
    if (changed) {
      writes.push(w);
      turn.revealed.push(`${id} stands at version ${w.version}`);
    }
  }
  const effects: TurnEffects = { made, writes, packages: [...turn.newPackages.values()], offers: turn.offers, sends: turn.sends };
  if (turn.quiet) effects.quiet = turn.quiet;
  return effects;
}

function revealWants(turn: Turn, id: string, was: Card | undefined, card: Card, program: Program): void {
  const reprogrammed = turn.reprogrammed.has(id);
  // no wants before or after: nothing opens or closes
  if (!program.wants.length && (!was || !reprogrammed)) return;
  const { scope } = turn;
  const ctx = { caller: scope.caller, owner: card.owner, self: id, now: scope.clock };
  const after = distinct(safeWants(() => program.openWants(card.state, ctx)));
  let before: string[] = [];
  if (was) {
    const old = reprogrammed ? programOfSafe(turn, was) : program;
    if (old) before = distinct(safeWants(() => old.openWants(was.state, ctx)));
  }
  const reading = (name: string) => program.wants.find((w) => w.name === name)?.reading;
  for (const name of after) if (!before.includes(name)) turn.revealed.push(`opened want ${name} on ${id}${reading(name) ? `: ${reading(name)}` : ''}`);
  for (const name of before) if (!after.includes(name)) turn.revealed.push(`closed want ${name} on ${id}`);
}

function programOfSafe(turn: Turn, card: Card): Program | undefined {
  try {
    return turn.programOf(card);
  } catch {
    return undefined;
  }
}

/** The wants a turn opened (for `try`). */
export function opensOf(turn: Turn): string[] {
  return turn.revealed.filter((r) => r.startsWith('opened want ')).map((r) => r.slice('opened want '.length));
}

/** The names once each, first occurrence first (as a Set would give them). */
function distinct(names: string[]): string[] {
  for (let i = 1; i < names.length; i++) if (names.indexOf(names[i]!) < i) return [...new Set(names)];
  return names;
}

function safeWants(run: () => string[]): string[] {
  try {
    return run();
  } catch {
    return [];
  }
}

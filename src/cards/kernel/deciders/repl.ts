/**
 * A scratch world's REPL entry. With no modules, the entry is a method run as the caller's turn
 * on the object (default `repl`). With modules: a plain def answers its value (nothing
 * journaled); a spell makes the object from the modules, or gives the caller's object the new
 * code, and runs as the caller's turn.
 */
import { TypedDataC, type TypedData } from '../../../contract/typed.js';
import type { ReplCommand } from '../commands.js';
import { fingerprint, stableJson } from '../content-id.js';
import type { EntryBody, Request } from '../entry.js';
import type { KernelOptions } from '../options.js';
import { journal, type Outcome } from '../outcome.js';
import type { PackageSource, Programs } from '../programs.js';
import { doneBody, refusedBody, undecided, zeroUsage } from '../receipt.js';
import type { Refusal } from '../refusal.js';
import { sealed } from '../seal.js';
import { decideTurn } from '../turn/decide-turn.js';
import { intentGate } from '../turn/intent.js';
import { checkLaw } from '../turn/law.js';
import { quietOrQuota } from '../turn/quiet-quota.js';
import { inputOf } from '../turn/request.js';
import { runCard } from '../turn/run.js';
import { nameOf, Refused, Turn } from '../turn.js';
import { canSee, type World } from '../world.js';
import { compileFailure, modulesOf } from './modules.js';

export function decideRepl(world: World, cmd: ReplCommand, clock: number, programs: Programs, given: KernelOptions): Outcome {
  const { principal } = cmd;
  const options = cmd.limits ? { ...given, budget: lowered(given.budget, cmd.limits) } : given;
  const object = cmd.object ?? 'repl';
  if (cmd.source === undefined && cmd.modules === undefined) {
    return decideTurn(
      world,
      { kind: 'turn', principal, intent: cmd.intent, object, method: cmd.entry, fields: cmd.fields, argument: cmd.argument },
      clock,
      programs,
      options,
    );
  }
  const modules = modulesOf(cmd);
  if (!Array.isArray(modules)) return { kind: 'rejected', error: modules };
  const src: PackageSource = { kind: modules[0]!.name, modules };
  const compiled = programs.load(src);
  if (!compiled.ok) return { kind: 'rejected', error: compileFailure(compiled.diagnostics) };
  const program = compiled.program;
  const activity = program.methods.find((m) => m.name === cmd.entry && m.kind === 'spell');

  if (!activity) {
    const args: TypedData[] = [];
    for (const a of cmd.arguments ?? []) {
      if (!TypedDataC.is(a)) return { kind: 'rejected', error: { class: 'hostRequest', message: 'arguments: each is typed data (spec 2.6)' } };
      args.push(a);
    }
    let r: ReturnType<typeof program.runEntry>;
    try {
      r = program.runEntry(cmd.entry, args, options.budget);
    } catch (e) {
      r = { ok: false as const, refusal: { class: 'evaluation' as const, reason: e instanceof Error ? e.message : String(e) }, usage: zeroUsage() };
    }
    if (r.ok) return { kind: 'value', value: r.result, usage: r.usage };
    const refusal: Refusal =
      r.refusal.class === 'cardRefused'
        ? { class: 'cardRefused', clause: r.refusal.clause, reading: r.refusal.reading, reason: `refused ${r.refusal.clause}: ${r.refusal.reading}` }
        : { class: r.refusal.class, reason: r.refusal.reason };
    return { kind: 'refused', receipt: refusedBody(refusal, r.usage, object, cmd.entry) };
  }

  const input = inputOf({ fields: cmd.fields, argument: cmd.argument });
  const request: Request = { object, method: cmd.entry };
  if (cmd.fields !== undefined) request.fields = stableJson(cmd.fields);
  if (cmd.argument !== undefined && TypedDataC.is(cmd.argument)) request.argument = cmd.argument;
  const fp = fingerprint({
    repl: {
      object,
      entry: cmd.entry,
      source: cmd.source,
      modules: cmd.modules,
      fields: cmd.fields,
      argument: cmd.argument,
      ...(cmd.limits ? { limits: cmd.limits } : {}),
    },
  });
  const repeat = intentGate(world, principal, cmd.intent, fp, object, cmd.entry);
  if (repeat) return repeat;
  const gate = quietOrQuota(world, principal, clock, options, object, cmd.entry);
  if (gate) return gate;
  const base: EntryBody = {
    height: world.height,
    clock,
    kind: 'turn',
    principal,
    intent: { intent: cmd.intent, fingerprint: fp },
    request,
    receipt: undecided,
  };
  const turn = new Turn({ world, programs, options, clock, height: world.height, principal, caller: principal, depth: 0, run: world.height });
  const refused = (r: Refusal) => {
    base.receipt = refusedBody(r, turn.usage, object, cmd.entry);
    return journal([sealed(base)]);
  };
  if ('class' in input) return refused(input);
  try {
    const existing = world.cards.get(object);
    if (!existing) {
      turn.make(src, { id: object, maker: principal, visibility: 'owner', place: '', offer: false, compiled: turn.pin(src) });
    } else {
      if (!canSee(existing, principal))
        return refused({ class: 'unknownObject', reason: `${object} is taken by a card you may not see; name another object`, object });
      if (existing.owner !== principal)
        return refused({ class: 'badSpell', clause: 'notYours', reason: `${object} belongs to ${nameOf(existing.owner)}; name another object`, object });
      if (existing.pin !== program.cid) turn.reprogram(object, src, `${cmd.entry}`);
    }
    runCard(turn, object, cmd.entry, input);
    const effects = checkLaw(turn);
    base.receipt = doneBody(turn, object, cmd.entry);
    return journal([sealed(base, effects)]);
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    return refused(e.refusal);
  }
}

/** The kernel's budget, each part lowered to what the command asks when it asks less. */
function lowered(budget: KernelOptions['budget'], limits: NonNullable<ReplCommand['limits']>): KernelOptions['budget'] {
  return {
    ticks: Math.min(budget.ticks, limits.ticks ?? budget.ticks),
    heap: Math.min(budget.heap, limits.heap ?? budget.heap),
    bytes: Math.min(budget.bytes, limits.bytes ?? budget.bytes),
  };
}

/**
 * Delivering queued sends: each the oldest waiting, run as a turn of the sending card (its
 * caller the sender, its principal the guest whose turn started the run), an entry of its own,
 * within its run's allowances (`depth`, `work`, `storage`: else `budgetExhausted`).
 */
import { limits } from '../../../contract/limits.js';
import type { Usage } from '../../program.js';
import type { DeliverCommand } from '../commands.js';
import type { Entry, EntryBody, Send } from '../entry.js';
import { evolve } from '../evolve.js';
import type { KernelOptions } from '../options.js';
import { journal, type Outcome } from '../outcome.js';
import type { Programs } from '../programs.js';
import { doneBody, refusedBody, undecided, zeroUsage } from '../receipt.js';
import type { Refusal } from '../refusal.js';
import { sealed } from '../seal.js';
import { checkLaw } from '../turn/law.js';
import { runCard } from '../turn/run.js';
import { Refused, Turn, type TurnEffects, type TurnScope } from '../turn.js';
import { layered, visibleCard, type World } from '../world.js';

/** Runs up to `max` queued sends (the kernel's own cap 10,000), oldest first. */
export function decideDeliver(world: World, cmd: DeliverCommand, clock: number, programs: Programs, options: KernelOptions): Outcome {
  const max = Math.max(0, Math.min(cmd.max ?? limits.deliverPerCall, 10_000));
  const w = layered(world);
  const entries: Entry[] = [];
  for (let i = 0; i < max; i++) {
    const send = oldestSend(w);
    if (!send) break;
    const entry = deliverOne(w, send, clock, programs, options);
    evolve(w, entry);
    entries.push(entry);
  }
  return entries.length ? journal(entries) : { kind: 'nothing', reason: 'no sends wait' };
}

/**
 * The oldest queued send is the first in the queue: evolve adds sends in journal order (ids
 * ascending) and only ever removes them, so no scan of a long queue is needed.
 */
function oldestSend(world: World): Send | undefined {
  for (const s of world.pending.values()) return s;
  return undefined;
}

/** One queued send run as a turn of the sending card, within its run's allowances. */
export function deliverOne(world: World, send: Send, clock: number, programs: Programs, options: KernelOptions): Entry {
  const allow = options.allowances;
  const run = world.runs.get(send.run) ?? { work: 0, storage: 0, waiting: 0 };
  const base: EntryBody = {
    height: world.height,
    clock,
    kind: 'delivery',
    principal: send.from,
    request: { object: send.to, method: send.method, argument: send.argument },
    consumed: send.id,
    receipt: undecided,
  };
  const spentAfter = (u: Usage) => ({ run: send.run, work: run.work + u.ticks, storage: run.storage + u.bytes });
  const refused = (r: Refusal, u: Usage): Entry => {
    base.spent = spentAfter(u);
    base.receipt = refusedBody(r, u, send.to, send.method);
    return sealed(base);
  };
  const exhausted = (which: 'depth' | 'work' | 'storage', u: Usage): Entry => {
    const spentOf =
      which === 'depth'
        ? `sends chain at most ${allow.depth} deep; this one is ${send.depth}`
        : which === 'work'
          ? `the run has spent its ${allow.work} ticks`
          : `the run has written its ${allow.storage} bytes`;
    return refused({ class: 'budgetExhausted', reason: `${which}: ${spentOf}`, clause: which, object: send.to }, u);
  };
  if (send.depth > allow.depth) return exhausted('depth', zeroUsage());
  if (run.work >= allow.work) return exhausted('work', zeroUsage());
  if (run.storage >= allow.storage) return exhausted('storage', zeroUsage());

  const budget = {
    ticks: Math.min(options.budget.ticks, allow.work - run.work),
    heap: options.budget.heap,
    bytes: Math.min(options.budget.bytes, allow.storage - run.storage),
  };
  const scope: TurnScope = {
    world,
    programs,
    options: { ...options, budget },
    clock,
    height: world.height,
    principal: send.principal,
    caller: send.from,
    depth: send.depth,
    run: send.run,
    delivery: true,
  };
  const turn = new Turn(scope);
  const card = visibleCard(world, send.to, send.principal);
  if (!card) return refused({ class: 'unknownObject', reason: `no card ${send.to} for ${send.from}'s send`, object: send.to }, zeroUsage());
  let effects: TurnEffects;
  let castMethod = send.method;
  try {
    castMethod = runCard(turn, send.to, send.method, { via: 'argument', argument: send.argument });
    effects = checkLaw(turn);
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    const r = e.refusal;
    if (r.class === 'budget' && r.reason === 'ticks' && budget.ticks < options.budget.ticks) return exhausted('work', turn.usage);
    if (r.class === 'budget' && r.reason === 'bytes' && budget.bytes < options.budget.bytes) return exhausted('storage', turn.usage);
    return refused(r, turn.usage);
  }
  const receipt = doneBody(turn, send.to, castMethod);
  receipt.line = turn.lines[0] ?? `${send.from} sent ${castMethod} to ${send.to}`;
  base.spent = spentAfter(turn.usage);
  base.receipt = receipt;
  return sealed(base, effects);
}

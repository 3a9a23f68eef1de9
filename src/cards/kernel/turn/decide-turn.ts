/**
 * Deciding a guest's turn, as one pipeline of named stages in the order of cards.md ("A turn,
 * in order"); each stage is a module of its own beside this one:
 *
 *   1. read the request   request.ts      fields as canonical text, fingerprint, the entry's copy
 *   2. gate it            intent.ts       a repeat returns the first receipt; another request
 *                                         under a used intent is `duplicateIdentity`
 *                         quiet-quota.ts  the opener's quiet, the open town's hourly quota
 *                         visibility.ts   an unseen card is `unknownObject`
 *                         roots.ts        a moved `if` root is `moved`
 *   3. run the card       request.ts      the input: one of spell, fields, argument
 *                         run.ts          method and argument (`noMethod`, `typeMismatch`,
 *                                         `badSpell`), then the run under budget and capacity
 *   4. check the law      law.ts          law on every card written, wants; the entry's parts
 *   5. seal the entry     seal.ts         one entry under its content id, or a `try` report
 *
 * Not journaled: a repeat, `duplicateIdentity`, `quiet`, `quota`, `moved` (nothing ran, and the
 * intent is either spent on the first request or free to resend), and a `try`. Every other
 * refusal is an entry with its receipt. Any refusal in stages 3 and 4 is thrown as `Refused`
 * and rolls the whole turn back.
 */
import type { TurnCommand } from '../commands.js';
import type { EntryBody } from '../entry.js';
import type { KernelOptions } from '../options.js';
import type { Outcome } from '../outcome.js';
import type { Programs } from '../programs.js';
import { undecided } from '../receipt.js';
import { Refused, Turn, type TurnEffects } from '../turn.js';
import type { World } from '../world.js';
import { intentGate } from './intent.js';
import { checkLaw } from './law.js';
import { quietOrQuota } from './quiet-quota.js';
import { fieldsTextOf, fingerprintWith, inputOf, storedRequest } from './request.js';
import { movedRoot } from './roots.js';
import { runCard } from './run.js';
import { refusedTurn, sealTurn } from './seal.js';
import { unseenObject } from './visibility.js';

export function decideTurn(world: World, cmd: TurnCommand, clock: number, programs: Programs, options: KernelOptions): Outcome {
  const { principal, object, method } = cmd;

  // 1. Read the request.
  const fieldsText = fieldsTextOf(cmd);
  const fingerprint = fingerprintWith(cmd, fieldsText);

  // 2. Gate it: intent (a try spends none), quiet and quota, visibility, roots.
  const spent = cmd.try ? undefined : intentGate(world, principal, cmd.intent, fingerprint, object, method);
  if (spent) return spent;
  const held = quietOrQuota(world, principal, clock, options, object, method);
  if (held) return held;
  //    From visibility on, a refusal is journaled: the entry it is sealed in, and the working set.
  const entry: EntryBody = {
    height: world.height,
    clock,
    kind: 'turn',
    principal,
    intent: { intent: cmd.intent, fingerprint },
    request: storedRequest(cmd, fieldsText),
    receipt: undecided,
  };
  const turn = new Turn({ world, programs, options, clock, height: world.height, principal, caller: principal, depth: 0, run: world.height });
  const unseen = unseenObject(world, object, principal);
  if (unseen) return refusedTurn(turn, entry, unseen, cmd);
  const moved = movedRoot(world, cmd.if, principal, object, method);
  if (moved) return moved;

  // 3. Run the card, and 4. check the law on what it wrote.
  const input = inputOf(cmd);
  if ('class' in input) return refusedTurn(turn, entry, input, cmd);
  let reached: string;
  let effects: TurnEffects;
  try {
    reached = runCard(turn, object, method, input);
    effects = checkLaw(turn);
  } catch (e) {
    if (e instanceof Refused) return refusedTurn(turn, entry, e.refusal, cmd);
    throw e;
  }

  // 5. Seal the entry.
  return sealTurn(turn, entry, effects, reached, cmd);
}

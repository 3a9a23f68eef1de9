/**
 * Creating a card in a scratch world from modules (its `initial`, a seed laid over it, its
 * law), visible to its creator alone. A malformed request or modules that do not compile are
 * refused as malformed (nothing journaled); an object already present is `requiredAbsence`.
 */
import type { CreateCommand } from '../commands.js';
import { fingerprint } from '../content-id.js';
import type { EntryBody } from '../entry.js';
import { OBJECT_ID } from '../fields.js';
import type { KernelOptions } from '../options.js';
import { journal, type Outcome } from '../outcome.js';
import type { PackageSource, Programs } from '../programs.js';
import { doneBody, refusedBody, undecided, zeroUsage } from '../receipt.js';
import { sealed } from '../seal.js';
import { intentGate } from '../turn/intent.js';
import { checkLaw } from '../turn/law.js';
import { nameOf, Refused, Turn } from '../turn.js';
import type { World } from '../world.js';
import { compileFailure, modulesOf } from './modules.js';

export function decideCreate(world: World, cmd: CreateCommand, clock: number, programs: Programs, options: KernelOptions): Outcome {
  const { principal, object } = cmd;
  if (!OBJECT_ID.test(object) || object.length < 1 || object.length > 128)
    return { kind: 'rejected', error: { class: 'hostRequest', message: 'object: a card id is 1 to 128 of letters, digits and . _ : / -' } };
  if (cmd.entry !== 'initial') return { kind: 'rejected', error: { class: 'hostRequest', message: 'entry: a card is created from `initial`' } };
  const modules = modulesOf(cmd);
  if (!Array.isArray(modules)) return { kind: 'rejected', error: modules };
  const fp = fingerprint({ create: { object, source: cmd.source, modules: cmd.modules, entry: cmd.entry, law: cmd.law, seed: cmd.seed } });
  const repeat = intentGate(world, principal, cmd.intent, fp, object, 'create');
  if (repeat) return repeat;
  const src: PackageSource = { kind: modules[0]!.name, modules, ...(cmd.law !== undefined ? { law: cmd.law } : {}) };
  const compiled = programs.load(src);
  if (!compiled.ok) return { kind: 'rejected', error: compileFailure(compiled.diagnostics) };

  const base: EntryBody = {
    height: world.height,
    clock,
    kind: 'create',
    principal,
    intent: { intent: cmd.intent, fingerprint: fp },
    request: { object, method: 'create' },
    receipt: undecided,
  };
  const turn = new Turn({ world, programs, options, clock, height: world.height, principal, caller: principal, depth: 0, run: world.height });
  if (world.cards.has(object)) {
    base.receipt = refusedBody(
      { class: 'requiredAbsence', root: object, reason: `${object} is already present in this world`, object },
      zeroUsage(),
      object,
      'create',
    );
    return journal([sealed(base)]);
  }
  try {
    turn.make(src, { id: object, maker: principal, visibility: 'owner', place: '', seed: cmd.seed, offer: false, compiled: turn.pin(src) });
    turn.say(object, `${nameOf(principal)} created ${object}`);
    const effects = checkLaw(turn);
    base.receipt = doneBody(turn, object, 'create');
    return journal([sealed(base, effects)]);
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    base.receipt = refusedBody(e.refusal, turn.usage, object, 'create');
    return journal([sealed(base)]);
  }
}

/**
 * decide(world, command, clock, programs, options) -> Outcome. Pure: the same world, command,
 * clock, programs and options give the same outcome, byte for byte; the world is never changed.
 * Each command kind has a decider of its own; this dispatches. A guest's turn is decided by the
 * pipeline in turn/decide-turn.ts, whose one function reads off the order of cards.md:
 * read the request; gate it (intent, quiet and quota, visibility, roots); run the card (method
 * and argument, then the run under its budget); check the law; seal the entry.
 *
 * `worldDecider` is the world in the one Decider shape (src/contract/decider.ts) every stream
 * of Town has: decide, evolve over journal entries, and a blank world to start from.
 */
import type { Decider } from '../../contract/decider.js';
import type { Command } from './commands.js';
import { decideArrive } from './deciders/arrive.js';
import { decideCheck } from './deciders/check.js';
import { decideCite } from './deciders/cite.js';
import { decideCreate } from './deciders/create.js';
import { decideDeliver } from './deciders/deliver.js';
import { decideEmpty, decideFork, decideGenesis } from './deciders/found.js';
import { decideRepl } from './deciders/repl.js';
import type { Entry } from './entry.js';
import { evolve } from './evolve.js';
import { defaultOptions, type KernelOptions } from './options.js';
import type { Outcome } from './outcome.js';
import type { Programs } from './programs.js';
import { decideTurn } from './turn/decide-turn.js';
import { blankWorld, type World } from './world.js';

export function decide(world: World, command: Command, clock: number, programs: Programs, options: KernelOptions = defaultOptions): Outcome {
  switch (command.kind) {
    case 'turn':
      return decideTurn(world, command, clock, programs, options);
    case 'deliver':
      return decideDeliver(world, command, clock, programs, options);
    case 'arrive':
      return decideArrive(world, command, clock, programs, options);
    case 'genesis':
      return decideGenesis(command, clock, programs, options);
    case 'empty':
      return decideEmpty(command, clock, programs);
    case 'fork':
      return decideFork(command, clock);
    case 'create':
      return decideCreate(world, command, clock, programs, options);
    case 'repl':
      return decideRepl(world, command, clock, programs, options);
    case 'check':
      return decideCheck(command, programs);
    case 'cite':
      return decideCite(world, command, clock);
  }
}

/** What deciding the world depends on beside the world and the command. */
export type WorldContext = [clock: number, programs: Programs, options?: KernelOptions];

/**
 * The world as a Decider. Its events are journal entries; `evolve` applies one in place and
 * returns the same world (see world.ts on ownership), so `initialState` makes a fresh one.
 */
export const worldDecider: Decider<World, Command, Entry, Outcome, WorldContext> = { decide, evolve, initialState: blankWorld };

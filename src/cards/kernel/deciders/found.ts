/** Founding a world: the genesis town, an empty world with the library, or a fork (genesis.ts builds each entry). */
import type { EmptyCommand, ForkCommand, GenesisCommand } from '../commands.js';
import { emptyEntry, forkEntry, genesisEntry, throughForkEntry } from '../genesis.js';
import type { KernelOptions } from '../options.js';
import { journal, type Outcome } from '../outcome.js';
import type { Programs } from '../programs.js';

export const decideGenesis = (cmd: GenesisCommand, clock: number, programs: Programs, options: KernelOptions): Outcome =>
  journal([genesisEntry(programs, cmd, clock, options)]);

export const decideEmpty = (cmd: EmptyCommand, clock: number, programs: Programs): Outcome => journal([emptyEntry(programs, cmd, clock)]);

export const decideFork = (cmd: ForkCommand, clock: number): Outcome =>
  journal([cmd.through ? throughForkEntry(cmd.source, cmd.forker, cmd.name, clock) : forkEntry(cmd.source, cmd.forker, cmd.name, clock)]);

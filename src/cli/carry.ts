/**
 * `npm run town -- carry`: starts a new journal epoch (src/commands/carry.ts). A running town
 * carries itself (over its control socket: its world service stops deciding between batches,
 * carries, and decides what waited in the new epoch); a stopped town's store is carried by the
 * command itself. Prints the archive, the epoch begun, its height and the present's digest.
 */
import path from 'node:path';
import { CarryRefused, type Carried } from '../commands/carry.js';
import { MaxAppendSizeExceeded } from '../stores/event-store.js';

export const carryUsage =
  'carry [--town-stopped]                                         start a new journal epoch: archive the old one, carry the present (--town-stopped: EventStoreDB only)';

export interface CarryIo {
  out(line: string): void;
  err(line: string): void;
  /** The carry: the running town's, or one on the stopped town's store. */
  carry(): Promise<Carried>;
  /** Where the archives are kept (printed with the archive's name). */
  archiveDir: string;
}

export async function runCarry(args: string[], io: CarryIo): Promise<number> {
  const unknown = args.filter((a) => a !== '--town-stopped');
  if (unknown.length) {
    io.err(`carry does not take ${unknown.join(' ')}`);
    io.err(`  ${carryUsage}`);
    return 2;
  }
  let done: Carried;
  try {
    done = await io.carry();
  } catch (error) {
    if (error instanceof CarryRefused || error instanceof MaxAppendSizeExceeded) {
      io.err(`carry refused: ${error.message}`);
      return 1;
    }
    throw error;
  }
  io.out(`carried ${done.entries.toLocaleString('en')} entries of epoch ${done.epoch - 1} into epoch ${done.epoch}, which begins at height ${done.height}`);
  io.out(`archive ${path.join(io.archiveDir, done.archive)} sha256 ${done.sha256}`);
  io.out(`epoch ${done.epoch} height ${done.height} digest ${done.digest}`);
  return 0;
}

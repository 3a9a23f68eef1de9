/** Checking modules against the library: diagnostics, nothing decided or journaled. */
import type { CheckCommand } from '../commands.js';
import type { Outcome } from '../outcome.js';
import type { Programs } from '../programs.js';
import { modulesOf } from './modules.js';

export function decideCheck(cmd: CheckCommand, programs: Programs): Outcome {
  const modules = modulesOf(cmd);
  if (!Array.isArray(modules)) return { kind: 'rejected', error: modules };
  return { kind: 'checked', diagnostics: programs.check(modules, cmd.entry) };
}

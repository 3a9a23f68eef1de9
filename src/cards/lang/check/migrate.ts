/**
 * Phase 8, migration: `migrate` carries a card's state from an older program to this one, so
 * it takes one old state and returns this module's state.
 */
import type { FnSym } from '../ir.js';
import { compat, show, type Ty } from '../types.js';
import { type ModuleScope, report } from './scope.js';

/** The module's migrate when it has the shape of one (one parameter), else undefined. */
export function checkMigrate(m: ModuleScope, state: Ty | undefined): FnSym | undefined {
  const migrate = m.fns.get('migrate');
  if (!migrate) return undefined;
  const stateShown = state ? show(state) : 'State';
  if (migrate.kind !== 'def' || migrate.params.length !== 1) {
    report(m, 'migration', migrate.span, 'migrate takes the old state and returns the new one', `def migrate(old: OldState) -> ${stateShown}:`);
    return undefined;
  }
  if (state && !(compat(state, migrate.ret) && compat(migrate.ret, state))) {
    report(
      m,
      'migration',
      migrate.span,
      `migrate returns ${show(migrate.ret)}, but the new state is ${stateShown}`,
      `def migrate(old: ${show(migrate.params[0]!.ty)}) -> ${stateShown}:`,
    );
  }
  return migrate;
}

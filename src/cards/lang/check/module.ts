/**
 * A checked module (its types, functions, spells, views and clauses, and the modules it uses)
 * and the loader that finds and checks the modules a module uses. The checker's entry
 * (../check.ts) makes them and its scope and effects passes read them; this module holds them
 * so the passes need not import the entry.
 */
import type { Diags, Span } from '../diagnostics.js';
import type { CheckedClause, FnSym } from '../ir.js';
import type { Ty } from '../types.js';

export interface CheckedModule {
  name: string;
  types: Map<string, Ty>;
  fns: Map<string, FnSym>;
  uses: Map<string, CheckedModule>;
  spells: FnSym[];
  views: FnSym[];
  state?: Ty;
  initial?: FnSym;
  migrate?: FnSym;
  law: CheckedClause[];
  wants: CheckedClause[];
  rules: CheckedClause[];
  /** Declares spells, views, law, wants or rules: it programs a card. */
  card: boolean;
  ok: boolean;
}

/** Finds and checks the modules a module uses. */
export interface ModuleLoader {
  load(name: string, from: string, at: Span, diags: Diags): CheckedModule | undefined;
  names(): string[];
  /**
   * A kind `make` may name, for checking its seed: the checked library module, `null` when the
   * name is known but cannot be looked into now (a module of the package, or one being checked),
   * `undefined` when there is no such module. Reports nothing.
   */
  kind(name: string): CheckedModule | null | undefined;
}

/**
 * Resolve and type check: a module tree to the checked tree (ir.ts). Names are looked up in
 * this order: locals, the turn's context (caller, owner, now, this — not in defs and views),
 * the module's own declarations, built-ins, then the modules it uses (by name, qualified as
 * `core.clamp` or bare when only one used module has the name). Diagnostics name the stage:
 * `resolve` for names and imports, `type` for types, `law` inside law clauses, `migration`
 * for `migrate`.
 *
 * `check()` below is the order of the phases; each phase is a module of `check/`, a function
 * of the module's scope (`check/scope.ts`), which holds what the earlier phases declared.
 */
import type { Clause, ModuleAst } from './ast.js';
import { checkBodies } from './check/bodies.js';
import { checkClauses, clauseDecls } from './check/clauses.js';
import { checkEntry } from './check/entry.js';
import { declareFns } from './check/fn-decls.js';
import { checkMigrate } from './check/migrate.js';
import { type ModuleScope, moduleScope } from './check/scope.js';
import { checkSignatures } from './check/signatures.js';
import { declareTypes } from './check/type-decls.js';
import { checkUses } from './check/uses.js';
import type { Diags } from './diagnostics.js';
import { ERR } from './types.js';
import type { CheckedModule, ModuleLoader } from './check/module.js';

/** What checking a module yields and how its uses are found (check/module.ts). */
export type { CheckedModule, ModuleLoader };

export class ModuleChecker {
  private readonly m: ModuleScope;
  private readonly errorsAtStart: number;

  constructor(
    ast: ModuleAst,
    diags: Diags,
    loader: ModuleLoader,
    private readonly entry = 'initial',
    private readonly extraLaw: Clause[] = [],
    private readonly entryGiven = false,
  ) {
    this.m = moduleScope(ast, diags, loader);
    this.errorsAtStart = diags.count;
  }

  /** The phases, in order: each relies on what the ones before it declared. */
  check(): CheckedModule {
    const m = this.m;
    const decls = m.ast.decls;
    checkUses(m, decls); // 1. imports
    declareTypes(m, decls); // 2. types
    declareFns(m, decls); // 3. functions, by signature
    const written = clauseDecls(decls);
    const card =
      m.spells.length > 0 || m.views.length > 0 || written.law.length > 0 || written.wants.length > 0 || written.rules.length > 0 || this.extraLaw.length > 0;
    const state = checkEntry(m, decls, this.entry, card || this.entryGiven); // 4. the state
    checkSignatures(m, state); // 5. spells and views against the state
    checkBodies(m, decls); // 6. bodies
    const { law, wants, rules } = checkClauses(m, written, this.extraLaw, state ?? ERR); // 7. law, wants, rules
    const migrate = checkMigrate(m, state); // 8. migration
    const out: CheckedModule = {
      name: m.ast.name,
      types: m.types,
      fns: m.fns,
      uses: m.uses,
      spells: m.spells,
      views: m.views,
      law,
      wants,
      rules,
      card,
      ok: m.diags.count === this.errorsAtStart,
    };
    if (state) {
      out.state = state;
      out.initial = m.fns.get(this.entry)!;
    }
    if (migrate) out.migrate = migrate;
    return out;
  }
}

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
import type { Diags, Span } from './diagnostics.js';
import type { CheckedClause, FnSym } from './ir.js';
import { ERR, type Ty } from './types.js';

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

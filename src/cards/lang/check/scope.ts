/**
 * What the phases of checking one module share: its tree, where its diagnostics go, and what
 * it has declared so far (types, functions, the modules it uses). Each phase is a function of
 * this scope; `check.ts` calls them in order.
 */
import type { Stage } from '../../program.js';
import type { ModuleAst } from '../ast.js';
import type { CheckedModule, ModuleLoader } from './module.js';
import type { Diags, Span } from '../diagnostics.js';
import type { FnSym } from '../ir.js';
import type { Ty } from '../types.js';
import type { FnCtx } from './locals.js';

export interface ModuleScope {
  readonly ast: ModuleAst;
  readonly diags: Diags;
  readonly loader: ModuleLoader;
  readonly types: Map<string, Ty>;
  /** Where each type is declared: the first declaration of a name wins. */
  readonly typeSpans: Map<string, Span>;
  readonly fns: Map<string, FnSym>;
  readonly uses: Map<string, CheckedModule>;
  readonly spells: FnSym[];
  readonly views: FnSym[];
  /** Checking the law text given beside the package: its diagnostics name the module `law`. */
  lawText: boolean;
}

export function moduleScope(ast: ModuleAst, diags: Diags, loader: ModuleLoader): ModuleScope {
  return {
    ast,
    diags,
    loader,
    types: new Map(),
    typeSpans: new Map(),
    fns: new Map(),
    uses: new Map(),
    spells: [],
    views: [],
    lawText: false,
  };
}

/** Records a diagnostic of the module; inside a law clause (`f.stage`) its stage is `law`. */
export function report(m: ModuleScope, stage: Stage, span: Span, message: string, hint?: string, f?: FnCtx): void {
  const st: Stage = f?.stage === 'law' ? 'law' : stage;
  const phase = stage === 'resolve' ? 1 : 2;
  const saved = m.diags.module;
  m.diags.module = m.lawText ? 'law' : m.ast.name;
  m.diags.add(st, span, message, hint, phase);
  m.diags.module = saved;
}

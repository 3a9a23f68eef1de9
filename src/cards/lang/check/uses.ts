/** Phase 1, imports: each `use` loads and checks the module it names, once. */
import type { Decl } from '../ast.js';
import { type ModuleScope, report } from './scope.js';

export function checkUses(m: ModuleScope, decls: Decl[]): void {
  for (const d of decls) {
    if (d.k !== 'use') continue;
    if (m.uses.has(d.name)) {
      report(m, 'resolve', d.span, `${d.name} is used twice`, 'use each module once');
      continue;
    }
    if (d.name === m.ast.name) {
      report(m, 'resolve', d.span, `the module ${d.name} cannot use itself`);
      continue;
    }
    const u = m.loader.load(d.name, m.ast.name, d.span, m.diags);
    if (u) m.uses.set(d.name, u);
  }
}

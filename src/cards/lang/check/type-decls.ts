/**
 * Phase 2, types: every type name is declared first, then filled in, so types may refer to
 * each other and to themselves.
 */
import type { Decl } from '../ast.js';
import { fillRecord, layout, recordTy } from '../types.js';
import { type ModuleScope, report } from './scope.js';
import { builtinTypes, fieldTys } from './type-expr.js';

export function declareTypes(m: ModuleScope, decls: Decl[]): void {
  for (const d of decls) {
    if (d.k !== 'type') continue;
    if (builtinTypes.has(d.name)) {
      report(m, 'resolve', d.nameSpan, `${d.name} is a built-in type and cannot be declared again`, `choose another name, like My${d.name}`);
      continue;
    }
    const first = m.typeSpans.get(d.name);
    if (first) {
      report(m, 'resolve', d.nameSpan, `the type ${d.name} is declared twice (first at line ${first.line})`, 'give one of them another name');
      continue;
    }
    m.typeSpans.set(d.name, d.nameSpan);
    if (d.ctors) m.types.set(d.name, { k: 'variant', name: d.name, module: m.ast.name, ctors: [], tag: new Map() });
    else m.types.set(d.name, recordTy([], d.name));
  }
  for (const d of decls) {
    if (d.k !== 'type' || m.typeSpans.get(d.name) !== d.nameSpan) continue;
    const t = m.types.get(d.name)!;
    if (t.k === 'record') fillRecord(t, fieldTys(m, d.fields ?? [], `type ${d.name}`));
    else if (t.k === 'variant') {
      for (const c of d.ctors ?? []) {
        if (t.tag.has(c.name)) {
          report(m, 'resolve', c.span, `${d.name} has the tag ${c.name} twice`, 'give each tag its own name');
          continue;
        }
        if (/^[A-Z]/.test(c.name) && m.typeSpans.has(c.name)) {
          report(m, 'resolve', c.span, `the tag ${c.name} has the name of a type`, 'tags are usually lowercase: ' + c.name.toLowerCase());
        }
        const fields = fieldTys(m, c.fields, `tag ${c.name}`);
        t.tag.set(c.name, t.ctors.length);
        t.ctors.push({ name: c.name, fields, ...layout(fields) });
      }
    }
  }
}

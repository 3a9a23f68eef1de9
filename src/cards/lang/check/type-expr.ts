/**
 * Type expressions as written (`Natural 0..9`, `List Text`, `core.Pair`) to types: built-ins,
 * the module's own types, then the types of the modules it uses.
 */
import type { TypeExpr } from '../ast.js';
import type { Span } from '../diagnostics.js';
import { BOOL, ERR, NAT, PRINCIPAL, listOf, mapOf, show, type FieldTy, type Ty } from '../types.js';
import { type ModuleScope, report } from './scope.js';
import { suggest } from './suggest.js';

export const builtinTypes = new Set(['Natural', 'Text', 'Boolean', 'Object', 'Principal', 'Label', 'List', 'Map']);

export function fieldTys(m: ModuleScope, fields: { name: string; type: TypeExpr; span: Span }[], where: string): FieldTy[] {
  const out: FieldTy[] = [];
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.name)) {
      report(m, 'resolve', f.span, `${where} has the field ${f.name} twice`, 'give each field its own name');
      continue;
    }
    seen.add(f.name);
    out.push({ name: f.name, ty: typeOf(m, f.type) });
  }
  return out;
}

function lookupType(m: ModuleScope, name: string, qual: string | undefined, span: Span): Ty | undefined {
  if (qual !== undefined) {
    const u = m.uses.get(qual);
    if (!u) {
      report(m, 'resolve', span, `no module named ${qual} is used here`, `use ${qual}`);
      return undefined;
    }
    const t = u.types.get(name);
    if (!t) report(m, 'resolve', span, `the module ${qual} has no type ${name}`, u.types.size ? `its types: ${[...u.types.keys()].join(', ')}` : undefined);
    return t;
  }
  const local = m.types.get(name);
  if (local) return local;
  const found = [...m.uses.values()].filter((u) => u.types.has(name));
  if (found.length === 1) return found[0]!.types.get(name);
  if (found.length > 1) {
    report(m, 'resolve', span, `${name} is a type of ${found.map((u) => u.name).join(' and ')}; say which`, `${found[0]!.name}.${name}`);
    return undefined;
  }
  return undefined;
}

export function typeOf(m: ModuleScope, te: TypeExpr): Ty {
  if (te.k === 'tlist') return listOf(typeOf(m, te.of));
  if (te.k === 'tmap') {
    const key = typeOf(m, te.key);
    if (key.k !== 'nat' && key.k !== 'text' && key.k !== 'err') {
      report(m, 'type', te.key.span, `a map is keyed by naturals or texts, not ${show(key)}`, 'Map Text Natural');
      return mapOf(ERR, typeOf(m, te.of));
    }
    return mapOf(key, typeOf(m, te.of));
  }
  const bounded = te.min !== undefined && te.max !== undefined;
  if (bounded && te.min! > te.max!) {
    report(m, 'type', te.span, `the bounds ${te.min}..${te.max} hold nothing: the lower is above the upper`, `${te.name} ${te.max}..${te.min}`);
  }
  if (te.qual === undefined) {
    switch (te.name) {
      case 'Natural':
        return bounded ? { k: 'nat', min: te.min!, max: te.max! } : NAT;
      case 'Text':
      case 'Object':
      case 'Label':
        return bounded ? { k: 'text', sub: te.name, min: te.min!, max: te.max! } : { k: 'text', sub: te.name };
      case 'Principal':
        if (bounded) report(m, 'type', te.span, 'a Principal has no bounds', 'Principal');
        return PRINCIPAL;
      case 'Boolean':
        if (bounded) report(m, 'type', te.span, 'a Boolean has no bounds', 'Boolean');
        return BOOL;
      case 'List':
        report(m, 'type', te.span, 'List needs the type of its items', 'List Natural');
        return ERR;
      case 'Map':
        report(m, 'type', te.span, 'Map needs the type of its keys and of its values', 'Map Text Natural');
        return ERR;
    }
  }
  const t = lookupType(m, te.name, te.qual, te.span);
  if (!t) {
    if (te.qual === undefined) {
      const known = [...builtinTypes, ...m.types.keys(), ...[...m.uses.values()].flatMap((u) => [...u.types.keys()])];
      const s = suggest(te.name, known);
      report(m, 'resolve', te.span, `unknown type ${te.name}`, s ? `did you mean ${s}?` : 'declare it with type, or use the module that has it');
    }
    return ERR;
  }
  if (bounded) report(m, 'type', te.span, `only Natural, Text, Object and Label take bounds, not ${te.name}`, te.name);
  return t;
}

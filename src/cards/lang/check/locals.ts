/**
 * Inside a body: the function being checked (`FnCtx`) and its local names, each a slot of the
 * frame. Blocks push a scope of names; slots are never reused, so a frame is as long as the
 * number of names the body declares.
 */
import type { Stage } from '../../program.js';
import type { CtxName } from '../ir.js';
import { NAT, OBJECT, PRINCIPAL, type Ty } from '../types.js';
import { type ModuleScope, report } from './scope.js';
import type { Span } from '../diagnostics.js';

export interface Local {
  slot: number;
  ty: Ty;
}

export interface FnCtx {
  kind: 'def' | 'spell' | 'view' | 'clause';
  name: string;
  ret: Ty;
  scopes: Map<string, Local>[];
  slots: number;
  /** Loops around the statement being checked: break and continue need one. */
  loops?: number;
  /** Diagnostics inside law clauses carry stage `law`. */
  stage?: Stage;
}

/** The turn's context: known in spells, law, wants and rules. */
export const ctxTypes: Record<CtxName, Ty> = { caller: PRINCIPAL, owner: PRINCIPAL, now: NAT, this: OBJECT, place: OBJECT };
export const isCtxName = (n: string): n is CtxName => n === 'caller' || n === 'owner' || n === 'now' || n === 'this' || n === 'place';
/**
 * Context names added after cards were written (`place`): code may still define them, and its
 * own definition wins, so a card that named something `place` before compiles as it did.
 */
export const isReservedCtxName = (n: string): boolean => isCtxName(n) && n !== 'place';

export function lookupLocal(name: string, f: FnCtx): Local | undefined {
  for (let i = f.scopes.length - 1; i >= 0; i--) {
    const l = f.scopes[i]!.get(name);
    if (l) return l;
  }
  return undefined;
}

export function declareLocal(m: ModuleScope, name: string, ty: Ty, span: Span, f: FnCtx): number {
  const scope = f.scopes[f.scopes.length - 1]!;
  if (scope.has(name)) report(m, 'resolve', span, `${name} is already declared in this block`, `assign it instead: ${name} = …`, f);
  if (isReservedCtxName(name) || name === 'before')
    report(m, 'resolve', span, `${name} names the turn's context and cannot be declared`, 'choose another name', f);
  const slot = f.slots++;
  scope.set(name, { slot, ty });
  return slot;
}

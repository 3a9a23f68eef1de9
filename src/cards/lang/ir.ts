/**
 * The checked tree: every name resolved to a slot, a function or a field position, every
 * node typed. The compiler turns it into closures; nothing here refers to source names
 * except for messages.
 */
import type { Builtin } from './builtins.js';
import type { Span } from './diagnostics.js';
import { show, type Ty, type VariantTy } from './types.js';
import type { Value } from './values.js';
import type { Rt } from './meter.js';

export type CtxName = 'caller' | 'owner' | 'now' | 'this' | 'place';

export type E =
  | { k: 'const'; v: Value }
  | { k: 'local'; slot: number }
  | { k: 'ctx'; name: CtxName }
  | { k: 'text'; parts: (string | { e: E; ty: Ty })[] }
  | { k: 'field'; obj: E; slot: number }
  | { k: 'index'; obj: E; idx: E }
  | { k: 'call'; fn: FnSym; args: E[] }
  | { k: 'builtin'; b: Builtin; args: E[]; tys: Ty[] }
  | { k: 'record'; items: E[] }
  | { k: 'update'; obj: E; sets: [number, E][] }
  | { k: 'ctor'; tag: number; fields: E[] | null }
  | { k: 'list'; items: E[] }
  | { k: 'arith'; op: '+' | '-' | '*' | '/' | '%'; l: E; r: E }
  | { k: 'concat'; l: E; r: E; list: boolean }
  | { k: 'cmp'; op: '<' | '<=' | '>' | '>='; l: E; r: E; text?: boolean }
  | { k: 'eq'; neg: boolean; l: E; r: E }
  | { k: 'and' | 'or'; l: E; r: E }
  | { k: 'not'; e: E }
  | { k: 'chain'; first: E; links: Link[] };

/** One step of a long left-assoc chain: `text`/`list` join, arithmetic, or short-circuit and/or. */
export interface Link {
  op: '+' | '-' | '*' | '/' | '%' | 'text' | 'list' | 'and' | 'or';
  r: E;
}

export type S =
  | { k: 'set'; slot: number; e: E }
  | { k: 'setPath'; slot: number; path: number[]; e: E }
  | { k: 'if'; branches: [E, S[]][]; otherwise: S[] | null }
  | { k: 'match'; subject: E; variant: VariantTy; cases: (MatchCase | undefined)[]; rest: S[] | null }
  | { k: 'forList'; slot: number; list: E; body: S[] }
  | { k: 'forRange'; slot: number; from: E; to: E; body: S[] }
  | { k: 'while'; cond: E; body: S[] }
  | { k: 'return'; e: E }
  | { k: 'say'; e: E }
  | { k: 'send'; target: E; method: string; arg: E; argTy: Ty }
  | { k: 'make'; kind: string; seed: E | null; seedTy: Ty | null }
  | { k: 'move'; thing: E; to: E }
  | { k: 'refuse'; clause: string; cls?: 'absentItem' | 'duplicateKey' | 'keyTaken'; reading: E }
  | { k: 'result'; e: E; ty: Ty }
  | { k: 'pass' }
  | { k: 'break' | 'continue' };

export interface MatchCase {
  /** [field slot in the tag's payload, local slot it is bound to] */
  binds: [number, number][];
  body: S[];
}

export interface FnSym {
  name: string;
  module: string;
  kind: 'def' | 'spell' | 'view';
  params: { name: string; ty: Ty }[];
  ret: Ty;
  span: Span;
  /** Filled once the body is checked. */
  body?: S[];
  slots?: number;
  /** Filled by the compiler: runs the body on a frame whose first slots hold the arguments. */
  exec?: (env: Value[], rt: Rt) => Value;
  /** What one call counts toward the call depth limit (see callWeight in compiler/cost.ts). */
  weight?: number;
}

/** How a function is written: `def add(a: Natural, b: Natural) -> Natural`. */
export function fnSignature(f: FnSym): string {
  return `${f.kind} ${f.name}(${f.params.map((p) => `${p.name}: ${show(p.ty)}`).join(', ')}) -> ${show(f.ret)}`;
}

/** A law clause, want or rule checked against the state type: slot 0 is self, slot 1 before. */
export interface CheckedClause {
  name: string;
  reading: string;
  text: string;
  pred: E;
  slots: number;
  /** Rules only: the text said when it fires. */
  say?: E;
}

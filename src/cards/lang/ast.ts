/** The tree the parser builds: what the guest wrote, with where each piece stands. */
import type { Span } from './diagnostics.js';

export type TypeExpr =
  | { k: 'tname'; name: string; qual?: string; min?: bigint; max?: bigint; span: Span }
  | { k: 'tlist'; of: TypeExpr; span: Span }
  | { k: 'tmap'; key: TypeExpr; of: TypeExpr; span: Span };

export interface FieldDecl {
  name: string;
  type: TypeExpr;
  span: Span;
}

export interface CtorDecl {
  name: string;
  fields: FieldDecl[];
  span: Span;
}

export interface Param {
  name: string;
  type: TypeExpr;
  span: Span;
}

export interface Clause {
  name: string;
  pred: Expr;
  reading: string;
  /** The clause as written, on one line. */
  text: string;
  span: Span;
}

export type Decl =
  | { k: 'use'; name: string; span: Span }
  | { k: 'type'; name: string; fields?: FieldDecl[]; ctors?: CtorDecl[]; span: Span; nameSpan: Span }
  | {
      k: 'fn';
      kind: 'def' | 'spell' | 'view';
      name: string;
      params: Param[];
      ret: TypeExpr | null;
      body: Stmt[];
      span: Span;
      nameSpan: Span;
    }
  | { k: 'law'; clauses: Clause[]; span: Span }
  | { k: 'want'; clause: Clause; span: Span }
  | { k: 'rule'; name: string; cond: Expr; say: Expr; text: string; span: Span };

export interface Case {
  /** Constructor name, or `_` for the rest. */
  ctor: string;
  binds: { name: string; span: Span }[];
  body: Stmt[];
  span: Span;
}

export type Stmt =
  | { k: 'let'; name: string; type?: TypeExpr; value: Expr; span: Span }
  | { k: 'assign'; target: Expr; value: Expr; span: Span }
  | { k: 'if'; branches: { cond: Expr; body: Stmt[] }[]; otherwise?: Stmt[]; span: Span }
  | { k: 'match'; subject: Expr; cases: Case[]; span: Span }
  | { k: 'for'; name: string; list?: Expr; from?: Expr; to?: Expr; body: Stmt[]; span: Span }
  | { k: 'while'; cond: Expr; body: Stmt[]; span: Span }
  | { k: 'return'; value?: Expr; span: Span }
  | { k: 'say'; value: Expr; span: Span }
  | { k: 'send'; target: Expr; method: string; arg: Expr; span: Span }
  | { k: 'make'; kind: string; seed?: Expr; span: Span }
  | { k: 'move'; thing: Expr; to: Expr; span: Span }
  | { k: 'refuse'; clause: string; cls?: 'absentItem' | 'duplicateKey' | 'keyTaken'; reading: Expr; span: Span }
  | { k: 'result'; value: Expr; span: Span }
  | { k: 'pass'; span: Span }
  | { k: 'break' | 'continue'; span: Span };

export type BinOp = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'and' | 'or';

export type Expr =
  | { k: 'nat'; value: number | bigint; span: Span }
  | { k: 'text'; parts: (string | Expr)[]; span: Span }
  | { k: 'bool'; value: boolean; span: Span }
  | { k: 'name'; name: string; span: Span }
  | { k: 'field'; obj: Expr; name: string; span: Span; nameSpan: Span }
  | { k: 'index'; obj: Expr; index: Expr; span: Span }
  | { k: 'call'; fn: Expr; args: Expr[]; span: Span }
  | { k: 'with'; target: Expr; fields: FieldInit[]; span: Span }
  | { k: 'anon'; fields: FieldInit[]; span: Span }
  | { k: 'list'; items: Expr[]; span: Span }
  | { k: 'bin'; op: BinOp; l: Expr; r: Expr; span: Span }
  | { k: 'not'; e: Expr; span: Span };

export interface FieldInit {
  name: string;
  value: Expr;
  span: Span;
}

export interface ModuleAst {
  name: string;
  decls: Decl[];
}

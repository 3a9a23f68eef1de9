/**
 * Where a diagnostic points, and the collector every stage writes into. A stage never throws
 * on bad input: it records what it found and lets the next stage decide whether to run.
 */
import type { Diagnostic, Stage } from '../program.js';

export interface Span {
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

export const noSpan: Span = { line: 1, col: 1, endLine: 1, endCol: 1 };

export function join(a: Span, b: Span): Span {
  return { line: a.line, col: a.col, endLine: b.endLine, endCol: b.endCol };
}

/** At most this many diagnostics per package: past it the rest are noise caused by the first. */
const maxDiagnostics = 20;

/**
 * Diagnostics of one package. Each carries a phase (0 syntax, 1 names, 2 types) so that only
 * the earliest phase that found anything is reported: a type error caused by a name that does
 * not resolve is noise.
 */
export class Diags {
  readonly list: Diagnostic[] = [];
  private readonly phases: number[] = [];
  constructor(public module: string) {}

  /** Diagnostics of the earliest phase that has any. */
  earliest(): Diagnostic[] {
    if (!this.list.length) return [];
    const min = Math.min(...this.phases);
    return this.list.filter((_, i) => this.phases[i] === min);
  }

  add(stage: Stage, span: Span, message: string, hint?: string, phase?: number): void {
    if (this.list.length >= maxDiagnostics) return;
    this.phases.push(phase ?? (stage === 'parse' ? 0 : stage === 'resolve' ? 1 : 2));
    const d: Diagnostic = {
      stage,
      module: this.module,
      line: span.line,
      column: span.col,
      endLine: span.endLine,
      endColumn: span.endCol,
      message,
    };
    if (hint !== undefined) d.hint = hint;
    this.list.push(d);
  }

  get count(): number {
    return this.list.length;
  }
}

/** Thrown inside the parser to stop at the first syntax error of a module; never escapes it. */
export class StopParse {
  constructor(
    public stage: Stage,
    public span: Span,
    public message: string,
    public hint?: string,
  ) {}
}

/**
 * The meter and the run's effects. Ticks are counted per node of the checked tree (a statement
 * is charged for every node it is written with when it starts; a call, a loop turn and a
 * builtin's work are charged as they happen), heap per allocation in rough byte units, bytes
 * on what the run hands back. All counts depend only on the program and its inputs, so a
 * replay spends exactly what the first run spent.
 */
import type { Budget, CallContext, MakeEffect, MoveEffect, SendEffect, Usage } from '../program.js';
import type { TypedData } from '../../contract/typed.js';
import { Halt } from './values.js';

/** Deepest chain of calls; far below what the JS stack can hold, so it fails the same way everywhere. */
export const maxCallDepth = 160;

export const outOfTicks = new Halt({ class: 'budget', reason: 'ticks' });
export const outOfHeap = new Halt({ class: 'budget', reason: 'heap' });
export const outOfBytes = new Halt({ class: 'budget', reason: 'bytes' });
export const tooDeep = new Halt({ class: 'evaluation', reason: 'call too deep' });

export class Rt {
  /** Ticks left; below zero the run halts. */
  left: number;
  heapLeft: number;
  depth = 0;
  says: string[] = [];
  sends: SendEffect[] = [];
  makes: MakeEffect[] = [];
  moves: MoveEffect[] = [];
  result: TypedData | undefined;
  /** Scratch counter for structural equality. */
  readonly count = { n: 0 };

  constructor(
    public budget: Budget,
    public ctx: CallContext | null,
  ) {
    this.left = budget.ticks;
    this.heapLeft = budget.heap;
  }

  tick(n: number): void {
    if ((this.left -= n) < 0) throw outOfTicks;
  }

  alloc(n: number): void {
    if ((this.heapLeft -= n) < 0) throw outOfHeap;
  }

  usage(bytes = 0): Usage {
    return {
      ticks: Math.min(this.budget.ticks, this.budget.ticks - this.left),
      heap: Math.min(this.budget.heap, this.budget.heap - this.heapLeft),
      bytes,
    };
  }
}

const utf8 = new TextEncoder();

/** Bytes of typed data as the journal would hold it, roughly: what `bytes` meters. */
export function sizeOf(d: TypedData, depth = 0): number {
  if (depth > 512) return 0;
  switch (d.tag) {
    case 'natural':
      return String(d.value).length;
    case 'label':
      return utf8Length(d.value) + 2;
    case 'boolean':
      return d.value ? 4 : 5;
    case 'record': {
      let n = 2;
      for (const f of d.fields) n += utf8Length(f.name) + 3 + sizeOf(f.value, depth + 1);
      return n;
    }
    case 'list': {
      let n = 2;
      for (const x of d.items) n += 1 + sizeOf(x, depth + 1);
      return n;
    }
    case 'variant':
      return utf8Length(d.label) + 2 + (d.payload ? sizeOf(d.payload, depth + 1) : 0);
  }
}

export function utf8Length(s: string): number {
  // ASCII is the common case; avoid encoding it.
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 127) {
      ascii = false;
      break;
    }
  }
  return ascii ? s.length : utf8.encode(s).length;
}

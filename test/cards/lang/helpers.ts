/** Shared helpers for the language tests: compile one module, run spells, read results. */
import * as assert from 'uvu/assert';
import { compile } from '../../../src/cards/compile.js';
import { sealedLibrary } from '../../../src/cards/library/index.js';
import type { Budget, CallContext, Diagnostic, Program, RunResult } from '../../../src/cards/program.js';
import { record, type TypedData } from '../../../src/contract/typed.js';

export const budget: Budget = { ticks: 1_000_000, heap: 10_000_000, bytes: 1_000_000 };
export const ann = 'guest:town.test:ann';
export const bob = 'guest:town.test:bob';
export const ctx = (over: Partial<CallContext> = {}): CallContext => ({ caller: ann, owner: ann, self: 'card-1', now: 1000, ...over });

let counter = 0;
/** Compiles one module (uniquely named so the cache never hides a test's own source). */
export function build(source: string, opts: { law?: string; entry?: string; name?: string } = {}): Program {
  const name = opts.name ?? `m${++counter}`;
  const input: Parameters<typeof compile>[0] = { modules: [{ name, source }] };
  if (opts.law !== undefined) input.law = opts.law;
  if (opts.entry !== undefined) input.entry = opts.entry;
  const r = compile(input, sealedLibrary());
  if (!r.ok) throw new Error('did not compile: ' + JSON.stringify(r.diagnostics, null, 1));
  return r.program;
}

/** The diagnostics of a module that must not compile. */
export function fails(source: string, opts: { law?: string; entry?: string; name?: string } = {}): Diagnostic[] {
  const name = opts.name ?? 'bad';
  const input: Parameters<typeof compile>[0] = { modules: [{ name, source }] };
  if (opts.law !== undefined) input.law = opts.law;
  if (opts.entry !== undefined) input.entry = opts.entry;
  const r = compile(input, sealedLibrary());
  if (r.ok) throw new Error('compiled, but should not have:\n' + source);
  return r.diagnostics;
}

/** Asserts the first diagnostic's stage, place and words. */
export function diag(d: Diagnostic[], stage: string, line: number, column: number, words: string | RegExp): Diagnostic {
  const first = d[0]!;
  assert.ok(first, 'a diagnostic');
  assert.is(first.stage, stage, `stage of ${JSON.stringify(first)}`);
  assert.is(first.line, line, `line of ${JSON.stringify(first)}`);
  assert.is(first.column, column, `column of ${JSON.stringify(first)}`);
  if (typeof words === 'string') assert.ok(first.message.includes(words), `message "${first.message}" should include "${words}"`);
  else assert.match(first.message, words);
  assert.ok(first.endLine >= first.line);
  return first;
}

export function state(p: Program, c: CallContext = ctx()): TypedData {
  const r = p.initial(budget, c);
  if (!r.ok) throw new Error('initial refused: ' + JSON.stringify(r.refusal));
  return r.state;
}

export function cast(p: Program, method: string, self: TypedData, args: Record<string, TypedData> = {}, c: CallContext = ctx(), b: Budget = budget): RunResult {
  return p.call(method, self, record(args), c, b);
}

export function ok(r: RunResult): Extract<RunResult, { ok: true }> {
  if (!r.ok) throw new Error('refused: ' + JSON.stringify(r.refusal));
  return r;
}

export function refused(r: RunResult): Extract<RunResult, { ok: false }> {
  if (r.ok) throw new Error('ran, but should have been refused: ' + JSON.stringify(r.state));
  return r;
}

/** A field of a typed record, as plain JS (naturals as bigint when big). */
export function get(d: TypedData, ...path: string[]): unknown {
  let cur: TypedData = d;
  for (const name of path) {
    if (cur.tag !== 'record') throw new Error(`not a record at ${name}`);
    const f = cur.fields.find((x) => x.name === name);
    if (!f) throw new Error(`no field ${name}`);
    cur = f.value;
  }
  return plain(cur);
}

export function plain(d: TypedData): unknown {
  switch (d.tag) {
    case 'natural':
      return typeof d.value === 'string' ? BigInt(d.value) : d.value;
    case 'label':
    case 'boolean':
      return d.value;
    case 'list':
      return d.items.map(plain);
    case 'record':
      return Object.fromEntries(d.fields.map((f) => [f.name, plain(f.value)]));
    case 'variant':
      return d.payload ? { [d.label]: plain(d.payload) } : d.label;
  }
}

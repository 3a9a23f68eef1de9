/** Metering: every run ends, within its budget, with the same counts every time; refusals keep usage. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { natural, type TypedData } from '../../../src/contract/typed.js';
import type { Budget, RunResult } from '../../../src/cards/program.js';
import { build, cast, ctx, ok, refused, state } from './helpers.js';

const small: Budget = { ticks: 100_000, heap: 1_000_000, bytes: 100_000 };

const src = `
type S:
  text: Text
  n: Natural

def initial() -> S:
  return S { text: "", n: 0 }

spell forever(self: S) -> S:
  let i = 0
  while true:
    i = i + 1
  return self

spell recurse(self: S) -> S:
  return self { n: down(1) }

def down(n: Natural) -> Natural:
  return down(n + 1) + 1

spell hog(self: S) -> S:
  let xs: List Natural = []
  for i in 0..1000000:
    xs = append(xs, i)
  return self

spell grow(self: S, times: Natural 0..40) -> S:
  let t = "x"
  for i in 1..times:
    t = t + t
  return self { text: t }

spell chatter(self: S, times: Natural 0..100000) -> S:
  for i in 1..times:
    say "line {i} of a long story"
  return self

spell count(self: S, to: Natural 0..1000000) -> S:
  let total = 0
  for i in 1..to:
    total = total + i
  return self { n: total }
`;

const p = build(src);
const s0 = state(p);
const run = (method: string, args: Record<string, TypedData> = {}, b: Budget = small): RunResult => cast(p, method, s0, args, ctx(), b);

test('an infinite loop ends on ticks, with the whole budget spent', () => {
  const r = refused(run('forever'));
  assert.equal(r.refusal, { class: 'budget', reason: 'ticks' });
  assert.is(r.usage.ticks, small.ticks);
});

test('unbounded recursion ends as evaluation: call too deep, before the JS stack does', () => {
  const r = refused(run('recurse', {}, { ticks: 10_000_000, heap: 10_000_000, bytes: 1000 }));
  assert.equal(r.refusal, { class: 'evaluation', reason: 'call too deep' });
});

test('a big allocation ends on heap', () => {
  const r = refused(run('hog', {}, { ticks: 100_000_000, heap: 1_000_000, bytes: 1000 }));
  assert.equal(r.refusal, { class: 'budget', reason: 'heap' });
  assert.is(r.usage.heap, 1_000_000);
  assert.ok(r.usage.ticks < 100_000_000);
});

test('a huge state ends on bytes; so do many lines', () => {
  const big = refused(run('grow', { times: natural(20) }, { ticks: 100_000, heap: 100_000_000, bytes: 100_000 }));
  assert.equal(big.refusal, { class: 'budget', reason: 'bytes' });
  assert.ok(big.usage.bytes > 1_000_000, `bytes counted: ${big.usage.bytes}`);
  const fine = ok(run('grow', { times: natural(10) }, { ticks: 100_000, heap: 100_000_000, bytes: 100_000 }));
  assert.ok(fine.usage.bytes > 1024 && fine.usage.bytes < 2000);
  const lines = refused(run('chatter', { times: natural(10_000) }, { ticks: 10_000_000, heap: 100_000_000, bytes: 50_000 }));
  assert.equal(lines.refusal, { class: 'budget', reason: 'bytes' });
});

test('the same run spends the same, every time, success or refusal', () => {
  for (const [method, args, b] of [
    ['count', { to: natural(5000) }, small],
    ['forever', {}, small],
    ['hog', {}, { ticks: 100_000_000, heap: 500_000, bytes: 1000 }],
    ['recurse', {}, { ticks: 10_000_000, heap: 10_000_000, bytes: 1000 }],
    ['grow', { times: natural(12) }, { ticks: 100_000, heap: 100_000_000, bytes: 100_000 }],
  ] as const) {
    const a = run(method, args as Record<string, TypedData>, b);
    const c = run(method, args as Record<string, TypedData>, b);
    assert.equal(a.usage, c.usage, method);
    assert.is(a.ok, c.ok);
  }
});

test('usage does not depend on how deep the JS stack already is', () => {
  const b = { ticks: 10_000_000, heap: 10_000_000, bytes: 1000 };
  const shallow = run('recurse', {}, b);
  const deepRun = (n: number): RunResult => (n === 0 ? run('recurse', {}, b) : deepRun(n - 1));
  const deep = deepRun(3000);
  assert.equal(deep.usage, shallow.usage);
  assert.equal(deep, shallow);
});

test('a deeply nested body counts heavier toward the call depth, so it never overflows the stack', () => {
  const nest = (d: number, inner: string): string => (d === 0 ? inner : `1 + (${nest(d - 1, inner)})`);
  let ifs = '';
  for (let i = 0; i < 20; i++) ifs += `${'  '.repeat(i + 1)}if n < 100000:\n`;
  const q = build(`def f(n: Natural) -> Natural:\n${ifs}${'  '.repeat(21)}return ${nest(10, 'f(n + 1)')}\n  return 0\n`);
  const b = { ticks: 100_000_000, heap: 100_000_000, bytes: 1000 };
  const deepRun = (n: number): RunResult => (n === 0 ? q.runEntry('f', [natural(0)], b) : deepRun(n - 1));
  const a = q.runEntry('f', [natural(0)], b);
  assert.equal(a.ok ? 'ran' : a.refusal, { class: 'evaluation', reason: 'call too deep' });
  assert.equal(deepRun(5000).usage, a.usage);
});

test('squaring a natural again and again ends on the budget, quickly', () => {
  const q = build('def f() -> Natural:\n  let x = 3\n  while true:\n    x = x * x\n  return x\n');
  const started = process.hrtime.bigint();
  const r = refused(q.runEntry('f', [], { ticks: 1_000_000, heap: 10_000_000, bytes: 1000 }));
  assert.is(r.refusal.class, 'budget');
  // Not a timing assertion of speed, a guard against a hang: unmetered bigints took minutes.
  assert.ok(process.hrtime.bigint() - started < 10_000_000_000n);
  const again = q.runEntry('f', [], { ticks: 1_000_000, heap: 10_000_000, bytes: 1000 });
  assert.equal(again.usage, r.usage);
});

test('a value nested deeper than typed data may be is refused, the same way at any stack depth', () => {
  const q = build(`
type Chain:
  end
  link { next: Chain }

type S:
  c: Chain

def initial() -> S:
  return S { c: end }

spell grow(self: S, n: Natural 0..100000) -> S:
  let c = self.c
  for i in 1..n:
    c = Chain.link { next: c }
  return self { c: c }

spell same(self: S, n: Natural 0..100000) -> S:
  let a = self.c
  let b = self.c
  for i in 1..n:
    a = Chain.link { next: a }
    b = Chain.link { next: b }
  if a == b:
    return self
  return self
`);
  const b = { ticks: 10_000_000, heap: 100_000_000, bytes: 10_000_000 };
  const s = state(q);
  assert.ok(ok(cast(q, 'grow', s, { n: natural(100) }, ctx(), b)).state);
  const deep = refused(cast(q, 'grow', s, { n: natural(50_000) }, ctx(), b));
  assert.equal(deep.refusal, { class: 'evaluation', reason: 'a value nests deeper than 256' });
  const cmp = refused(cast(q, 'same', s, { n: natural(50_000) }, ctx(), b));
  assert.equal(cmp.refusal, { class: 'evaluation', reason: 'a value nests deeper than 256' });
  const nested = (n: number): RunResult => (n === 0 ? cast(q, 'same', s, { n: natural(50_000) }, ctx(), b) : nested(n - 1));
  assert.equal(nested(3000), cmp);
});

test('usage is reported on success, and counts only what ran', () => {
  const a = ok(run('count', { to: natural(10) }));
  const b = ok(run('count', { to: natural(1000) }));
  assert.ok(a.usage.ticks > 0 && b.usage.ticks > a.usage.ticks * 50);
  assert.ok(a.usage.bytes > 0);
});

test('a zero or nonsense budget refuses at once, never throws', () => {
  assert.equal(refused(run('count', { to: natural(10) }, { ticks: 0, heap: 0, bytes: 0 })).refusal, { class: 'budget', reason: 'ticks' });
  assert.equal(refused(run('count', { to: natural(10) }, { ticks: NaN, heap: -1, bytes: 1 } as Budget)).refusal.class, 'budget');
});

test('law and wants that cannot finish count as broken and open, deterministically', () => {
  const q = build(`
type S:
  n: Natural

law:
  spin: loops(self.n) -- "a clause that never ends"

want ever: loops(self.n) -- "a want that never ends"

def loops(n: Natural) -> Boolean:
  let i = 0
  while true:
    i = i + 1
  return true

def initial() -> S:
  return S { n: 0 }
`);
  const s = state(q);
  assert.is(q.checkLaw(undefined, s, ctx())?.name, 'spin');
  assert.equal(q.openWants(s, ctx()), ['ever']);
});

test.run();

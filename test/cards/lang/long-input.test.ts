/** Long and deep input ends in a value or a diagnostic, never a crashed stack. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../../src/cards/compile.js';
import { sealedLibrary } from '../../../src/cards/library/index.js';
import { natural, bool } from '../../../src/contract/typed.js';
import { Harness, ann } from '../kernel/harness.js';
import { budget, build, fails, plain } from './helpers.js';

const chain = (term: string, op: string, n: number): string => Array.from({ length: n }, () => term).join(` ${op} `);

test('a flat chain of 20,000 + terms checks, compiles and runs, costing what the nested form costs', () => {
  const p = build(`def f(x: Natural) -> Natural:\n  return ${chain('x', '+', 20_000)}\n`);
  const r = p.runEntry('f', [natural(3)], budget);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.refusal));
  assert.is(plain(r.ok ? r.result : natural(0)), 60_000);
  // ticks: one per node, as for a short chain (x + x + x: 5 nodes, a return, a call)
  const short = build(`def f(x: Natural) -> Natural:\n  return ${chain('x', '+', 3)}\n`).runEntry('f', [natural(3)], budget);
  const long3 = build(`def f(x: Natural) -> Natural:\n  return ${chain('x', '+', 40)}\n`).runEntry('f', [natural(3)], budget);
  assert.ok(short.ok && long3.ok);
  assert.is(long3.usage.ticks - short.usage.ticks, 2 * 37);
});

test('long chains of and, or, -, * and text + keep their meaning and short-circuit', () => {
  const and = build(`def f(x: Boolean, y: Boolean) -> Boolean:\n  return ${chain('x', 'and', 5000)} and y and 1 / 0 == 0\n`);
  const r = and.runEntry('f', [bool(true), bool(false)], budget);
  assert.ok(r.ok && plain(r.result) === false, JSON.stringify(r));
  const or = build(`def f(x: Boolean) -> Boolean:\n  return ${chain('x', 'or', 5000)} or 1 / 0 == 0\n`);
  const o = or.runEntry('f', [bool(true)], budget);
  assert.ok(o.ok && plain(o.result) === true);
  const minus = build(`def f(x: Natural) -> Natural:\n  return 100000 - ${chain('x', '-', 3000)}\n`);
  const m = minus.runEntry('f', [natural(1)], budget);
  assert.ok(m.ok && plain(m.result) === 97000);
  const below = minus.runEntry('f', [natural(100)], budget);
  assert.ok(!below.ok && below.refusal.class === 'evaluation' && /below zero/.test(below.refusal.reason ?? ''));
  const text = build(`def f(t: Text) -> Natural:\n  return length(${chain('t', '+', 3000)})\n`);
  const t = text.runEntry('f', [{ tag: 'label', value: 'ab' }], budget);
  assert.ok(t.ok && plain(t.result) === 6000);
  const times = build(`def f(x: Natural) -> Natural:\n  return ${chain('x', '*', 2000)} % 1000\n`);
  assert.ok(times.runEntry('f', [natural(1)], budget).ok);
});

test('long chains in law clauses, rules and spells check and run', () => {
  const src = `type S:\n  n: Natural\n\nlaw:\n  big: ${chain('self.n', '+', 3000)} >= 0 -- "ok"\n\ndef initial() -> S:\n  return S { n: 1 }\n\nspell up(self: S) -> S:\n  return self { n: ${chain('self.n', '+', 3000)} }\n`;
  const r = compile({ modules: [{ name: 'longlaw', source: src }] }, sealedLibrary());
  assert.ok(r.ok, JSON.stringify(!r.ok && r.diagnostics));
});

test('a type error deep in a long chain is a diagnostic with its place', () => {
  const d = fails(`def f(x: Natural) -> Natural:\n  return ${chain('x', '+', 3000)} + "a"\n`);
  assert.is(d[0]!.stage, 'type');
  assert.is(d[0]!.line, 2);
});

test('genuinely deep nesting is a parse diagnostic with a position, not a crash', () => {
  const deep = `def f(x: Natural) -> Natural:\n  return ${'('.repeat(5000)}x${')'.repeat(5000)}\n`;
  const d = fails(deep);
  assert.is(d[0]!.stage, 'parse');
  assert.is(d[0]!.line, 2);
  assert.ok(d[0]!.column > 1);
  assert.match(d[0]!.message, /nested more than/);
  const nots = fails(`def f(x: Boolean) -> Boolean:\n  return ${'not '.repeat(5000)}x\n`);
  assert.match(nots[0]!.message, /nested more than/);
  const holes = fails(`def f(x: Natural) -> Text:\n  return ${'"{'.repeat(2000)}x${'}"'.repeat(2000)}\n`);
  assert.is(holes[0]!.stage, 'parse');
  const lists = fails(`def f(x: Natural) -> Natural:\n  return ${'['.repeat(5000)}x${']'.repeat(5000)}\n`);
  assert.match(lists[0]!.message, /nested more than/);
});

test('a card whose spell is a long chain is created and cast as a turn (what card run does)', () => {
  const h = Harness.empty(ann);
  const source = `type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 1 }\n\nspell grow(self: S) -> S:\n  return self { n: ${chain('self.n', '+', 2000)} }\n`;
  assert.is(h.run({ kind: 'create', principal: ann, intent: 'c', object: 'c', source, entry: 'initial' }).kind, 'journal');
  assert.is(h.turn(ann, 'c', 'grow').kind, 'journal');
  assert.equal(h.state('c'), { n: 2000 });
});

test.run();

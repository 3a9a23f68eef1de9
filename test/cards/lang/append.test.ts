/** Appending to a list costs a slot, not a copy of the list; every list stays a value. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { natural } from '../../../src/contract/typed.js';
import { budget, build, cast, ok, plain, state } from './helpers.js';

const turn = { ticks: 1_000_000, heap: 1_000_000, bytes: 65_536 };

test('10,000 appends fit one turn (495 used to exhaust its heap), each costing the same', () => {
  const p = build('def grow(n: Natural) -> Natural:\n  let xs: List Natural = []\n  for i in 1..n:\n    xs = append(xs, i)\n  return length(xs) + xs[n - 1]\n');
  const run = (n: number) => {
    const r = p.runEntry('grow', [natural(n)], turn);
    assert.ok(r.ok, JSON.stringify(r));
    return r;
  };
  const big = run(10_000);
  assert.is(plain(big.ok ? big.result : natural(0)), 20_000);
  const small = run(100);
  assert.ok(
    big.usage.ticks / 10_000 <= (small.usage.ticks / 100) * 1.1,
    `ticks per append: ${small.usage.ticks / 100} at 100, ${big.usage.ticks / 10_000} at 10,000`,
  );
  assert.ok(big.usage.heap / 10_000 <= 32, `heap per append ${big.usage.heap / 10_000}`);
});

test('a list appended to twice, and the lists before, each keep their own items', () => {
  const src = `def f() -> List List Natural:
  let a: List Natural = [1]
  a = append(a, 2)
  let b = append(a, 3)
  let c = append(a, 4)
  let d = append(b, 5)
  let seen: List Natural = []
  for x in d:
    d = append(d, x * 10)
    seen = append(seen, x)
  return [a, b, c, d, seen, a + c, reverse(d), sort(append(c, 0))]
`;
  const r = build(src).runEntry('f', [], budget);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(plain(r.ok ? r.result : natural(0)), [
    [1, 2],
    [1, 2, 3],
    [1, 2, 4],
    [1, 2, 3, 5, 10, 20, 30, 50],
    [1, 2, 3, 5],
    [1, 2, 1, 2, 4],
    [50, 30, 20, 10, 5, 3, 2, 1],
    [0, 1, 2, 4],
  ]);
});

test('grown lists compare, show, index, and go into state like any list', () => {
  const src = `type S:
  xs: List Natural

def initial() -> S:
  return S { xs: [] }

spell add(self: S, n: Natural) -> S:
  let ys = append(self.xs, n)
  ys = append(ys, n + 1)
  if ys == self.xs + [n, n + 1] and contains(ys, n) and ys[length(ys) - 1] == n + 1:
    result "{ys}"
  return self { xs: ys }
`;
  const p = build(src);
  let s = state(p);
  s = ok(cast(p, 'add', s, { n: natural(1) })).state;
  const r = ok(cast(p, 'add', s, { n: natural(5) }));
  assert.equal(plain(r.state), { xs: [1, 2, 5, 6] });
  assert.equal(plain(r.result), '[1, 2, 5, 6]');
});

test.run();

/** `Map K V` keyed by naturals or texts, persistent, metered per operation by log n. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { label, natural, record } from '../../../src/contract/typed.js';
import { budget, build, cast, ctx, fails, ok, plain, refused, state } from './helpers.js';

const ledger = `type Ledger:
  rows: Map Text Natural
  seen: Map Natural Text

def initial() -> Ledger:
  return Ledger { rows: {}, seen: {} }

spell set(self: Ledger, key: Text 1..20, n: Natural) -> Ledger:
  return self { rows: put(self.rows, key, n) }

spell drop(self: Ledger, key: Text 1..20) -> Ledger:
  return self { rows: remove(self.rows, key) }

spell many(self: Ledger, n: Natural) -> Ledger:
  let m = self.seen
  for i in 1..n:
    m = put(m, i, "r{i}")
  return self { seen: m }

spell look(self: Ledger, key: Text 1..20) -> Ledger:
  result { has: has(self.rows, key), n: get(self.rows, key), size: size(self.rows), keys: keys(self.rows), values: values(self.rows), shown: "{self.rows}" }
  return self
`;

test('put, get, has, remove, keys, values, size; keys in code point order; typed data a sorted list of {key, value}', () => {
  const p = build(ledger);
  let s = state(p);
  for (const [k, n] of [
    ['pear', 3],
    ['apple', 1],
    ['Zed', 9],
    ['\u00e9clair', 4],
    ['apple', 2],
  ] as const)
    s = ok(cast(p, 'set', s, { key: label(k), n: natural(n) })).state;
  const look = ok(cast(p, 'look', s, { key: label('apple') }));
  assert.equal(plain(look.result), {
    has: true,
    n: 2,
    size: 4,
    keys: ['Zed', 'apple', 'pear', '\u00e9clair'],
    values: [9, 2, 3, 4],
    shown: '{ "Zed": 9, "apple": 2, "pear": 3, "\u00e9clair": 4 }',
  });
  // the state as typed data: a list of {key, value} records in key order
  const rows = s.tag === 'record' ? s.fields.find((f) => f.name === 'rows')!.value : undefined;
  assert.equal(rows, {
    tag: 'list',
    items: [
      ['Zed', 9],
      ['apple', 2],
      ['pear', 3],
      ['\u00e9clair', 4],
    ].map(([k, v]) =>
      record([
        ['key', label(k as string)],
        ['value', natural(v as number)],
      ]),
    ),
  });
  s = ok(cast(p, 'drop', s, { key: label('pear') })).state;
  assert.equal(plain(ok(cast(p, 'look', s, { key: label('apple') })).result), {
    has: true,
    n: 2,
    size: 3,
    keys: ['Zed', 'apple', '\u00e9clair'],
    values: [9, 2, 4],
    shown: '{ "Zed": 9, "apple": 2, "\u00e9clair": 4 }',
  });
  // get and remove of an absent key refuse absentItem
  assert.is(refused(cast(p, 'look', s, { key: label('nope') })).refusal.class, 'absentItem');
  const r = refused(cast(p, 'drop', s, { key: label('pear') }));
  assert.is(r.refusal.class, 'absentItem');
  assert.match(r.refusal.class === 'absentItem' ? r.refusal.reason : '', /"pear" is not a key of the map/);
});

test('natural keys order by size; a state comes back in as it went out; one typed form per map', () => {
  const p = build(ledger);
  const s = ok(cast(p, 'many', state(p), { n: natural(12) })).state;
  const seen = s.tag === 'record' ? s.fields.find((f) => f.name === 'seen')!.value : undefined;
  assert.ok(seen?.tag === 'list' && seen.items.length === 12);
  const firstKeys = seen!.tag === 'list' ? seen.items.slice(0, 3).map((it) => plain(it)) : [];
  assert.equal(firstKeys, [
    { key: 1, value: 'r1' },
    { key: 2, value: 'r2' },
    { key: 3, value: 'r3' },
  ]);
  assert.is(p.checkState(s), undefined);
  // unsorted typed data is read and written back sorted; a key twice is refused
  const unsorted = record([
    [
      'rows',
      {
        tag: 'list',
        items: [
          record([
            ['key', label('b')],
            ['value', natural(2)],
          ]),
          record([
            ['key', label('a')],
            ['value', natural(1)],
          ]),
        ],
      },
    ],
    ['seen', { tag: 'list', items: [] }],
  ]);
  assert.is(p.checkState(unsorted), undefined);
  const back = ok(cast(p, 'set', unsorted, { key: label('c'), n: natural(3) })).state;
  assert.equal(plain(back), {
    rows: [
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
      { key: 'c', value: 3 },
    ],
    seen: [],
  });
  const twice = record([
    [
      'rows',
      {
        tag: 'list',
        items: [
          record([
            ['key', label('a')],
            ['value', natural(2)],
          ]),
          record([
            ['key', label('a')],
            ['value', natural(1)],
          ]),
        ],
      },
    ],
    ['seen', { tag: 'list', items: [] }],
  ]);
  assert.match(p.checkState(twice) ?? '', /given twice/);
});

test('equality compares contents, whatever order the keys were put in', () => {
  const src = `def f() -> Boolean:
  let a: Map Text Natural = {}
  let b: Map Text Natural = {}
  a = put(put(a, "x", 1), "y", 2)
  b = put(put(b, "y", 2), "x", 1)
  return a == b and a != put(b, "x", 3)
`;
  const r = build(src).runEntry('f', [], budget);
  assert.ok(r.ok && plain(r.result) === true);
});

test('the checker: keys are naturals or texts, arguments fit the map, {} needs a map type', () => {
  const head = 'def f(m: Map Text Natural) -> Natural:\n';
  assert.match(fails(`${head}  return get(m, 3)\n`)[0]!.message, /keyed by Text/);
  assert.match(fails(`${head}  return size(put(m, "a", "b"))\n`)[0]!.message, /holds Natural/);
  assert.match(fails('def f(m: Map Boolean Natural) -> Natural:\n  return 0\n')[0]!.message, /keyed by naturals or texts/);
  assert.match(fails('def f() -> Natural:\n  let m: Map Text = {}\n  return 0\n')[0]!.message, /./);
  assert.match(fails(`${head}  return get(m)\n`)[0]!.message, /takes 2 arguments/);
});

test('a put costs ticks by the depth of the tree (log n), not by the size of the map; heap one entry', () => {
  const src = `def fill(n: Natural) -> Natural:
  let m: Map Natural Natural = {}
  for i in 1..n:
    m = put(m, i, i)
  return size(m)
`;
  const p = build(src);
  const cost = (n: number) => {
    const r = p.runEntry('fill', [natural(n)], { ticks: 10_000_000, heap: 10_000_000, bytes: 65_536 });
    assert.ok(r.ok, JSON.stringify(r));
    return r.usage;
  };
  const small = cost(100);
  const big = cost(10_000);
  const perSmall = small.ticks / 100;
  const perBig = big.ticks / 10_000;
  assert.ok(perBig < perSmall * 2, `ticks per put: ${perSmall} at 100, ${perBig} at 10,000`);
  assert.ok(big.heap / 10_000 < 64, `heap per put ${big.heap / 10_000}`);
  // 10,000 puts fit in one turn's budget
  const turn = p.runEntry('fill', [natural(10_000)], { ticks: 1_000_000, heap: 1_000_000, bytes: 65_536 });
  assert.ok(turn.ok, JSON.stringify(turn));
});

test('a map param has no form; a card casts with a typed argument', () => {
  const p = build(
    `type S:\n  m: Map Text Natural\n\ndef initial() -> S:\n  return S { m: {} }\n\nspell merge(self: S, more: Map Text Natural) -> S:\n  let m = self.m\n  for k in keys(more):\n    m = put(m, k, get(more, k))\n  return self { m: m }\n`,
  );
  assert.is(p.methods.find((x) => x.name === 'merge')!.form, undefined);
  const more = {
    tag: 'list' as const,
    items: [
      record([
        ['key', label('a')],
        ['value', natural(1)],
      ]),
    ],
  };
  const s = ok(cast(p, 'merge', state(p), { more }, ctx())).state;
  assert.equal(plain(s), { m: [{ key: 'a', value: 1 }] });
});

test("a module that defined a def named like a new built-in (board's keys) still compiles, and its def is called", () => {
  const r = build('def keys(n: Natural) -> Natural:\n  return n + 1\n\ndef f() -> Natural:\n  return keys(1)\n').runEntry('f', [], budget);
  assert.ok(r.ok && plain(r.result) === 2);
  assert.match(fails('def length(n: Natural) -> Natural:\n  return n\n')[0]!.message, /built-in function and cannot be defined again/);
});

test('a long text key costs its length at every level it is compared', () => {
  const src =
    'def fill(n: Natural, pad: Text) -> Natural:\n  let m: Map Text Natural = {}\n  for i in 1..n:\n    m = put(m, "{pad}{i}", i)\n  return size(m)\n';
  const p = build(src);
  const short = p.runEntry('fill', [natural(1000), label('')], { ticks: 10_000_000, heap: 10_000_000, bytes: 65_536 });
  const long = p.runEntry('fill', [natural(1000), label('x'.repeat(4000))], { ticks: 10_000_000, heap: 100_000_000, bytes: 65_536 });
  assert.ok(short.ok && long.ok);
  assert.ok(long.usage.ticks > short.usage.ticks * 50, `${short.usage.ticks} → ${long.usage.ticks}`);
});

test.run();

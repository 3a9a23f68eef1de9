/**
 * The compiled guard (src/contract/fast-guard.ts) answers as the codec's own `is`: on real
 * journal entries (genesis, arrivals, makes, fills, refusals), on typed data of every tag, and
 * on thousands of entries broken at a random place (a field removed, or replaced by a value of
 * another kind), seeded so every run tries the same ones.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as t from 'io-ts';
import { compiledGuard } from '../../src/contract/fast-guard.js';
import { EntryC, type Entry } from '../../src/cards/kernel/entry.js';
import { TypedDataC } from '../../src/contract/typed.js';
import { Harness, ann, bob } from '../cards/kernel/harness.js';
import { rng } from '../cards/kernel/random.js';

function journal(): Entry[] {
  const h = Harness.town();
  h.arrive(ann);
  h.arrive(bob);
  h.cast(ann, 'lamp', 'make note');
  h.act(ann, 'lamp', 'fill', { fields: { measures: 3 } });
  h.turn(bob, 'lamp', 'fill', { fields: { measures: 99 } });
  h.turn(bob, 'lamp', 'dance');
  h.cast(bob, 'lamp', 'light');
  // As a store hands entries back: through JSON.
  return JSON.parse(JSON.stringify(h.journal)) as Entry[];
}

test('real entries fit both alike', () => {
  const isEntry = compiledGuard(EntryC);
  const entries = journal();
  assert.ok(entries.length >= 8);
  for (const e of entries) {
    assert.ok(EntryC.is(e), `the codec takes entry ${e.height}`);
    assert.ok(isEntry(e), `the guard takes entry ${e.height}`);
  }
});

test('typed data of every tag, and what is not typed data', () => {
  const is = compiledGuard(TypedDataC);
  const values: unknown[] = [
    { tag: 'natural', value: 3 },
    { tag: 'natural', value: '123456789012345678901234567890' },
    { tag: 'natural', value: -1 },
    { tag: 'natural', value: 1.5 },
    { tag: 'natural', value: '01' },
    { tag: 'label', value: 'x' },
    { tag: 'label', value: 3 },
    { tag: 'boolean', value: false },
    { tag: 'record', fields: [{ name: 'a', value: { tag: 'list', items: [{ tag: 'variant', label: 'v' }] } }] },
    { tag: 'record', fields: [{ name: 'a' }] },
    { tag: 'variant', label: 'v', payload: { tag: 'label', value: 'p' } },
    { tag: 'variant', label: 'v', payload: { tag: 'nope' } },
    { tag: 'variant', label: 'v', payload: undefined },
    { tag: 'list', items: [null] },
    { tag: 'toString', value: 'x' },
    { tag: '__proto__', value: 'x' },
    { value: 'x' },
    null,
    [],
    'natural',
    7,
  ];
  for (const v of values) assert.is(is(v), TypedDataC.is(v), JSON.stringify(v));
});

test('other codecs: unions without a shared literal, literals, partials, kept codecs', () => {
  const odd = new t.Type<string>(
    'odd',
    (u): u is string => typeof u === 'string' && u.length % 2 === 1,
    (u, c) => (typeof u === 'string' ? t.success(u) : t.failure(u, c)),
    t.identity,
  );
  const codec = t.union([t.type({ a: t.literal(1), b: odd }), t.partial({ c: t.boolean, d: t.null }), t.array(t.union([t.literal('x'), t.number]))]);
  const is = compiledGuard(codec);
  const values: unknown[] = [
    { a: 1, b: 'abc' },
    { a: 1, b: 'ab' },
    { c: true },
    { c: 'no' },
    { d: null },
    { d: 0 },
    ['x', 1],
    ['y'],
    [],
    {},
    null,
    'x',
    { a: undefined, c: 1 },
  ];
  for (const v of values) assert.is(is(v), codec.is(v), JSON.stringify(v));
});

/** Every place in a JSON value: the containers and keys leading to it. */
function places(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => places(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) places(x, [...at, k], out);
  return out;
}

test('entries broken at random places fit neither, or both', () => {
  const isEntry = compiledGuard(EntryC);
  const entries = journal();
  const r = rng(20);
  const others: unknown[] = [
    null,
    0,
    -1,
    1.5,
    '',
    'x',
    true,
    [],
    {},
    [1],
    { tag: 'label', value: 'x' },
    { tag: 'natural', value: -2 },
    'everyone',
    'owner',
    'done',
  ];
  let agreed = 0;
  let refused = 0;
  for (let n = 0; n < 3000; n++) {
    const e = structuredClone(r.pick(entries)) as unknown as Record<string, unknown>;
    const all = places(e).filter((p) => p.length > 0);
    const path = r.pick(all);
    let parent: any = e;
    for (const k of path.slice(0, -1)) parent = parent[k];
    const last = path[path.length - 1]!;
    if (r.chance(0.25) && !Array.isArray(parent)) delete parent[last];
    else parent[last] = r.pick(others);
    const expected = EntryC.is(e);
    assert.is(isEntry(e), expected, `${path.join('.')}: ${JSON.stringify(parent[last])}`);
    agreed++;
    if (!expected) refused++;
  }
  assert.is(agreed, 3000);
  assert.ok(refused > 1000, `most breaks are refused (${refused})`);
});

test.run();

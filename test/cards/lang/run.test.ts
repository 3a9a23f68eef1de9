/** Running cards: values, effects and refusals, all through the Program contract. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bool, label, natural, record, variant, type TypedData } from '../../../src/contract/typed.js';
import { ann, bob, budget, build, cast, ctx, get, ok, plain, refused, state } from './helpers.js';

const entry = (src: string, name: string, args: TypedData[] = []) => build(src).runEntry(name, args, budget);
const value = (src: string, name: string, args: TypedData[] = []) => {
  const r = entry(src, name, args);
  if (!r.ok) throw new Error(JSON.stringify(r.refusal));
  return plain(r.result);
};

test('naturals stay exact above 2^53, both ways across the boundary', () => {
  const src = 'def f(a: Natural, b: Natural) -> Natural:\n  return a * b + 1\n\ndef g(a: Natural) -> Natural:\n  return a - 1\n';
  assert.is(value(src, 'f', [natural(9007199254740991), natural(9007199254740991)]), (2n ** 53n - 1n) ** 2n + 1n);
  const r = entry(src, 'f', [natural(2 ** 52), natural(2)]);
  assert.ok(r.ok && r.result.tag === 'natural' && r.result.value === '9007199254740993');
  // Back below 2^53 the natural is a JSON number again.
  const g = entry(src, 'g', [{ tag: 'natural', value: '9007199254740992' }]);
  assert.ok(g.ok && g.result.tag === 'natural' && g.result.value === 9007199254740991);
  assert.is(value('def f() -> Natural:\n  return 123456789012345678901234567890 / 1000000000000000 % 1000\n', 'f'), 345);
  assert.is(value('def f() -> Boolean:\n  return 9007199254740993 > 9007199254740992\n', 'f'), true);
  assert.is(value('def f() -> Text:\n  return "{2 * 9007199254740993}"\n', 'f'), '18014398509481986');
  // Division floors exactly where floating point would round up.
  assert.is(value('def f() -> Natural:\n  return 9007199254740991 / 3\n', 'f'), 3002399751580330);
  assert.is(value('def f() -> Natural:\n  return 9007199254740990 / 9007199254740991\n', 'f'), 0);
});

test('going below zero, dividing by zero and indexing past the end refuse evaluation', () => {
  const r = refused(entry('def f(a: Natural) -> Natural:\n  return a - 5\n', 'f', [natural(3)]));
  assert.equal(r.refusal, { class: 'evaluation', reason: 'a natural cannot go below zero: 3 - 5' });
  assert.equal(refused(entry('def f(a: Natural) -> Natural:\n  return 7 / a\n', 'f', [natural(0)])).refusal, {
    class: 'evaluation',
    reason: 'division by zero: 7 / 0',
  });
  assert.equal(refused(entry('def f(a: Natural) -> Natural:\n  return 7 % a\n', 'f', [natural(0)])).refusal.class, 'evaluation');
  assert.equal(refused(entry('def f() -> Natural:\n  return [1, 2, 3][3]\n', 'f')).refusal, {
    class: 'evaluation',
    reason: 'index 3 is past the end of a list of 3',
  });
  assert.equal(refused(entry('def f() -> Natural:\n  let xs: List Natural = []\n  return first(xs)\n', 'f')).refusal, {
    class: 'evaluation',
    reason: 'first of an empty list',
  });
  assert.is(value('use core\ndef f() -> Natural:\n  return core.minus(3, 5)\n', 'f'), 0);
});

test('text: holes, joins, lengths in characters', () => {
  assert.is(
    value('def f(n: Natural, ok: Boolean) -> Text:\n  return "n={n} ok={ok} list={[1, 2]} rec={ {a: 1, b: "x"} }"\n', 'f', [natural(4), bool(true)]),
    'n=4 ok=true list=[1, 2] rec={ a: 1, b: "x" }',
  );
  assert.is(value('def f() -> Natural:\n  return length("héllo ☃")\n', 'f'), 7);
  assert.equal(value('def f() -> List Text:\n  return words("  a  b\\nc ")\n', 'f'), ['a', 'b', 'c']);
  assert.is(value('def f() -> Text:\n  return join(["a", "b"], ", ") + upper("x") + slice("hello", 1, 3)\n', 'f'), 'a, bXel');
  assert.is(value('def f() -> Boolean:\n  return startsWith("guest:x", "guest:") and contains("abc", "b") and not endsWith("abc", "b")\n', 'f'), true);
  assert.is(value('def f() -> Natural:\n  return natural(" 42 ") + 1\n', 'f'), 43);
  assert.equal(refused(entry('def f() -> Natural:\n  return natural("4x")\n', 'f')).refusal, { class: 'evaluation', reason: '"4x" is not a natural' });
});

test('lists: literal, index, length, append, contains, remove, without, sort, reverse, +', () => {
  const src = `
def f() -> List Natural:
  let xs = [3, 1, 2]
  xs = append(xs, 5)
  xs = xs + [4]
  if contains(xs, 5) and not contains(xs, 9):
    xs = remove(xs, 5)
  return sort(reverse(without(xs + [1], 1)) + [xs[0]])
`;
  assert.equal(value(src, 'f'), [2, 3, 3, 4]);
  const r = refused(entry('def f() -> List Natural:\n  return remove([1, 2], 7)\n', 'f'));
  assert.equal(r.refusal, { class: 'absentItem', reason: '7 is not in the list' });
});

test('records: build, read, update, assign a nested field; names are data', () => {
  const src = `
type Inner:
  n: Natural

type Outer:
  inner: Inner
  __proto__: Natural
  constructor: Text

def f() -> Outer:
  let o = Outer { inner: Inner { n: 1 }, __proto__: 2, constructor: "c" }
  o.inner.n = o.inner.n + 10
  o = o { __proto__: o.__proto__ + 1 }
  return o
`;
  const r = entry(src, 'f');
  assert.ok(r.ok);
  if (r.ok) {
    assert.equal(
      r.result,
      record([
        ['inner', record({ n: natural(11) })],
        ['__proto__', natural(3)],
        ['constructor', label('c')],
      ]),
    );
  }
  // Typed data naming __proto__ comes in as data too.
  const p = build(src + '\ndef g(o: Outer) -> Natural:\n  return o.__proto__ + o.inner.n\n');
  const g = p.runEntry(
    'g',
    [
      record([
        ['inner', record({ n: natural(1) })],
        ['__proto__', natural(41)],
        ['constructor', label('')],
      ]),
    ],
    budget,
  );
  assert.ok(g.ok && plain(g.result) === 42);
  const bad = p.runEntry(
    'g',
    [
      record([
        ['inner', record({ n: natural(1) })],
        ['__proto__', natural(41)],
        ['constructor', label('')],
        ['toString', natural(1)],
      ]),
    ],
    budget,
  );
  assert.ok(!bad.ok && bad.refusal.class === 'typeMismatch' && bad.refusal.reason.includes('no field "toString"'));
});

test('variants: build, match with bound fields, the rest, typed data both ways', () => {
  const src = `
type Shape:
  dot
  box { w: Natural, h: Natural }
  ring { r: Natural }

def area(s: Shape) -> Natural:
  match s:
    case dot:
      return 0
    case box { w, h }:
      return w * h
    case _:
      return 3

def shape(n: Natural) -> Shape:
  if n == 0:
    return dot
  return Shape.box { w: n, h: 2 }
`;
  assert.is(value(src, 'area', [variant('box', record({ w: natural(3), h: natural(4) }))]), 12);
  assert.is(value(src, 'area', [variant('dot')]), 0);
  assert.is(value(src, 'area', [variant('ring', record({ r: natural(1) }))]), 3);
  assert.equal(value(src, 'shape', [natural(5)]), { box: { w: 5, h: 2 } });
  assert.equal(value(src, 'shape', [natural(0)]), 'dot');
  const bad = build(src).runEntry('area', [variant('cube')], budget);
  assert.ok(!bad.ok && bad.refusal.class === 'typeMismatch' && bad.refusal.reason.includes('not a tag of Shape'));
});

test('loops: for over a list, for over a range (inclusive), while', () => {
  const src = `
def f(n: Natural) -> Natural:
  let total = 0
  for i in 1..n:
    total = total + i
  for x in [100, 200]:
    total = total + x
  let k = 0
  while k < 3:
    k = k + 1
  return total + k
`;
  assert.is(value(src, 'f', [natural(4)]), 10 + 300 + 3);
  assert.is(value('def f() -> Natural:\n  let t = 0\n  for i in 5..1:\n    t = t + 1\n  return t\n', 'f'), 0);
});

const lampSrc = `
use core

type Lamp:
  lit: Boolean
  fuel: Natural 0..10

law:
  full: self.fuel <= 10 -- "a lamp holds ten measures of oil"
  kept: self.lit or not before.lit or caller == owner -- "only its owner puts it out"

want oil: self.fuel > 0 -- "a lamp wants oil"

rule dark: before.lit and not self.lit -> say "the lamp goes dark"
rule bright: self.lit -> say "it shines with {self.fuel} left"

def initial() -> Lamp:
  return Lamp { lit: false, fuel: 3 }

spell light(self: Lamp) -> Lamp:
  if self.fuel == 0:
    refuse "dry" "the lamp has no oil"
  say "{caller} lights the lamp"
  return self { lit: true, fuel: self.fuel - 1 }

spell douse(self: Lamp) -> Lamp:
  return self { lit: false }

spell fill(self: Lamp, measures: Natural 0..9) -> Lamp:
  return self { fuel: self.fuel + measures }

spell give(self: Lamp, to: Object 1..128, note: Text 0..80) -> Lamp:
  send to.receive { text: "a lamp from {caller}: {note}", post: "" }
  make note { text: note }
  result { given: to }
  return self

spell twice(self: Lamp) -> Lamp:
  say "twice"
  return light(light(self))

view paint(self: Lamp, viewer: Principal) -> Text:
  if self.lit:
    return "(*) {viewer} sees a lit lamp"
  return "( ) a cold lamp"
`;

test('a card: initial, spells, says, sends, makes, result, views', () => {
  const p = build(lampSrc);
  const s0 = state(p);
  assert.equal(plain(s0), { lit: false, fuel: 3 });
  const lit = ok(cast(p, 'light', s0));
  assert.equal(plain(lit.state), { lit: true, fuel: 2 });
  assert.equal(lit.says, ['ann.town.test lights the lamp'], "a principal reads as the guest's handle in text");
  assert.equal(lit.result, record([]));
  const given = ok(cast(p, 'give', lit.state, { to: label('box-7'), note: label('enjoy') }));
  assert.equal(given.sends, [{ to: 'box-7', method: 'receive', argument: record({ text: label('a lamp from ann.town.test: enjoy'), post: label('') }) }]);
  assert.equal(given.makes, [{ kind: 'note', seed: record({ text: label('enjoy') }) }]);
  assert.equal(given.result, record({ given: label('box-7') }));
  const v = p.view('paint', lit.state, bob, budget);
  assert.ok(v.ok && plain(v.result) === '(*) bob.town.test sees a lit lamp');
  assert.equal(ok(cast(p, 'twice', s0)).says, ['twice', 'ann.town.test lights the lamp', 'ann.town.test lights the lamp']);
});

test('a refused run hands back no effects, only usage', () => {
  const p = build(lampSrc);
  let s = state(p);
  for (let i = 0; i < 3; i++) s = ok(cast(p, 'light', ok(cast(p, 'douse', s)).state)).state;
  const r = refused(cast(p, 'twice', ok(cast(p, 'fill', ok(cast(p, 'douse', s)).state, { measures: natural(1) })).state));
  assert.equal(r.refusal, { class: 'cardRefused', clause: 'dry', reading: 'the lamp has no oil' });
  assert.ok(r.usage.ticks > 0);
  assert.not.ok('says' in r);
});

test('arguments are checked against the parameter types and bounds: typeMismatch with the form', () => {
  const p = build(lampSrc);
  const s = state(p);
  const r = refused(cast(p, 'fill', s, { measures: natural(12) }));
  assert.equal(r.refusal, { class: 'typeMismatch', reason: 'measures: 12 is above 9; wanted Natural 0..9', expected: 'fill measures=<natural 0..9>' });
  assert.equal(refused(cast(p, 'fill', s, {})).refusal.class, 'typeMismatch');
  assert.ok(refused(cast(p, 'fill', s, { measures: label('3') })).refusal.class === 'typeMismatch');
  assert.ok(refused(cast(p, 'give', s, { to: label('not an id!') })).refusal.class === 'typeMismatch');
  // An optional text (lower bound 0) may be left out.
  assert.ok(ok(cast(p, 'give', s, { to: label('box') })).sends.length === 1);
  assert.equal(refused(cast(p, 'nope', s)).refusal.class, 'noMethod');
  assert.equal(refused(p.view('nope', s, ann, budget)).refusal.class, 'noMethod');
});

test('the state is checked on the way out against its bounds (cardRefused bounds)', () => {
  const p = build(lampSrc);
  const r = refused(cast(p, 'fill', state(p), { measures: natural(9) }));
  assert.equal(r.refusal, { class: 'cardRefused', clause: 'bounds', reading: 'fuel: 12 is above 10; wanted Natural 0..10' });
  assert.is(p.checkState(record({ lit: bool(true), fuel: natural(11) })), 'fuel: 11 is above 10; wanted Natural 0..10');
  assert.is(p.checkState(record({ lit: bool(true), fuel: natural(1) })), undefined);
  assert.ok(p.checkState(record({ lit: bool(true) }))?.includes('fuel: missing'));
  const bad = refused(cast(p, 'light', record({ lit: label('yes'), fuel: natural(1) })));
  assert.ok(bad.refusal.class === 'evaluation' && bad.refusal.reason.includes("the card's state does not fit"));
});

test('law: first broken clause; before is the state itself on creation', () => {
  const p = build(lampSrc);
  const s0 = state(p);
  const lit = ok(cast(p, 'light', s0)).state;
  const out = ok(cast(p, 'douse', lit, {}, ctx({ caller: bob }))).state;
  assert.is(p.checkLaw(lit, out, ctx({ caller: bob }))?.name, 'kept');
  assert.is(p.checkLaw(lit, out, ctx({ caller: ann })), undefined);
  assert.is(p.checkLaw(undefined, out, ctx({ caller: bob })), undefined);
  assert.equal(
    p.law.map((l) => [l.name, l.reading]),
    [
      ['full', 'a lamp holds ten measures of oil'],
      ['kept', 'only its owner puts it out'],
    ],
  );
  assert.is(p.law[1]!.text, 'kept: self.lit or not before.lit or caller == owner -- "only its owner puts it out"');
});

test('wants are open while their condition fails', () => {
  const p = build(lampSrc);
  assert.equal(p.openWants(state(p), ctx()), []);
  assert.equal(p.openWants(record({ lit: bool(false), fuel: natural(0) }), ctx()), ['oil']);
  assert.equal(p.wants, [{ name: 'oil', reading: 'a lamp wants oil' }]);
});

test('rules fire after an act when their condition holds, and say so', () => {
  const p = build(lampSrc);
  const s0 = state(p);
  const lit = ok(cast(p, 'light', s0)).state;
  const dark = ok(cast(p, 'douse', lit)).state;
  const r = p.runRules(lit, dark, ctx(), budget);
  assert.ok(r.ok);
  if (r.ok) {
    assert.equal(r.rules, [
      { name: 'dark', fired: true, says: ['the lamp goes dark'] },
      { name: 'bright', fired: false, says: [] },
    ]);
    assert.equal(r.says, ['the lamp goes dark']);
    assert.ok(r.usage.ticks > 0);
  }
  const r2 = p.runRules(s0, lit, ctx(), budget);
  assert.ok(r2.ok && r2.says[0] === 'it shines with 2 left');
  assert.equal(
    p.rules.map((x) => x.name),
    ['dark', 'bright'],
  );
  const broke = p.runRules(s0, lit, ctx(), { ticks: 1, heap: 100, bytes: 100 });
  assert.ok(!broke.ok && broke.refusal.class === 'budget');
});

test('receive gets {text, post}; refusal classes for lists', () => {
  const p = build(`
type Box:
  heard: List Text

def initial() -> Box:
  return Box { heard: [] }

spell receive(self: Box, text: Text, post: Text) -> Box:
  if text == "missing":
    refuse absentItem "nothing called missing"
  if text == "twice":
    refuse duplicateKey "named twice"
  if contains(self.heard, text):
    refuse keyTaken "{text} is taken"
  return self { heard: append(self.heard, text + "@" + post) }
`);
  const s = ok(cast(p, 'receive', state(p), { text: label('hi'), post: label('p1') })).state;
  assert.equal(get(s, 'heard'), ['hi@p1']);
  assert.equal(refused(cast(p, 'receive', s, { text: label('missing'), post: label('') })).refusal, { class: 'absentItem', reason: 'nothing called missing' });
  assert.equal(refused(cast(p, 'receive', s, { text: label('twice'), post: label('') })).refusal, { class: 'duplicateKey', reason: 'named twice' });
  assert.equal(refused(cast(p, 'receive', s, { text: label('hi@p1'), post: label('') })).refusal, { class: 'keyTaken', reason: 'hi@p1 is taken' });
  assert.equal(
    p.methods.map((m) => m.kind),
    ['receive'],
  );
});

test('context: caller, owner, this and now', () => {
  const p = build(`
type S:
  log: List Text

def initial() -> S:
  return S { log: [] }

spell note(self: S) -> S:
  return self { log: [caller, owner, this, text(now)] }
`);
  const s = ok(cast(p, 'note', state(p), {}, ctx({ caller: bob, owner: ann, self: 'me-1', now: 77 }))).state;
  assert.equal(get(s, 'log'), [bob, ann, 'me-1', '77']);
});

test('runEntry: defs on typed arguments; wrong count or type is typeMismatch; entries lists defs', () => {
  const p = build('def add(a: Natural, b: Natural) -> Natural:\n  return a + b\n\ndef hello() -> Text:\n  return "hi"\n');
  assert.equal(p.entries, ['add', 'hello']);
  const r = p.runEntry('add', [natural(2), natural(3)], budget);
  assert.ok(r.ok && plain(r.result) === 5);
  const c = refused(p.runEntry('add', [natural(2)], budget));
  assert.ok(c.refusal.class === 'typeMismatch' && c.refusal.expected === 'def add(a: Natural, b: Natural) -> Natural');
  assert.equal(refused(p.runEntry('add', [natural(2), label('x')], budget)).refusal.class, 'typeMismatch');
  assert.equal(refused(p.runEntry('nope', [], budget)).refusal.class, 'noMethod');
  assert.ok(!p.card);
  assert.equal(refused(p.initial(budget, ctx())).refusal.class, 'evaluation');
});

test('helpers from the library are callable bare or qualified', () => {
  assert.is(value('use core\ndef f() -> Text:\n  return listing(["a", "b", "c"]) + "; " + core.plural(2, "lamp")\n', 'f'), 'a, b and c; 2 lamps');
});

test.run();

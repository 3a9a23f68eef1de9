/** Stages `resolve`, `type`, `law` and `migration`: names, types and shapes, each refused with place and form. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../../src/cards/compile.js';
import { sealedLibrary } from '../../../src/cards/library/index.js';
import { build, diag, fails } from './helpers.js';

const head = 'type Lamp:\n  lit: Boolean\n  fuel: Natural\n\ndef initial() -> Lamp:\n  return Lamp { lit: false, fuel: 3 }\n\n';
// Line numbers below count from line 8, where the body under test starts.

test('resolve: an unknown name, with a suggestion', () => {
  const x = diag(
    fails(head + 'spell fill(self: Lamp, measures: Natural 0..9) -> Lamp:\n  return self { fuel: self.fuel + measure }\n'),
    'resolve',
    9,
    35,
    'unknown name measure',
  );
  assert.is(x.hint, 'did you mean measures?');
});

test('resolve: an unknown module in use lists the ones there are', () => {
  const x = diag(fails('use cores\n' + head), 'resolve', 1, 1, 'no module named cores');
  assert.ok(x.hint?.includes('core'));
});

test('resolve: a module cannot use itself, and circles are named', () => {
  diag(fails('use bad\n' + head, { name: 'bad' }), 'resolve', 1, 1, 'cannot use itself');
  const r = compile(
    {
      modules: [
        { name: 'a', source: 'use b\ndef f() -> Natural:\n  return 1\n' },
        { name: 'b', source: 'use a\ndef g() -> Natural:\n  return 2\n' },
      ],
    },
    sealedLibrary(),
  );
  assert.ok(!r.ok);
  if (!r.ok) {
    assert.is(r.diagnostics[0]!.stage, 'resolve');
    assert.ok(r.diagnostics[0]!.message.includes('a → b → a'), r.diagnostics[0]!.message);
  }
});

test('resolve: duplicate definitions name the first', () => {
  diag(fails(head + 'def f() -> Natural:\n  return 1\n\ndef f() -> Natural:\n  return 2\n'), 'resolve', 11, 5, 'f is defined twice (first at line 8)');
  diag(fails(head + 'type Lamp:\n  x: Natural\n'), 'resolve', 8, 6, 'the type Lamp is declared twice (first at line 1)');
  diag(fails('type T:\n  a: Natural\n  a: Text\n'), 'resolve', 3, 3, 'has the field a twice');
  diag(fails('type M: calm | calm\n'), 'resolve', 1, 16, 'tag calm twice');
  diag(fails(head + 'def g(a: Natural, a: Natural) -> Natural:\n  return a\n'), 'resolve', 8, 19, 'parameter a is named twice');
  diag(fails(head + 'def f() -> Natural:\n  let a = 1\n  let a = 2\n  return a\n'), 'resolve', 10, 3, 'already declared in this block');
});

test('resolve: built-in names cannot be defined again, except as spells', () => {
  diag(fails('def length(x: Natural) -> Natural:\n  return x\n'), 'resolve', 1, 5, 'built-in function');
  diag(fails('type Text:\n  a: Natural\n'), 'resolve', 1, 6, 'built-in type');
  build(head + 'spell remove(self: Lamp) -> Lamp:\n  let xs = remove([1, 2], 1)\n  return self { fuel: length(xs) }\n');
});

test('resolve: context names are known only where a turn is', () => {
  const x = diag(fails('def f() -> Text:\n  return caller\n'), 'resolve', 2, 10, 'caller is known in spells, law, wants and rules, not in a def');
  assert.ok(x.hint?.includes('parameter'));
  diag(fails(head + 'view paint(self: Lamp, viewer: Principal) -> Text:\n  return owner\n'), 'resolve', 9, 10, 'not in a view');
});

test('resolve: an unknown type, with a suggestion', () => {
  const x = diag(fails('def f(n: Natura) -> Natural:\n  return 1\n'), 'resolve', 1, 10, 'unknown type Natura');
  assert.is(x.hint, 'did you mean Natural?');
});

test('resolve: names from a used module are found bare or qualified; ambiguity is named', () => {
  build('use core\ndef f(n: Natural) -> Natural:\n  return clamp(n, 1, 5) + core.minus(n, 1)\n');
  diag(fails('use core\ndef f() -> Natural:\n  return core.nothing(1)\n'), 'resolve', 3, 15, 'the module core has no def nothing');
  const r = compile(
    {
      modules: [
        { name: 'main', source: 'use a\nuse b\ndef f() -> Natural:\n  return g()\n' },
        { name: 'a', source: 'def g() -> Natural:\n  return 1\n' },
        { name: 'b', source: 'def g() -> Natural:\n  return 2\n' },
      ],
    },
    sealedLibrary(),
  );
  assert.ok(!r.ok && r.diagnostics[0]!.message.includes('g is a def of a and b; say which'));
  const q = compile(
    {
      modules: [
        { name: 'main', source: 'use a\nuse b\ndef f() -> Natural:\n  return a.g() + b.g()\n' },
        { name: 'a', source: 'def g() -> Natural:\n  return 1\n' },
        { name: 'b', source: 'def g() -> Natural:\n  return 2\n' },
      ],
    },
    sealedLibrary(),
  );
  assert.ok(q.ok);
  if (q.ok) {
    const out = q.program.runEntry('f', [], { ticks: 100, heap: 100, bytes: 100 });
    assert.ok(out.ok && out.result.tag === 'natural' && out.result.value === 3);
  }
});

test('type: a mismatch shows both types', () => {
  const x = diag(
    fails(head + 'spell fill(self: Lamp, n: Natural 0..9) -> Lamp:\n  return self { fuel: "three" }\n'),
    'type',
    9,
    23,
    'the field fuel wants Natural, but this is Text',
  );
  assert.ok(x.hint?.includes('natural'));
  diag(fails('def f() -> Natural:\n  return true\n'), 'type', 2, 10, 'f returns wants Natural, but this is Boolean');
  diag(fails('def f(a: Natural, b: Text) -> Natural:\n  return a + b\n'), 'type', 2, 10, '+ joins two texts, not Natural and Text');
  diag(fails('def f(a: Natural, b: Text) -> Boolean:\n  return a == b\n'), 'type', 2, 10, 'Natural and Text are never equal');
});

test('type: wrong argument counts show the signature', () => {
  const x = diag(
    fails('def g(a: Natural) -> Natural:\n  return a\n\ndef f() -> Natural:\n  return g(1, 2)\n'),
    'type',
    5,
    10,
    'g takes 1 argument, but is given 2',
  );
  assert.is(x.hint, 'def g(a: Natural) -> Natural');
  diag(fails('def f() -> Natural:\n  return length()\n'), 'type', 2, 10, 'length takes 1 argument, but is given 0');
});

test('type: a path that ends without return is named', () => {
  const x = diag(
    fails(head + 'spell light(self: Lamp) -> Lamp:\n  if self.lit:\n    return self\n'),
    'type',
    8,
    7,
    'can reach its end without returning the new state',
  );
  assert.is(x.hint, 'end it with: return self');
  build('def f(a: Natural) -> Natural:\n  if a > 1:\n    return 1\n  elif a == 1:\n    refuse "one" "not one"\n  else:\n    return 0\n');
});

test('type: a spell takes the state first and returns it', () => {
  const x = diag(
    fails(head + 'spell light(n: Natural) -> Lamp:\n  return initial()\n'),
    'type',
    8,
    7,
    "the first parameter of spell light is Natural, but the card's state is Lamp",
  );
  // the parameter is kept: the author most likely left out self
  assert.is(x.hint, 'spell light(self: Lamp, n: Natural) -> Lamp:');
  diag(fails(head + 'spell light(self: Lamp) -> Natural:\n  return 1\n'), 'type', 8, 7, "returns Natural, but a spell returns the card's new state, Lamp");
});

test('type: a card without initial is refused with the form', () => {
  const x = diag(fails('type Lamp:\n  lit: Boolean\n\nspell light(self: Lamp) -> Lamp:\n  return self\n'), 'type', 4, 7, 'has no def initial()');
  assert.ok(x.hint?.startsWith('def initial() -> State:'));
  diag(fails('def f() -> Natural:\n  return 1\n', { entry: 'start' }), 'type', 1, 5, 'has no def start()');
  diag(
    fails('def initial() -> Natural:\n  return 1\n\nview paint(self: Natural, viewer: Principal) -> Text:\n  return ""\n'),
    'type',
    1,
    5,
    'state of a card is a record or a variant',
  );
});

test('type: views and receive have fixed shapes', () => {
  diag(fails(head + 'view paint(self: Lamp) -> Text:\n  return ""\n'), 'type', 8, 6, "view paint takes the card's state and who is looking");
  const x = diag(fails(head + 'spell receive(self: Lamp, words: Text) -> Lamp:\n  return self\n'), 'type', 8, 7, 'receive hears what is said');
  assert.is(x.hint, 'spell receive(self: Lamp, text: Text, post: Text) -> Lamp:');
  diag(fails(head + 'spell paint(self: Lamp) -> Lamp:\n  return self\n'), 'type', 8, 7, 'paint is the name of a view');
});

test('type: effects only in spells', () => {
  diag(fails('def f() -> Natural:\n  say "hi"\n  return 1\n'), 'type', 2, 3, 'say is an effect');
  diag(
    fails(head + 'view paint(self: Lamp, viewer: Principal) -> Text:\n  send viewer.receive { text: "x" }\n  return ""\n'),
    'type',
    9,
    3,
    'send is an effect',
  );
});

test('type: records, tags and lists are checked', () => {
  const x = diag(fails(head + 'def f() -> Lamp:\n  return Lamp { lit: true }\n'), 'type', 9, 10, 'Lamp is missing fuel');
  assert.is(x.hint, 'Lamp { lit: …, fuel: … }');
  const y = diag(fails(head + 'def f(l: Lamp) -> Natural:\n  return l.fule\n'), 'type', 9, 12, 'Lamp has no field fule');
  assert.is(y.hint, 'did you mean fuel?');
  diag(fails('type M: calm | cross\n\ndef f(m: M) -> Natural:\n  match m:\n    case calmm:\n      return 1\n  return 0\n'), 'type', 5, 5, 'M has no tag calmm');
  diag(fails('def f() -> Natural:\n  let xs = []\n  return length(xs)\n'), 'type', 2, 12, 'empty list needs to be told');
  diag(fails('def f() -> Natural:\n  let xs = [1, "a"]\n  return 0\n'), 'type', 2, 16, 'this list wants Natural, but this is Text');
  diag(fails('def f(n: Natural) -> Natural:\n  for x in n:\n    return x\n  return 0\n'), 'type', 2, 12, 'goes over a list, not Natural');
  diag(fails('type M:\n  on { level: Natural }\n  off\n\ndef f() -> M:\n  return on\n'), 'type', 6, 10, 'carries fields');
});

test('type: bounds that hold nothing, and bounds on the wrong type', () => {
  diag(fails('def f(n: Natural 9..1) -> Natural:\n  return n\n'), 'type', 1, 10, 'hold nothing');
  diag(fails('def f(n: Boolean 0..1) -> Boolean:\n  return n\n'), 'type', 1, 10, 'has no bounds');
});

test('law: clauses are checked as law (stage law)', () => {
  diag(fails(head + 'law:\n  full: self.fuel -- "x"\n'), 'law', 9, 9, 'the condition of full is Natural, not Boolean');
  diag(fails(head + 'law:\n  full: self.fule <= 10 -- "x"\n'), 'law', 9, 14, 'Lamp has no field fule');
  diag(fails(head + 'law:\n  full: self.fuel <= 10 -- "x"\n  full: self.lit -- "y"\n'), 'law', 10, 3, 'written twice');
  const t = diag(fails(head, { law: 'full: self.fuel <= "ten" -- "x"' }), 'law', 1, 7, 'compares two naturals or two texts');
  assert.is(t.module, 'law');
});

test('migration: migrate returns the new state', () => {
  diag(
    fails(head + 'type Old:\n  lit: Boolean\n\ndef migrate(old: Old) -> Old:\n  return old\n'),
    'migration',
    11,
    5,
    'migrate returns Old, but the new state is Lamp',
  );
});

test('only the earliest stage is reported', () => {
  const d = fails('def f() -> Natural:\n  return nope + "x"\n');
  assert.ok(d.every((x) => x.stage === 'resolve'));
});

test('every diagnostic names its module and a span', () => {
  const d = fails('use core\ndef f(a: Natural) -> Natural:\n  return a + "b"\n', { name: 'spot' });
  for (const x of d) {
    assert.is(x.module, 'spot');
    assert.ok(x.line >= 1 && x.column >= 1 && (x.endLine > x.line || x.endColumn > x.column));
  }
});

test.run();

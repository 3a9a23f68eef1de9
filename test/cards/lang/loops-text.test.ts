/** Break and continue; text functions find, replace, split, join, lower, upper, trim, code and char. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { label, natural, type TypedData } from '../../../src/contract/typed.js';
import { budget, build, fails, plain } from './helpers.js';

const value = (src: string, name: string, args: TypedData[] = []) => {
  const r = build(src).runEntry(name, args, budget);
  if (!r.ok) throw new Error(JSON.stringify(r.refusal));
  return plain(r.result);
};
const refusal = (src: string, name: string, args: TypedData[] = []) => {
  const r = build(src).runEntry(name, args, budget);
  if (r.ok) throw new Error('ran');
  return r.refusal;
};

test('break leaves the loop around it, continue goes on to its next turn; in for, range and while', () => {
  const src = `def firstOver(xs: List Natural, n: Natural) -> Natural:
  let found = 0
  for x in xs:
    if x <= n:
      continue
    found = x
    break
  return found

def odds(n: Natural) -> List Natural:
  let out: List Natural = []
  for i in 1..n:
    if i % 2 == 0:
      continue
    if i > 7:
      break
    out = append(out, i)
  return out

def count() -> Natural:
  let i = 0
  while true:
    i = i + 1
    if i == 5:
      break
  return i

def nested() -> Natural:
  let hits = 0
  for i in 1..3:
    for j in 1..3:
      if j == 2:
        break
      hits = hits + 1
  return hits
`;
  assert.is(value(src, 'firstOver', [{ tag: 'list', items: [natural(1), natural(5), natural(9), natural(20)] }, natural(4)]), 5);
  assert.equal(value(src, 'odds', [natural(20)]), [1, 3, 5, 7]);
  assert.is(value(src, 'count'), 5);
  assert.is(value(src, 'nested'), 3);
});

test('break and continue outside a loop are refused by the checker; a while true that breaks must still return after it', () => {
  assert.match(fails('def f() -> Natural:\n  break\n  return 0\n')[0]!.message, /break belongs inside a loop/);
  assert.match(fails('def f() -> Natural:\n  if true:\n    continue\n  return 0\n')[0]!.message, /continue belongs inside a loop/);
  assert.match(fails('def f() -> Natural:\n  while true:\n    break\n')[0]!.message, /can reach its end/);
  // a break in a loop inside the while does not leave the while
  build('def f() -> Natural:\n  while true:\n    for i in 1..2:\n      break\n    return 1\n');
  // break and continue are words of the language now
  assert.match(fails('def f() -> Natural:\n  let break = 1\n  return 0\n')[0]!.message, /"break" is a word of the language/);
});

test('find, replace, split, join, lower, upper, trim, code and char', () => {
  const src = `def f(t: Text) -> Natural:
  return find(t, "lamp")

def r(t: Text) -> Text:
  return replace(t, "oil", "wax")

def s(t: Text) -> List Text:
  return split(t, ", ")

def chars(t: Text) -> List Text:
  return split(t, "")

def j(xs: List Text) -> Text:
  return join(xs, " + ")

def cases(t: Text) -> Text:
  return "{lower(t)} {upper(t)} [{trim(t)}]"

def c(t: Text) -> Natural:
  return code(t)

def ch(n: Natural) -> Text:
  return char(n)

def rot(t: Text) -> Text:
  let out = ""
  for x in split(t, ""):
    out = out + char(code(x) + 1)
  return out
`;
  assert.is(value(src, 'f', [label('\u00e9\u{1F600} a lamp')]), 5, 'counted in characters (code points)');
  assert.is(refusal(src, 'f', [label('no light')]).class, 'absentItem');
  assert.is(value(src, 'r', [label('oil and more oil')]), 'wax and more wax');
  assert.equal(value(src, 's', [label('a, b, , c')]), ['a', 'b', '', 'c']);
  assert.equal(value(src, 's', [label('')]), ['']);
  assert.equal(value(src, 'chars', [label('a\u{1F600}b')]), ['a', '\u{1F600}', 'b']);
  assert.is(value(src, 'j', [{ tag: 'list', items: [label('a'), label('b')] }]), 'a + b');
  assert.is(value(src, 'cases', [label('  Lamp Oil ')]), '  lamp oil    LAMP OIL  [Lamp Oil]');
  assert.is(value(src, 'c', [label('A')]), 65);
  assert.is(value(src, 'c', [label('\u{1F600}')]), 0x1f600);
  assert.is(refusal(src, 'c', [label('')]).class, 'evaluation');
  assert.is(value(src, 'ch', [natural(0x1f600)]), '\u{1F600}');
  assert.is(refusal(src, 'ch', [natural(0xd800)]).class, 'evaluation');
  assert.is(refusal(src, 'ch', [natural(0x110000)]).class, 'evaluation');
  assert.is(value(src, 'rot', [label('HAL')]), 'IBM');
  const empty = 'def f(t: Text) -> Text:\n  return replace(t, "", "x")\n';
  assert.is(refusal(empty, 'f', [label('abc')]).class, 'evaluation');
});

test('replace is charged for what it builds: a replace that would blow the budget stops at once', () => {
  const src = 'def f(t: Text) -> Text:\n  return replace(t, "a", "{t}{t}{t}{t}{t}{t}{t}{t}")\n';
  const r = build(src).runEntry('f', [label('a'.repeat(2000))], budget);
  // 32,000,000 characters: refused by the budget before a character of it is built
  assert.ok(!r.ok && r.refusal.class === 'budget', JSON.stringify(!r.ok && r.refusal));
  assert.ok(!r.ok && r.usage.heap < 100_000);
});

test.run();

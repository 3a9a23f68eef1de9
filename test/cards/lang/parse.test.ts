/** Stage `parse` (and law syntax): each malformed source gives one diagnostic with its place and form. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { diag, fails, build } from './helpers.js';

const lamp = (body: string) => `type Lamp:\n  lit: Boolean\n\ndef initial() -> Lamp:\n  return Lamp { lit: false }\n\n${body}`;

test('a tab in the indentation is refused with where it is', () => {
  const d = fails('def f() -> Natural:\n\treturn 1\n');
  const x = diag(d, 'parse', 2, 1, 'tab');
  assert.ok(x.hint?.includes('spaces'));
});

test('a dedent that matches no block is refused', () => {
  const d = fails('def f() -> Natural:\n    let a = 1\n  return a\n');
  diag(d, 'parse', 3, 1, 'matches no enclosing block');
});

test('a declaration indented for no reason is refused', () => {
  diag(fails('  def f() -> Natural:\n    return 1\n'), 'parse', 1, 1, 'belongs to no block');
});

test('an unclosed text is refused at its start with the form', () => {
  const d = fails(lamp('spell light(self: Lamp) -> Lamp:\n  say "hello\n  return self\n'));
  const x = diag(d, 'parse', 8, 7, 'not closed');
  assert.ok(x.hint?.includes('"'));
});

test('an unclosed bracket names the bracket', () => {
  const d = fails('def f() -> Natural:\n  return (1 + 2\n');
  diag(d, 'parse', 2, 10, '"(" is never closed');
});

test('a mismatched bracket names both', () => {
  diag(fails('def f() -> Natural:\n  return (1 + 2]\n'), 'parse', 2, 16, 'is closed by "]"');
});

test('an unknown character is refused', () => {
  diag(fails('def f() -> Natural:\n  return 1 @ 2\n'), 'parse', 2, 12, '"@" is not part of the card language');
});

test('single quotes get a hint toward double quotes', () => {
  const x = diag(fails("def f() -> Text:\n  return 'hi'\n"), 'parse', 2, 10, '"\'"');
  assert.ok(x.hint?.includes('double quotes'));
});

test('a missing colon after a def head names what it wanted', () => {
  diag(fails('def f() -> Natural\n  return 1\n'), 'parse', 1, 19, 'expected ":" to begin the body of def f');
});

test('a keyword as a name is refused', () => {
  diag(fails('def let() -> Natural:\n  return 1\n'), 'parse', 1, 5, '"let" is a word of the language');
});

test('comparisons do not chain', () => {
  const x = diag(fails('def f(a: Natural) -> Boolean:\n  return 1 < a < 3\n'), 'parse', 2, 16, 'do not chain');
  assert.ok(x.hint?.includes('and'));
});

test('a lone expression does nothing', () => {
  diag(fails('def f(a: Natural) -> Natural:\n  a + 1\n  return a\n'), 'parse', 2, 3, 'does nothing');
});

test('= in a condition is pointed out', () => {
  diag(fails('def f(a: Natural) -> Natural:\n  if a = 1:\n    return 0\n  return a\n'), 'parse', 2, 8, '"=="');
});

test('else if is written elif', () => {
  diag(fails('def f(a: Natural) -> Natural:\n  if a == 1:\n    return 0\n  else if a == 2:\n    return 1\n  return a\n'), 'parse', 4, 8, 'elif');
});

test('negative numbers do not exist', () => {
  diag(fails('def f() -> Natural:\n  return -1\n'), 'parse', 2, 10, 'never negative');
});

test('a type mixing fields and tags is refused', () => {
  diag(fails('type T:\n  a: Natural\n  b\n'), 'parse', 3, 3, 'mixes fields and tags');
});

test('a lowercase type name is refused with the capitalised form', () => {
  const x = diag(fails('type lamp:\n  lit: Boolean\n'), 'parse', 1, 6, 'capital');
  assert.is(x.hint, 'type Lamp:');
});

test('nesting past the limit is refused, not a stack overflow', () => {
  const deep = '('.repeat(5000) + '1' + ')'.repeat(5000);
  diag(fails(`def f() -> Natural:\n  return ${deep}\n`), 'parse', 2, 33, 'nested more than');
  const blocks = Array.from({ length: 80 }, (_, i) => `${'  '.repeat(i + 1)}if true:`).join('\n');
  const d = fails(`def f() -> Natural:\n${blocks}\n${'  '.repeat(82)}return 1\n  return 0\n`);
  assert.is(d[0]!.stage, 'parse');
  assert.ok(d[0]!.message.includes('nested more than'));
});

test('a text hole is parsed as an expression and its errors point inside the text', () => {
  diag(
    fails(lamp('spell light(self: Lamp) -> Lamp:\n  say "x {self.lit +} y"\n  return self\n')),
    'parse',
    8,
    21,
    'expected a value, but found the end of the hole',
  );
  diag(fails(lamp('spell light(self: Lamp) -> Lamp:\n  say "x {} y"\n  return self\n')), 'parse', 8, 10, 'empty {} hole');
});

test('escapes in text', () => {
  const p = build('def f() -> Text:\n  return "a\\"b\\\\c\\n\\{d\\}"\n');
  const r = p.runEntry('f', [], { ticks: 100, heap: 1000, bytes: 1000 });
  assert.ok(r.ok);
  if (r.ok) assert.equal(r.result, { tag: 'label', value: 'a"b\\c\n{d}' });
  diag(fails('def f() -> Text:\n  return "a\\qb"\n'), 'parse', 2, 12, 'not an escape');
});

test('law syntax errors carry stage law', () => {
  diag(fails(lamp('law:\n  full self.lit -- "x"\n')), 'law', 8, 8, 'expected ":" after the clause name full');
  const d = diag(fails(lamp('law:\n  full: self.lit\n')), 'law', 8, 17, 'before the reading of full');
  assert.ok(d.hint?.includes('--'));
  diag(fails(lamp('law:\n  full: self.lit -- "x {self.lit}"\n')), 'law', 8, 21, 'plain text');
});

test('law text given beside the package is parsed as law, one clause a line', () => {
  const src = lamp('spell light(self: Lamp) -> Lamp:\n  return self { lit: true }\n');
  diag(fails(src, { law: 'dark: not self.lit -- "stays dark"\nbroken self.lit\n' }), 'law', 2, 8, 'expected ":"');
  const p = build(src, { law: 'law:\n  dark: not self.lit -- "it stays dark"\n' });
  assert.equal(
    p.law.map((l) => l.name),
    ['dark'],
  );
  assert.is(p.law[0]!.text, 'dark: not self.lit -- "it stays dark"');
});

test('a rule needs say', () => {
  diag(fails(lamp('rule r: self.lit -> return 1\n')), 'parse', 7, 21, 'expected "say"');
});

test('one-line bodies and one-line tag types parse', () => {
  const p = build('type Mood: calm | cross\n\ndef f(n: Natural) -> Mood:\n  if n > 1: return cross\n  return calm\n');
  const r = p.runEntry('f', [{ tag: 'natural', value: 2 }], { ticks: 100, heap: 100, bytes: 100 });
  assert.ok(r.ok && r.result.tag === 'variant' && r.result.label === 'cross');
});

test('comments and blank lines are ignored anywhere', () => {
  const p = build('# a comment\n\ndef f() -> Natural:   # trailing\n\n  # inside\n  let a = 1   # here\n\n  return a\n');
  assert.equal(p.entries, ['f']);
});

test.run();

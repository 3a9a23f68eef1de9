/** Text is ordered by code points everywhere (`<`, `sort`), as `length` and `slice` count it. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { label } from '../../../src/contract/typed.js';
import { budget, build, plain } from './helpers.js';

// U+FF5E (one UTF-16 unit, 0xFF5E) and U+1F600 (a surrogate pair, 0xD83D 0xDE00): by code point
// the emoji is the larger; by UTF-16 unit it would be the smaller.
const wide = '\uFF5E';
const emoji = '\u{1F600}';

const run = (src: string, name: string, ...args: string[]) => {
  const r = build(src).runEntry(name, args.map(label), budget);
  if (!r.ok) throw new Error(JSON.stringify(r.refusal));
  return plain(r.result);
};

test('< <= > >= compare texts by code point', () => {
  const src =
    'def lt(a: Text, b: Text) -> Boolean:\n  return a < b\n\ndef ge(a: Text, b: Text) -> Boolean:\n  return a >= b\n\ndef gt(a: Text, b: Text) -> Boolean:\n  return a > b\n\ndef le(a: Text, b: Text) -> Boolean:\n  return a <= b\n';
  assert.is(run(src, 'lt', wide, emoji), true);
  assert.is(run(src, 'lt', emoji, wide), false);
  assert.is(run(src, 'gt', emoji, wide), true);
  assert.is(run(src, 'ge', `a${emoji}`, `a${wide}`), true);
  assert.is(run(src, 'le', `a${emoji}`, `a${wide}`), false);
  // ordinary text keeps its order, and a prefix comes first
  assert.is(run(src, 'lt', 'apple', 'apples'), true);
  assert.is(run(src, 'lt', 'b', 'a'), false);
  assert.is(run(src, 'le', 'same', 'same'), true);
});

test('sort orders texts by code point, and length and slice count code points', () => {
  const src = `def f() -> List Text:\n  return sort(["${emoji}", "${wide}", "b", "a", "${emoji}a", "\u00e9"])\n\ndef n(t: Text) -> Natural:\n  return length(t)\n`;
  assert.equal(run(src, 'f'), ['a', 'b', '\u00e9', wide, emoji, `${emoji}a`]);
  assert.is(run(src, 'n', `${emoji}${wide}`), 2);
});

test.run();

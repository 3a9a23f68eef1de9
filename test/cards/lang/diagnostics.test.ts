/** Issue 19, defects 3, 4 and 8: diagnostics stand where the mistake is, hint what fits, and refuse what can be known. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { diag, fails } from './helpers.js';

const pad = (n: number) => 'type S:\n  n: Natural\n' + '\n'.repeat(n);

test('an error inside a text nested in a hole is reported where it stands (defect 3)', () => {
  // line 8, the hole's hole starts at column 27
  const src = `${pad(3)}def f(x: Natural) -> Text:\n  let y = 1\n  return "outer {"inner {x +}"}"\n`;
  const d = fails(src);
  assert.is(d[0]!.line, 8, JSON.stringify(d[0]));
  assert.is(d[0]!.column, 29);
  // a type error three texts deep, too
  const t = fails(`${pad(3)}def f(x: Natural) -> Text:\n  let y = 1\n  return "a {"b {"c {x + "d"}"}"}"\n`);
  assert.is(t[0]!.stage, 'type');
  assert.is(t[0]!.line, 8, JSON.stringify(t[0]));
  assert.is(t[0]!.column, 22);
  // an unknown name in a nested hole
  const n = fails(`${pad(1)}def f(x: Natural) -> Text:\n  return "a {"b {nope}"}"\n`);
  diag(n, 'resolve', 5, 18, 'unknown name nope');
});

test.run();

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

test('a variant field read hints the tags that carry the field (defect 4)', () => {
  const shapes = 'type Shape:\n  dot\n  box { w: Natural, h: Natural }\n  ring { r: Natural }\n\n';
  const w = fails(`${shapes}def f(s: Shape) -> Natural:\n  return s.w\n`);
  diag(w, 'type', 7, 12, 'Shape has no field w');
  assert.ok(w[0]!.hint?.includes('case box { w }'), w[0]!.hint);
  assert.not.ok(w[0]!.hint?.includes('case dot'), w[0]!.hint);
  const r = fails(`${shapes}def f(s: Shape) -> Natural:\n  return s.r\n`);
  assert.ok(r[0]!.hint?.includes('case ring { r }'), r[0]!.hint);
  const none = fails(`${shapes}def f(s: Shape) -> Natural:\n  return s.z\n`);
  assert.ok(none[0]!.hint?.includes('no tag of Shape carries a field z'), none[0]!.hint);
});

test('a spell with self not first is hinted with self first and its other parameters kept (defect 4)', () => {
  const d = fails('type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 0 }\n\nspell add(n: Natural, self: S) -> S:\n  return self\n');
  assert.is(d[0]!.hint, 'spell add(self: S, n: Natural) -> S:');
  const noSelf = fails('type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 0 }\n\nspell add(n: Natural, m: Natural) -> S:\n  return S { n: n }\n');
  assert.is(noSelf[0]!.hint, 'spell add(self: S, n: Natural, m: Natural) -> S:');
});

test.run();

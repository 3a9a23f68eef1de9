/** Diagnostics stand where the mistake is, hint what fits, and refuse what can be known. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build, diag, fails } from './helpers.js';

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

const counter = (body: string) =>
  `type S:\n  n: Natural\n  note: Text\n\ndef initial() -> S:\n  return S { n: 0, note: "" }\n\nspell set(self: S, n: Natural 0..9, note: Text 0..20) -> S:\n  return self { n: n, note: note }\n\nspell go(self: S, to: Object 1..128) -> S:\n${body}\n  return self\n`;

test('the checker refuses what it can know about make and send (defect 8)', () => {
  const dragon = fails(counter('  make dragon {}'));
  diag(dragon, 'resolve', 12, 3, 'no kind dragon');
  assert.ok(dragon[0]!.hint?.includes('lamp'), dragon[0]!.hint);
  diag(fails(counter('  make core {}')), 'resolve', 12, 3, 'core programs no card');
  diag(fails(counter('  make lamp { colour: "red" }')), 'type', 12, 3, 'a lamp has no field colour');
  diag(fails(counter('  make lamp { fuel: "lots" }')), 'type', 12, 3, 'the field fuel of a lamp wants Natural');
  diag(fails(counter('  send this.nosuch {}')), 'resolve', 12, 3, 'this card has no spell nosuch');
  diag(fails(counter('  send this.set { n: "seven" }')), 'type', 12, 3, 'the field n of set wants Natural');
  diag(fails(counter('  send this.set { n: 1, colour: 2 }')), 'type', 12, 3, 'set takes no field colour');
  diag(fails(counter('  send this.set { note: "x" }')), 'type', 12, 3, 'set wants n');
});

test('what the checker cannot know is left to the turn; good makes and sends still compile', () => {
  for (const body of [
    '  make lamp { fuel: 2 }',
    '  make note { text: "hi" }',
    '  make lamp',
    '  send this.set { n: 1 }',
    '  send this.set { n: 1, note: "x" }',
    '  send this.receive { text: "set n=1", post: "" }',
    '  send to.whatever { any: 1 }',
  ]) {
    build(counter(body));
  }
});

test.run();

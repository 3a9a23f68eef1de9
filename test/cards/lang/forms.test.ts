/** Forms: a spell's parameter types with bounds are its form, its template and its signature. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from './helpers.js';

const p = build(`
type Mood: calm | cross

type Pair:
  a: Natural
  b: Natural

type Shape:
  dot
  box { w: Natural }

type S:
  n: Natural

def initial() -> S:
  return S { n: 0 }

spell fill(self: S, measures: Natural 0..9) -> S:
  return self

spell give(self: S, to: Object 1..128, note: Text 0..80) -> S:
  return self

spell name(self: S, title: Text 1..80, who: Principal, ok: Boolean, mood: Mood) -> S:
  return self

spell wide(self: S, n: Natural, t: Text, o: Object) -> S:
  return self

spell many(self: S, xs: List Natural) -> S:
  return self

spell pair(self: S, p: Pair) -> S:
  return self

spell shape(self: S, s: Shape) -> S:
  return self

spell receive(self: S, text: Text, post: Text) -> S:
  return self

view paint(self: S, viewer: Principal) -> Text:
  return "s"

view page(self: S, viewer: Principal) -> Text:
  return "s"
`);
const m = (name: string) => p.methods.find((x) => x.name === name)!;

test('bounded naturals, objects and texts; lower bound 0 is optional', () => {
  assert.equal(m('fill').form, [{ name: 'measures', form: { kind: 'natural', min: 0, max: 9 }, optional: false }]);
  assert.is(m('fill').template, 'fill measures=<natural 0..9>');
  assert.equal(m('give').form, [
    { name: 'to', form: { kind: 'object', min: 1, max: 128 }, optional: false },
    { name: 'note', form: { kind: 'text', min: 0, max: 80 }, optional: true },
  ]);
  assert.is(m('give').template, 'give to=<object 1..128> note=<text 0..80>');
  assert.is(m('give').signature, 'spell give(self: S, to: Object 1..128, note: Text 0..80) -> S');
});

test('tags are one of, booleans one of true, false, principals are text the kernel reads as principals', () => {
  assert.equal(
    m('name').form!.map((f) => f.form),
    [
      { kind: 'text', min: 1, max: 80 },
      { kind: 'text', min: 1, max: 160, principal: true },
      { kind: 'boolean' },
      { kind: 'oneOf', options: ['calm', 'cross'] },
    ],
  );
  assert.is(m('name').template, 'name title=<text 1..80> who=<text 1..160> ok=<one of true, false> mood=<one of calm, cross>');
});

test('parameters without bounds take the widest bounds of their kind', () => {
  assert.is(m('wide').template, 'wide n=<natural 0..9007199254740991> t=<text 0..4096> o=<object 1..128>');
  assert.equal(
    m('wide').form!.map((f) => f.optional),
    [false, true, false],
  );
});

test('lists, records and tags with fields have no form: the spell takes typed argument', () => {
  for (const name of ['many', 'pair', 'shape']) {
    assert.is(m(name).form, undefined, name);
    assert.is(m(name).template, undefined, name);
    assert.is(m(name).kind, 'spell');
  }
  assert.is(m('many').signature, 'spell many(self: S, xs: List Natural) -> S');
});

test('a spell with no parameters has an empty form and its name as template', () => {
  const q = build('type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 0 }\n\nspell light(self: S) -> S:\n  return self\n');
  assert.equal(q.methods, [{ name: 'light', kind: 'spell', signature: 'spell light(self: S) -> S', form: [], template: 'light' }]);
});

test('receive and views are marked by kind and have no form', () => {
  assert.equal(
    p.methods.filter((x) => x.kind !== 'spell').map((x) => [x.name, x.kind, x.form]),
    [
      ['receive', 'receive', undefined],
      ['paint', 'view', undefined],
      ['page', 'view', undefined],
    ],
  );
});

test('the state type is printed in full; its key ignores names and bounds', () => {
  assert.is(p.stateType, 'S { n: Natural }');
  const q = build('type Other:\n  n: Natural 0..5\n\ndef initial() -> Other:\n  return Other { n: 0 }\n\nspell x(self: Other) -> Other:\n  return self\n');
  assert.is(q.stateKey, p.stateKey);
  assert.is.not(q.stateType, p.stateType);
});

test.run();

/**
 * A seed (scratch create, `make`) is checked against the state's bounds like
 * the state `initial()` returns, refused `cardRefused` with clause `bounds`; and a law refusal
 * names the clause that failed, never the first clause by default.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Harness, ann, refusal } from './harness.js';

const counter = (law: string) =>
  `type C:\n  n: Natural 0..5\n  name: Text 1..8\n${law}\ndef initial() -> C:\n  return C { n: 0, name: "c" }\n\nspell up(self: C) -> C:\n  return self { n: self.n + 1 }\n`;

for (const [what, law] of [
  ['without a law', ''],
  ['with a law that holds', '\nlaw:\n  always: true -- "always holds"\n'],
] as const) {
  test(`create: a seed outside the state's bounds is cardRefused bounds, ${what}`, () => {
    const h = Harness.empty(ann);
    const create = (intent: string, seed: unknown) =>
      h.run({ kind: 'create', principal: ann, intent, object: intent, source: counter(law), entry: 'initial', seed });
    const r = refusal(create('a', { n: 9 }));
    assert.is(r.class, 'cardRefused', JSON.stringify(r));
    assert.is(r.clause, 'bounds');
    assert.match(r.reading ?? '', /9/);
    const long = refusal(create('b', { name: 'x'.repeat(200) }));
    assert.is(long.class, 'cardRefused');
    assert.is(long.clause, 'bounds');
    assert.is(h.world.cards.size, 0);
    // within bounds it is made
    assert.is(create('c', { n: 5, name: 'five' }).kind, 'journal');
    assert.equal(h.state('c'), { n: 5, name: 'five' });
  });
}

test('make: a card made by card code with a seed outside its bounds is cardRefused bounds', () => {
  const h = Harness.empty(ann);
  const maker = (name: string) =>
    `type M:\n  n: Natural\n\nlaw:\n  fine: self.n < 100 -- "fine"\n\ndef initial() -> M:\n  return M { n: 0 }\n\nspell found(self: M) -> M:\n  make town { name: "${name}" }\n  return self { n: self.n + 1 }\n`;
  h.run({ kind: 'create', principal: ann, intent: 'm1', object: 'maker', source: maker('x'.repeat(200)), entry: 'initial' });
  const r = refusal(h.turn(ann, 'maker', 'found'));
  assert.is(r.class, 'cardRefused', JSON.stringify(r));
  assert.is(r.clause, 'bounds');
  h.run({ kind: 'create', principal: ann, intent: 'm2', object: 'maker2', source: maker('Hamlet'), entry: 'initial' });
  assert.is(h.turn(ann, 'maker2', 'found').kind, 'journal');
});

test('a law refusal names the clause that fails, not the first one', () => {
  const h = Harness.empty(ann);
  const law = '\nlaw:\n  always: true -- "always holds"\n  low: self.n <= 2 -- "stays low"\n';
  const r = refusal(h.run({ kind: 'create', principal: ann, intent: 'x', object: 'x', source: counter(law), entry: 'initial', seed: { n: 4 } }));
  assert.is(r.class, 'lawRefused');
  assert.is(r.clause, 'low');
});

test.run();

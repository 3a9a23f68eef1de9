/** The law's outcome comes first, the same with rules or without. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Harness, ann, refusal } from './harness.js';

const card = (rules: string) =>
  `type C:\n  n: Natural\n  d: Natural\n\nlaw:\n  even: self.n / self.d >= 0 -- "shares evenly"\n${rules}\ndef initial() -> C:\n  return C { n: 4, d: 2 }\n\nspell zero(self: C) -> C:\n  return self { d: 0 }\n\nspell two(self: C) -> C:\n  return self { d: 2 }\n`;

const withRule = '\nrule share: self.n / self.d > 1 -> say "plenty"\n';

test('a law clause that cannot be worked out refuses lawRefused naming it, with or without a rule that also fails', () => {
  for (const rules of ['', withRule]) {
    const h = Harness.empty(ann);
    h.run({ kind: 'create', principal: ann, intent: 'c', object: 'c', source: card(rules), entry: 'initial' });
    const r = refusal(h.turn(ann, 'c', 'zero'));
    assert.is(r.class, 'lawRefused', `${rules ? 'with' : 'without'} the rule: ${JSON.stringify(r)}`);
    assert.is(r.clause, 'even');
  }
});

test('rules still fire after an act the law allows, and a rule that fails alone still refuses evaluation', () => {
  const h = Harness.empty(ann);
  h.run({ kind: 'create', principal: ann, intent: 'c', object: 'c', source: card(withRule), entry: 'initial' });
  const o = h.turn(ann, 'c', 'two');
  assert.is(o.kind, 'journal');
  const lonely = `type C:\n  n: Natural\n  d: Natural\n\nrule share: self.n / self.d > 1 -> say "plenty"\n\ndef initial() -> C:\n  return C { n: 4, d: 2 }\n\nspell zero(self: C) -> C:\n  return self { d: 0 }\n`;
  h.run({ kind: 'create', principal: ann, intent: 'l', object: 'l', source: lonely, entry: 'initial' });
  assert.is(refusal(h.turn(ann, 'l', 'zero')).class, 'evaluation');
});

test.run();

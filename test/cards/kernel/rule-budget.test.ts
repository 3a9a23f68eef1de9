/**
 * A rule runs on its own allowance of 100,000 ticks (docs/cards.md, Metering), not on what the
 * turn has left: a rule whose condition costs more is refused `budget` though the turn's
 * 1,000,000 ticks would have covered it, and one that costs less fires, its ticks counted with
 * the turn's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Harness, ann, refusal } from './harness.js';

const card = (rounds: number) =>
  `type C:\n  n: Natural\n\nrule busy: spin(self.n) > 0 -> say "spun"\n\ndef spin(n: Natural) -> Natural:\n  let out = 0\n  for i in 1..${rounds}:\n    out = out + 1\n  return out + n\n\ndef initial() -> C:\n  return C { n: 1 }\n\nspell bump(self: C) -> C:\n  return self { n: self.n + 1 }\n`;

test('a rule that needs more than 100,000 ticks is refused budget, though the turn had more left', () => {
  const h = Harness.empty(ann);
  h.run({ kind: 'create', principal: ann, intent: 'c', object: 'c', source: card(40_000), entry: 'initial' });
  const r = refusal(h.turn(ann, 'c', 'bump'));
  assert.is(r.class, 'budget', JSON.stringify(r));
  assert.match(String(r.reason), /ticks/);
});

test('a rule within its 100,000 ticks fires', () => {
  const h = Harness.empty(ann);
  h.run({ kind: 'create', principal: ann, intent: 'c', object: 'c', source: card(1_000), entry: 'initial' });
  const o = h.turn(ann, 'c', 'bump');
  assert.is(o.kind, 'journal', JSON.stringify(o).slice(0, 400));
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide } from '../../../src/cards/kernel/decide.js';
import type { HostRequest } from '../../../src/cards/kernel/outcome.js';
import { evolve, replay } from '../../../src/cards/kernel/evolve.js';
import { blankWorld, visibleIds } from '../../../src/cards/kernel/world.js';
import { Harness, ann, bob, mayor, plain, refusal } from './harness.js';

const diary =
  'type D:\n  text: Text\n  pages: Natural\n\nlaw:\n  thin: self.pages <= 100 -- "a diary has at most a hundred pages"\n\ndef initial() -> D:\n  return D { text: "", pages: 1 }\n\nspell write(self: D, text: Text 1..80) -> D:\n  say "{caller} writes in the diary"\n  return self { text: text }\n';

test('empty: a world with the sealed library and no cards; its opener is the guest who opened it', () => {
  const h = Harness.empty(ann);
  assert.is(h.world.cards.size, 0);
  assert.is(h.world.opener, ann);
  assert.ok(h.world.kinds.has('lamp'));
  assert.is(h.world.height, 1);
});

test('create: a card from source + initial + seed, visible only to its creator', () => {
  const h = Harness.empty(ann);
  const o = h.run({ kind: 'create', principal: ann, intent: 'c1', object: 'diary', source: diary, entry: 'initial', seed: { text: 'day one', pages: 7 } });
  assert.is(o.kind, 'journal');
  const card = h.world.cards.get('diary')!;
  assert.equal(plain(card.state), { text: 'day one', pages: 7 });
  assert.is(card.visibility, 'owner');
  assert.is(card.owner, ann);
  assert.equal(visibleIds(h.world, bob), []);
  // a typed seed is laid over initial() the same way
  h.run({
    kind: 'create',
    principal: ann,
    intent: 'c2',
    object: 'diary2',
    source: diary,
    entry: 'initial',
    seed: { tag: 'record', fields: [{ name: 'pages', value: { tag: 'natural', value: 9 } }] },
  });
  assert.equal(h.state('diary2'), { text: '', pages: 9 });
  // the same intent for the same create is a repeat
  assert.is(
    h.run({ kind: 'create', principal: ann, intent: 'c1', object: 'diary', source: diary, entry: 'initial', seed: { text: 'day one', pages: 7 } }).kind,
    'repeat',
  );
});

test('create refuses a seed the state does not hold, a seed that breaks the law, and bad requests', () => {
  const h = Harness.empty(ann);
  const create = (intent: string, extra: object) =>
    h.run({ kind: 'create', principal: ann, intent, object: intent, source: diary, entry: 'initial', ...extra });
  const unknown = refusal(create('a', { seed: { colour: 'red' } }));
  assert.is(unknown.class, 'typeMismatch');
  assert.ok(unknown.expected!.includes('pages'));
  assert.is(refusal(create('b', { seed: { pages: 'many' } })).class, 'typeMismatch');
  assert.is(refusal(create('b2', { seed: JSON.parse('{"__proto__": {"pages": 1}}') })).class, 'typeMismatch');
  const law = refusal(create('c', { seed: { pages: 500 } }));
  assert.is(law.class, 'lawRefused');
  assert.is(law.clause, 'thin');
  const extraLaw = refusal(create('d', { law: 'short: self.pages <= 0 -- "no pages at all"' }));
  assert.is(extraLaw.class, 'lawRefused');
  assert.is(extraLaw.clause, 'short');
  const rejected = (extra: object) => {
    const o = h.run({ kind: 'create', principal: ann, intent: 'r', object: 'x', entry: 'initial', ...extra } as never);
    assert.is(o.kind, 'rejected', JSON.stringify(o));
    return (o as { error: HostRequest }).error;
  };
  const broken = rejected({ source: 'type D:\n  text Text\n' });
  assert.is(broken.class, 'hostRequest');
  assert.is(broken.stage, 'parse');
  assert.is(broken.module, 'main');
  assert.is(broken.span!.line, 2);
  rejected({ source: diary, modules: [{ name: 'main', source: diary }] });
  rejected({});
  rejected({ source: diary, entry: 'other' });
  assert.is((h.run({ kind: 'create', principal: ann, intent: 'r2', object: 'bad id!', source: diary, entry: 'initial' }) as { kind: string }).kind, 'rejected');
  assert.is(h.world.intents.size, 5, 'only the journaled refusals spent their intents');
});

test('fork: a copy of a world as it stood, carrying only what the forker may view', () => {
  const h = Harness.empty(ann);
  h.run({ kind: 'create', principal: ann, intent: 'a', object: 'mine', source: diary, entry: 'initial' });
  h.run({ kind: 'create', principal: bob, intent: 'b', object: 'bobs', source: diary, entry: 'initial' });
  h.act(ann, 'mine', 'write', { fields: { text: 'first' } });
  const stoodAt = h.journal.length - 1;
  h.act(ann, 'mine', 'write', { fields: { text: 'second' } });

  const at = replay(h.journal.slice(0, stoodAt), blankWorld());
  const o = decide(at, { kind: 'fork', source: at, forker: ann, name: 'scratch/ann/fork' }, h.clock, h.programs, h.options);
  assert.is(o.kind, 'journal');
  const entry = (o as { entries: import('../../../src/cards/kernel/entry.js').Entry[] }).entries[0]!;
  assert.equal(entry.from, { world: h.world.name, height: stoodAt });
  const fork = evolve(blankWorld(), entry);
  assert.equal([...fork.cards.keys()], ['mine']);
  assert.equal(plain(fork.cards.get('mine')!.state), { text: '', pages: 1 });
  assert.is(fork.opener, ann);
  assert.ok(fork.packages.has(fork.cards.get('mine')!.pin), 'the code of every carried card comes along');
  assert.is(fork.height, 1);
  // the fork plays on by itself; the world it came from is untouched
  const f = new Harness(h.programs, h.options);
  evolve(f.world, entry);
  assert.is(f.act(ann, 'mine', 'write', { fields: { text: 'in the fork' } }).status, 'done');
  assert.equal(h.state('mine'), { text: 'second', pages: 1 });
  // forking the town carries the library, the rooms and the avatars that are visible
  const t = Harness.town();
  t.arrive(ann);
  const tf = evolve(
    blankWorld(),
    (
      decide(t.world, { kind: 'fork', source: t.world, forker: bob, name: 'scratch/bob/town' }, t.clock, t.programs) as {
        entries: import('../../../src/cards/kernel/entry.js').Entry[];
      }
    ).entries[0]!,
  );
  assert.is(tf.entrance, 'square');
  assert.is(tf.avatars.get(ann), 'avatar-ann');
  assert.is(tf.opener, bob);
  assert.is(tf.cards.size, t.world.cards.size);
});

test('repl: a plain def answers its value; nothing is journaled', () => {
  const h = Harness.empty(ann);
  const o = h.run({
    kind: 'repl',
    principal: ann,
    intent: 'r',
    source: 'def twice(n: Natural) -> Natural:\n  return n * 2\n',
    entry: 'twice',
    arguments: [{ tag: 'natural', value: 21 }],
  });
  assert.is(o.kind, 'value');
  assert.equal((o as { value: unknown }).value, { tag: 'natural', value: 42 });
  assert.is(h.world.height, 1);
  const bad = h.run({
    kind: 'repl',
    principal: ann,
    intent: 'r2',
    source: 'def twice(n: Natural) -> Natural:\n  return n * 2\n',
    entry: 'twice',
    arguments: [{ tag: 'label', value: 'x' }],
  });
  assert.is(refusal(bad).class, 'typeMismatch');
  const missing = h.run({ kind: 'repl', principal: ann, intent: 'r3', source: 'def twice(n: Natural) -> Natural:\n  return n * 2\n', entry: 'thrice' });
  assert.is(refusal(missing).class, 'noMethod');
});

test("repl: an Activity makes (or reprograms) the object from the module and runs as the caller's turn", () => {
  const h = Harness.empty(ann);
  const counter = (step: number) =>
    `type C:\n  n: Natural\n\ndef initial() -> C:\n  return C { n: 0 }\n\nspell bump(self: C, by: Natural 0..9) -> C:\n  return self { n: self.n + by * ${step} }\n`;
  const o = h.run({ kind: 'repl', principal: ann, intent: 'a1', source: counter(1), entry: 'bump', fields: { by: 2 } });
  assert.is(o.kind, 'journal', JSON.stringify(o));
  assert.equal(h.state('repl'), { n: 2 });
  assert.is(h.world.cards.get('repl')!.visibility, 'owner');
  h.run({ kind: 'repl', principal: ann, intent: 'a2', source: counter(10), entry: 'bump', fields: { by: 1 } });
  assert.equal(h.state('repl'), { n: 12 }, 'the state stays; the code is new');
  h.run({ kind: 'repl', principal: ann, intent: 'a3', entry: 'bump', fields: { by: 3 } });
  assert.equal(h.state('repl'), { n: 42 }, 'with no source the method runs on the object as it is');
  assert.is(refusal(h.run({ kind: 'repl', principal: bob, intent: 'b1', source: counter(1), entry: 'bump', fields: { by: 1 } })).class, 'unknownObject');
  const other = h.run({ kind: 'repl', principal: ann, intent: 'a4', source: counter(1), entry: 'bump', fields: { by: 1 }, object: 'counter-2' });
  assert.is(other.kind, 'journal');
  assert.equal(h.state('counter-2'), { n: 1 });
  const broken = h.run({ kind: 'repl', principal: ann, intent: 'a5', source: 'spell x(', entry: 'x' });
  assert.is(broken.kind, 'rejected');
});

test('cite: a scratch receipt is kept whole in the town, once per intent; a forged one is refused', () => {
  const s = Harness.empty(ann);
  s.run({ kind: 'create', principal: ann, intent: 'c', object: 'mine', source: diary, entry: 'initial' });
  const entry = s.journal.at(-1)!;
  const t = Harness.town();
  const o = t.run({ kind: 'cite', principal: ann, world: 'scratch/ann/play', entry });
  assert.is(o.kind, 'journal');
  const kept = t.journal.at(-1)!;
  assert.is(kept.cited!.cid, entry.cid);
  assert.equal(JSON.parse(kept.cited!.entry).receipt, entry.receipt);
  assert.is(kept.intent!.intent, `cite:${entry.cid}`);
  assert.is(t.run({ kind: 'cite', principal: ann, world: 'scratch/ann/play', entry }).kind, 'repeat');
  const forged = t.run({ kind: 'cite', principal: ann, world: 'scratch/ann/play', entry: { ...entry, receipt: { ...entry.receipt, line: 'I won' } } });
  assert.is(forged.kind, 'rejected');
});

test('check: modules against the library, diagnostics naming stage, line and span', () => {
  const h = Harness.empty(ann);
  const good = h.run({ kind: 'check', source: diary });
  assert.equal(good, { kind: 'checked', diagnostics: [] });
  const bad = h.run({ kind: 'check', source: 'use nosuch\n\ndef f() -> Natural:\n  return 1\n' });
  assert.is(bad.kind, 'checked');
  const d = (bad as { diagnostics: { stage: string; line: number; message: string }[] }).diagnostics[0]!;
  assert.is(d.stage, 'resolve');
  assert.is(d.line, 1);
  assert.is(h.world.height, 1);
  void mayor;
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSpell, showValue, type Cast, type Plan } from '../../../src/cards/kernel/spell.js';

const cast = (text: string): Cast => {
  const r = parseSpell(text);
  if (!r.ok) throw new Error(`expected a spell, got ${r.fault.clause}: ${r.fault.reason}`);
  assert.is(r.spell.kind, 'cast');
  return r.spell as Cast;
};
const fault = (text: string) => {
  const r = parseSpell(text);
  if (r.ok) throw new Error(`expected a fault for ${JSON.stringify(text)}`);
  return r.fault;
};

test('given a filled-in template, when parsed, then method and named fields come out typed by their look', () => {
  const c = cast('fill measures=3');
  assert.is(c.method, 'fill');
  assert.equal(c.items, [{ name: 'measures', value: { t: 'natural', text: '3' }, at: 6 }]);
  const s = cast('say text="hello, town" to=lamp-7 mood=glad');
  assert.equal(
    s.items.map((i) => [i.name, showValue(i.value)]),
    [
      ['text', '"hello, town"'],
      ['to', 'lamp-7'],
      ['mood', 'glad'],
    ],
  );
});

test('given records, lists, escapes and leading zeros, when parsed, then values are exact', () => {
  const c = cast('put row={key=apple n=007 tags=[a, b "c d"]} note="line\\none \\"q\\" \\u00e9 \\u{1F600}"');
  assert.equal(c.items[0]!.value, {
    t: 'record',
    fields: [
      { name: 'key', value: { t: 'word', text: 'apple' } },
      { name: 'n', value: { t: 'natural', text: '7' } },
      {
        name: 'tags',
        value: {
          t: 'list',
          items: [
            { t: 'word', text: 'a' },
            { t: 'word', text: 'b' },
            { t: 'text', text: 'c d' },
          ],
        },
      },
    ],
  });
  assert.equal(c.items[1]!.value, { t: 'text', text: 'line\none "q" é 😀' });
});

test('given a target prefix, positional values and a reading, when parsed, then each lands in its place', () => {
  const c = cast('lamp-7: light');
  assert.equal(c.target, { t: 'card', id: 'lamp-7' });
  const q = cast('quiet ann until 1700000000000 -- shouting in the square');
  assert.equal(
    q.items.map((i) => [i.name, showValue(i.value)]),
    [
      [undefined, 'ann'],
      [undefined, 'until'],
      [undefined, '1700000000000'],
    ],
  );
  assert.is(q.reading, 'shouting in the square');
  assert.is(cast('quiet ann until 5 -- "quoted reading"').reading, 'quoted reading');
});

test('given a plan, when parsed, then its acts come out in order with {made N} references', () => {
  const r = parseSpell('plan { make note; give to={made 1}\n {made 1}: write text=hi }');
  assert.ok(r.ok);
  const p = (r as { spell: Plan }).spell;
  assert.is(p.kind, 'plan');
  assert.equal(
    p.acts.map((a) => a.method),
    ['make', 'give', 'write'],
  );
  assert.equal(p.acts[1]!.items[0]!.value, { t: 'made', n: 1 });
  assert.equal(p.acts[2]!.target, { t: 'made', n: 1 });
});

test('given bad spells, when parsed, then each gets its badSpell clause and a reason', () => {
  const cases: [string, string][] = [
    ['', 'noAction'],
    ['   \n ; ', 'noAction'],
    ['light; fill measures=2', 'tooManySpells'],
    ['light\nfill measures=2', 'tooManySpells'],
    ['fill measures=<natural 0..9>', 'hole'],
    ['<method> x=1', 'hole'],
    ['fill measures=3>', 'hole'],
    ['say text="unclosed', 'quotation'],
    ['say text="bad \\q escape"', 'quotation'],
    ['say text=\u201csmart\u201d', 'quotation'],
    ["say text='single'", 'quotation'],
    ['say text="a"b', 'quotation'],
    ['put row={key=a', 'unclosedBlock'],
    ['put tags=[a b', 'unclosedBlock'],
    ['put tags=[a b}', 'unclosedBlock'],
    ['light }', 'unclosedBlock'],
    ['plan { make note', 'unclosedBlock'],
    ['put row={key=a key=b}', 'duplicateField'],
    ['fill 9x=3', 'unknownField'],
    ['fill measures=', 'badValue'],
    ['fill =3', 'badValue'],
    ['9lives', 'noAction'],
    ['plan { plan { light } }', 'notInPlan'],
    ['put v=' + '['.repeat(40) + ']'.repeat(40), 'badValue'],
  ];
  for (const [text, clause] of cases) {
    const f = fault(text);
    assert.is(f.clause, clause, `${JSON.stringify(text)} gave ${f.clause}: ${f.reason}`);
    assert.ok(f.reason.length > 5);
  }
});

test('given field names that are object keys in JS, when parsed, then they are just names', () => {
  const c = cast('set __proto__=1 constructor=2 toString=x');
  assert.equal(
    c.items.map((i) => i.name),
    ['__proto__', 'constructor', 'toString'],
  );
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('given a huge text, when parsed, then it is refused without reading it all', () => {
  assert.is(fault('a'.repeat(70_000)).clause, 'badValue');
});

test.run();

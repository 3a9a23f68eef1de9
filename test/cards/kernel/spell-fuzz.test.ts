/**
 * Fuzz: 100,000 random and mutated spells through the spell parser, and through the form codec
 * behind it. Nothing may throw; every failure must be a badSpell clause of spec 7.2.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { badSpellClauses } from '../../../src/contract/errors.js';
import { fromSpell } from '../../../src/cards/kernel/fields.js';
import { parseSpell } from '../../../src/cards/kernel/spell.js';
import type { FormField } from '../../../src/cards/program.js';
import { rng } from './random.js';

const seeds = [
  'fill measures=3',
  'say text="hello, town" to=lamp-7',
  'put row={key=apple n=7 tags=[a b "c d"]}',
  'plan { make note; give to={made 1}; {made 1}: write text="hi" }',
  'quiet ann until 2026-11-23T18:00Z -- shouting',
  'lend lamp to guest:town.example:bob',
  'become lamp law none',
  'lamp-7: light',
  'give to=me note="a \\u00e9 \\n gift"',
  'fill measures=<natural 0..9>',
];
const alphabet = [
  '{',
  '}',
  '[',
  ']',
  '"',
  '\\',
  '=',
  ';',
  '\n',
  ' ',
  ',',
  '<',
  '>',
  ':',
  '-',
  '--',
  'made',
  '0',
  '9',
  'a',
  'Z',
  '_',
  '\u201c',
  "'",
  '\u00e9',
  '\ud83d',
  '\t',
  'plan',
  '{made 1}',
  '\\u{',
  '\\u12',
];

const form: FormField[] = [
  { name: 'measures', form: { kind: 'natural', min: 0, max: 9 }, optional: true },
  { name: 'text', form: { kind: 'text', min: 0, max: 80 }, optional: true },
  { name: 'to', form: { kind: 'object', min: 1, max: 128 }, optional: true },
  { name: 'mood', form: { kind: 'oneOf', options: ['glad', 'sad'] }, optional: true },
  { name: 'on', form: { kind: 'boolean' }, optional: true },
];

test('100,000 random and mutated spells: no exception escapes, every fault is a 7.2 clause', () => {
  const r = rng(20261123);
  const clauses = new Set<string>(badSpellClauses);
  let ok = 0;
  let faults = 0;
  for (let i = 0; i < 100_000; i++) {
    let text: string;
    if (i % 3 === 0) {
      text = '';
      const n = r.int(40);
      for (let k = 0; k < n; k++) text += r.pick(alphabet);
    } else {
      text = r.pick(seeds);
      const edits = 1 + r.int(4);
      for (let e = 0; e < edits; e++) {
        const at = r.int(text.length + 1);
        const op = r.int(3);
        if (op === 0) text = text.slice(0, at) + r.pick(alphabet) + text.slice(at);
        else if (op === 1) text = text.slice(0, at) + text.slice(at + 1 + r.int(3));
        else text = text.slice(0, at) + text.slice(r.int(text.length + 1));
      }
    }
    const parsed = parseSpell(text);
    if (parsed.ok) {
      ok++;
      if (parsed.spell.kind === 'cast') {
        const c = fromSpell(form, parsed.spell.items, 'hint', () => undefined);
        if (!c.ok) assert.ok(c.refusal.class === 'badSpell' || c.refusal.class === 'typeMismatch', c.refusal.class);
      }
    } else {
      faults++;
      assert.ok(clauses.has(parsed.fault.clause), `unknown clause ${parsed.fault.clause}`);
      assert.type(parsed.fault.reason, 'string');
    }
  }
  assert.ok(ok > 1000 && faults > 1000, `ok ${ok}, faults ${faults}`);
});

test('pathological nesting and length end quickly with a clause', () => {
  for (const text of ['x v=' + '['.repeat(100_000), 'x v=' + '{a='.repeat(30_000), '"'.repeat(60_000), 'x ' + 'a=1 '.repeat(15_000)]) {
    const r = parseSpell(text);
    if (!r.ok) assert.ok(badSpellClauses.includes(r.fault.clause as never));
  }
});

test.run();

/** The codecs of the route table, and how their refusals read. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type * as t from 'io-ts';
import { emptyRecord, label } from '../../src/contract/typed.js';
import { limits } from '../../src/contract/limits.js';
import * as b from '../../src/contract/bodies.js';
import { explain, rulesOf, shapeOf, shapeText } from '../../src/http/shape.js';

const refusal = (codec: t.Type<any, any, unknown>, value: unknown, where: 'body' | 'query' = 'body') => {
  const r = codec.decode(value);
  assert.is(r._tag, 'Left', `refused: ${JSON.stringify(value)?.slice(0, 80)}`);
  return explain((r as t.Validation<never> & { left: t.Errors }).left, where, codec);
};
const accepted = (codec: t.Type<any, any, unknown>, value: unknown) => {
  const r = codec.decode(value);
  assert.is(r._tag, 'Right', JSON.stringify(value)?.slice(0, 80));
  return (r as { right: unknown }).right;
};

test('turn: one of fields, spell, argument; none means the empty record', () => {
  assert.equal(accepted(b.TurnBody, { intent: 'i' }), { intent: 'i', argument: emptyRecord });
  assert.equal(accepted(b.TurnBody, { intent: 'i', spell: 'open the door' }), { intent: 'i', spell: 'open the door' });
  assert.equal(accepted(b.TurnBody, { intent: 'i', argument: label('x'), try: true, if: [{ object: 'a/b', version: 3 }] }), {
    intent: 'i',
    argument: label('x'),
    try: true,
    if: [{ object: 'a/b', version: 3 }],
  });
  assert.equal(refusal(b.TurnBody, { intent: 'i', fields: {}, argument: emptyRecord }), {
    cls: 'hostRequest',
    message: 'body: give one of fields, spell, argument (this body gives fields and argument)',
  });
  assert.equal(rulesOf(b.TurnBody), ['one of fields, spell, argument; with none, argument is the empty record']);
});

test('closed bodies refuse fields they do not name; open ones (forms) keep them', () => {
  assert.equal(
    refusal(b.AcceptBody, { code: 'c', extra: 1 }).message,
    'body field `extra` is not a field this route takes; it takes {code: text, name?: text}',
  );
  assert.equal(accepted(b.PlayBody, { do: 'open', 'f.key': 'k', submit: 'go' }), { do: 'open', 'f.key': 'k', submit: 'go' });
});

test('refusals name the field and what it wants', () => {
  assert.equal(refusal(b.ArriveBody, { name: 'ada' }).message, 'body field `proof` is required ({challenge: text, nonce: text})');
  assert.equal(refusal(b.ArriveBody, { name: 'ada', proof: { challenge: 'c', nonce: 5 } }).message, 'body field `proof.nonce`: expected text, got 5');
  assert.equal(refusal(b.ScratchBody, { name: 'Lab' }).message, 'body field `name`: expected scratch name ([a-z][a-z0-9-]{0,31}), got "Lab"');
  assert.equal(
    refusal(b.ScratchBody, { name: 'lab', from: { world: 'elsewhere' } }).message,
    'body field `from.world`: expected world (`town` or `scratch/<name>`), got "elsewhere"',
  );
  assert.match(refusal(b.EnterBody, { nothing: 1 }).message, 'body: expected {code: text, name?: text} | {credential: text}');
  assert.equal(refusal(b.OffersQuery, { wait: ['1', '2'] }, 'query').message, 'query field `wait` is given more than once');
  assert.equal(
    refusal(b.ScratchObjectsBody, {
      object: 'x',
      entry: 'initial',
      intent: 'i',
      modules: Array.from({ length: 65 }, (_, i) => ({ name: `m${i}`, source: '' })),
    }).message,
    'body field `modules`: at most 64 modules in one request',
  );
});

test('a module over the module limit is moduleTooLarge, wherever it sits', () => {
  const big = 'é'.repeat(limits.moduleBytes / 2 + 1); // counted in bytes, not characters
  assert.is(refusal(b.CheckBody, { source: big }).cls, 'moduleTooLarge');
  assert.is(refusal(b.ScratchObjectsBody, { object: 'x', entry: 'initial', intent: 'i', modules: [{ name: 'a', source: big }] }).cls, 'moduleTooLarge');
  accepted(b.CheckBody, { source: 'é'.repeat(limits.moduleBytes / 2) });
});

test('object ids and intents follow spec 2.1', () => {
  accepted(b.ScratchObjectsBody, { object: 'Hall.door_1:a/b-c', entry: 'initial', intent: 'i' });
  for (const object of ['', 'a b', 'a\nb', 'é', 'x'.repeat(129)]) refusal(b.ScratchObjectsBody, { object, entry: 'initial', intent: 'i' });
  for (const intent of ['', 'a\u0000', 'x'.repeat(257)]) refusal(b.TurnBody, { intent });
});

test('shapes read as the spec writes them', () => {
  assert.is(shapeText(shapeOf(b.AcceptBody)), '{code: text, name?: text}');
  assert.equal(shapeOf(b.PlayBody), { 'one of': [{ text: 'text' }, { do: 'text', 'f.<field>?': 'text' }] });
  assert.equal(shapeOf(b.ReplBody)['arguments?' as never], ['typed data']);
});

test.run();

/**
 * The JSON Schema rendering of the request codecs (src/http/json-schema.ts): each kind of codec
 * the route table declares with, as MCP clients are given it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as t from 'io-ts';
import { EnterBody, Intent, Natural, OffersQuery, TurnBody, FeedPostBody } from '../../src/contract/bodies.js';
import { TypedDataC } from '../../src/contract/typed.js';
import { jsonSchemaOf, objectSchemaOf } from '../../src/http/json-schema.js';

test('a closed object: its fields, the required ones, nothing else', () => {
  const s = jsonSchemaOf(FeedPostBody) as any;
  assert.is(s.type, 'object');
  assert.equal(Object.keys(s.properties), ['text', 'reply_to']);
  assert.equal(s.required, ['text']);
  assert.is(s.additionalProperties, false);
});

test('a pattern keeps its expression and bounds; a flag its values; a natural is an integer', () => {
  const intent = jsonSchemaOf(Intent) as any;
  assert.equal([intent.type, intent.minLength, intent.maxLength], ['string', 1, 256]);
  assert.ok(new RegExp(intent.pattern).test('ada-1'));
  assert.not.ok(new RegExp(intent.pattern).test('a\u0001'));
  const offers = jsonSchemaOf(OffersQuery) as any;
  assert.is(offers.additionalProperties, true, 'a query keeps fields it does not name');
  assert.equal(jsonSchemaOf(Natural), { type: 'integer', minimum: 0 });
  const flag = objectSchemaOf(OffersQuery)!.properties.compact;
  assert.equal(flag, { type: 'string', enum: ['0', '1'] });
});

test('a rule across fields is stated beside the object; typed data is one recursive definition', () => {
  const o = objectSchemaOf(TurnBody)!;
  assert.equal(o.rules, ['one of fields, spell, argument; with none, argument is the empty record']);
  assert.equal(o.properties.argument, { $ref: '#/$defs/TypedData' });
  assert.ok(o.defs.TypedData, 'the definition');
  const defs = JSON.stringify(o.defs.TypedData);
  assert.match(defs, '"#/$defs/TypedData"', 'typed data holds typed data');
  for (const tag of ['natural', 'label', 'boolean', 'record', 'list', 'variant']) assert.match(defs, `{"const":"${tag}"}`);
  const whole = jsonSchemaOf(TurnBody) as any;
  assert.match(whole.description, 'one of fields, spell, argument');
  assert.ok(jsonSchemaOf(TypedDataC).$defs, 'alone, too');
});

test('unions, lists and codecs of our own without a schema', () => {
  const enter = jsonSchemaOf(EnterBody) as any;
  assert.is(enter.anyOf.length, 3);
  assert.equal(jsonSchemaOf(t.array(t.string)), { type: 'array', items: { type: 'string' } });
  const own = new t.Type<string>('a thing', t.string.is, t.string.validate, t.identity);
  assert.equal(jsonSchemaOf(own), { description: 'a thing' }, 'anything, described: the codec decides');
  assert.is(objectSchemaOf(t.string), undefined);
});

test.run();

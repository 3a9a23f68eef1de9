/**
 * The town's lexicons (namespace `town.world`): the records of each entry kind and the two
 * queries of live values. AT Protocol clients load them to call and check these methods
 * (`agent.lex.add(doc)`); the tests check every reply against them.
 */
import { entryKinds, townNamespace } from './records.js';

const liveValue = {
  type: 'object',
  required: ['kind', 'value'],
  properties: {
    kind: { type: 'string', knownValues: ['card', 'page', 'index', 'answer'] },
    card: { type: 'string', maxLength: 128 },
    view: { type: 'string' },
    value: { type: 'unknown' },
  },
} as const;

const kindParam = { type: 'string', knownValues: ['card', 'page', 'index', 'answer'] } as const;

export const townLexicons = [
  {
    lexicon: 1,
    id: `${townNamespace}.getProjection`,
    defs: {
      main: {
        type: 'query',
        description: "A live value of the world as anyone sees it: a card, a card's page, the index of cards, or a view's answer.",
        parameters: {
          type: 'params',
          required: ['kind'],
          properties: { kind: kindParam, card: { type: 'string' }, view: { type: 'string' }, after: { type: 'string' }, prefix: { type: 'string' } },
        },
        output: { encoding: 'application/json', schema: liveValue },
        errors: [{ name: 'RecordNotFound' }, { name: 'Denied' }],
      },
    },
  },
  {
    lexicon: 1,
    id: `${townNamespace}.listProjections`,
    defs: {
      main: {
        type: 'query',
        description: 'Live values of the public cards in id order, one per card.',
        parameters: {
          type: 'params',
          required: ['kind'],
          properties: {
            kind: kindParam,
            view: { type: 'string' },
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
            cursor: { type: 'string' },
          },
        },
        output: {
          encoding: 'application/json',
          schema: {
            type: 'object',
            required: ['projections'],
            properties: { cursor: { type: 'string' }, projections: { type: 'array', items: liveValue } },
          },
        },
      },
    },
  },
  ...entryKinds.map((kind) => ({
    lexicon: 1,
    id: `${townNamespace}.${kind}`,
    defs: {
      main: {
        type: 'record',
        description: `A ${kind} entry of the town's journal, keyed by its height (12 digits).`,
        key: 'any',
        record: {
          type: 'object',
          required: ['height', 'cid', 'slug', 'createdAt'],
          properties: {
            height: { type: 'integer', minimum: 0 },
            cid: { type: 'string', description: "the entry's content id" },
            slug: { type: 'string' },
            createdAt: { type: 'string', format: 'datetime' },
            sig: { type: 'bytes', description: "ed25519 signature of the content id's text by the did document's #receipts key" },
            sealed: { type: 'boolean', description: 'the card it names is not public: no public part' },
            by: { type: 'string' },
            object: { type: 'string' },
            method: { type: 'string' },
            status: { type: 'string', knownValues: ['done', 'refused'] },
            class: { type: 'string' },
            line: { type: 'string' },
          },
        },
      },
    },
  })),
];

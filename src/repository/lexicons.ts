/**
 * The town's lexicons (namespace `town.world`, and `town.guest.request`, the records of a hosted
 * account): the records of each entry kind, the two
 * queries of live values, and the service calls a service JWT opens (getEntry, act, try). AT Protocol clients load them to call and check these methods
 * (`agent.lex.add(doc)`); the tests check every reply against them.
 */
import { entryKinds, townNamespace } from './records.js';
import { requestLexicon } from './hosted/records.js';

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

/** The service calls (spec 5.6): each needs a service JWT whose `lxm` is its own NSID. */
export const getServiceAuthNsid = 'com.atproto.server.getServiceAuth';
export const getEntryNsid = `${townNamespace}.getEntry`;
export const actNsid = `${townNamespace}.act`;
export const tryNsid = `${townNamespace}.try`;
export const planNsid = `${townNamespace}.plan`;

const serviceErrors = [{ name: 'AuthRequired' }, { name: 'InvalidToken' }, { name: 'RateLimitExceeded' }];

/** A turn reply (spec 2.5), the same as POST /AGENTS.md/world/{object}/{method} answers. */
const turnReply = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'string', knownValues: ['done', 'refused', 'tried', 'nothing'] },
    receipt: { type: 'unknown' },
  },
} as const;

/** The body of act and try: a turn body (spec 4.2) with the object and method it calls. */
const turnInput = {
  encoding: 'application/json',
  schema: {
    type: 'object',
    required: ['object', 'method', 'intent'],
    properties: {
      object: { type: 'string', maxLength: 128 },
      method: { type: 'string' },
      intent: { type: 'string', maxLength: 256, description: 'the same intent twice is one turn' },
      fields: { type: 'unknown' },
      spell: { type: 'string' },
      argument: { type: 'unknown' },
      if: { type: 'unknown' },
    },
  },
} as const;

const kindParam = { type: 'string', knownValues: ['card', 'page', 'index', 'answer'] } as const;

export const townLexicons = [
  // The one collection of a hosted account's repository (hosted/records.ts).
  requestLexicon,
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
  {
    lexicon: 1,
    id: getEntryNsid,
    defs: {
      main: {
        type: 'query',
        description:
          "A receipt of the town's journal, by height or content id, as the token's account may read it. Needs a service JWT with lxm town.world.getEntry.",
        parameters: {
          type: 'params',
          properties: { height: { type: 'integer', minimum: 0 }, cid: { type: 'string' }, full: { type: 'boolean' } },
        },
        output: {
          encoding: 'application/json',
          schema: {
            type: 'object',
            required: ['height'],
            description: 'the receipt as GET /AGENTS.md/receipt/{slug} shows it',
            properties: { height: { type: 'integer', minimum: 0 }, own: { type: 'boolean' }, cid: { type: 'string' } },
          },
        },
        errors: [...serviceErrors, { name: 'RecordNotFound' }, { name: 'AmbiguousSlug' }],
      },
    },
  },
  {
    lexicon: 1,
    id: actNsid,
    defs: {
      main: {
        type: 'procedure',
        description:
          "Casts a turn as the token's account: the same intent rules and receipt as POST /AGENTS.md/world/{object}/{method}. Needs a service JWT with lxm town.world.act.",
        input: turnInput,
        output: { encoding: 'application/json', schema: turnReply },
        errors: serviceErrors,
      },
    },
  },
  {
    lexicon: 1,
    id: tryNsid,
    defs: {
      main: {
        type: 'procedure',
        description: 'A dry run of act: decided as act would be, nothing journaled. Needs a service JWT with lxm town.world.try.',
        input: turnInput,
        output: { encoding: 'application/json', schema: turnReply },
        errors: serviceErrors,
      },
    },
  },
  {
    lexicon: 1,
    id: planNsid,
    defs: {
      main: {
        type: 'procedure',
        description:
          "Several acts in one turn as the token's account, all standing or all falling: the plan spell `plan { <act>; <act> }` cast at the object. Its refusals are badSpell clauses (tooManyActs, notMade, planWaits, notInPlan, codeTwice). Needs a service JWT with lxm town.world.plan.",
        input: {
          encoding: 'application/json',
          schema: {
            type: 'object',
            required: ['object', 'intent', 'acts'],
            properties: {
              object: { type: 'string', maxLength: 128 },
              intent: { type: 'string', maxLength: 256 },
              acts: { type: 'array', minLength: 1, items: { type: 'string' }, description: 'spells, e.g. "make note", "{made 1}: write text=hi"' },
              try: { type: 'boolean' },
              if: { type: 'unknown' },
            },
          },
        },
        output: { encoding: 'application/json', schema: turnReply },
        errors: serviceErrors,
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
  {
    lexicon: 1,
    id: `${townNamespace}.carried`,
    defs: {
      main: {
        type: 'record',
        description:
          "A receipt from before a carry: a pointer into the archive of its epoch, not a signed record (the repository's tree holds none). Answered by getRecord under any of the town's record collections and listed by listRecords of this one, keyed by height (12 digits).",
        key: 'any',
        record: {
          type: 'object',
          required: ['height', 'cid', 'slug', 'carried', 'message'],
          properties: {
            height: { type: 'integer', minimum: 0 },
            cid: { type: 'string', description: "the entry's content id" },
            slug: { type: 'string' },
            carried: {
              type: 'object',
              required: ['archive', 'epoch', 'height', 'cid'],
              properties: {
                archive: { type: 'string', description: "the archive file of the epoch, in the town's archive folder" },
                epoch: { type: 'integer', minimum: 0 },
                height: { type: 'integer', minimum: 0 },
                cid: { type: 'string' },
              },
            },
            message: { type: 'string' },
          },
        },
      },
    },
  },
];

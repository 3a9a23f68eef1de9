/**
 * What a hosted account's repository holds (spec 4.5: "hold only public requests"): records of
 * one collection, `town.guest.request` — a guest's public request about a card of the town, what
 * anyone reading the account's repository may see. Every written record is checked against the
 * collection's lexicon by AT Protocol's own validator (@atproto/lexicon); anything else, or a
 * value AT Protocol's data model cannot hold (a float, say), is `InvalidRequest`.
 */
import type { Lexicons } from '@atproto/lexicon';
import { cidForLex } from '@atproto/lex-cbor';
import { jsonToLex } from '@atproto/lex-json';
import type { LexValue } from '@atproto/lex-data';
import { limits } from '../../contract/limits.js';
import { XrpcFailure } from '../../contract/xrpc-failure.js';

export const requestCollection = 'town.guest.request';
/** The collections a hosted account's repository holds. */
export const hostedCollections: readonly string[] = [requestCollection];

export const requestLexicon = {
  lexicon: 1,
  id: requestCollection,
  defs: {
    main: {
      type: 'record',
      description:
        "A guest's public request about a card of the town, in the guest's own repository (at most " +
        `${limits.hostedAccountRequests} records). Anyone may read it: it holds nothing private.`,
      key: 'any',
      record: {
        type: 'object',
        required: ['object', 'text', 'createdAt'],
        properties: {
          object: { type: 'string', minLength: 1, maxLength: 128, description: 'the card the request is about (its id)' },
          text: { type: 'string', minLength: 1, maxLength: 100_000, description: 'what is asked, in words' },
          method: { type: 'string', maxLength: 128, description: 'the spell the request would have cast, if one' },
          spell: { type: 'string', maxLength: 100_000, description: 'a whole spell, as /AGENTS.md takes it' },
          fields: { type: 'unknown', description: 'the fields of the spell, as a turn body takes them' },
          createdAt: { type: 'string', format: 'datetime' },
        },
      },
    },
  },
} as const;

/**
 * AT Protocol's validator, loaded at the first hosted write: @atproto/lexicon (with zod) is a
 * seventh of what the town would load at start for a route most towns rarely serve.
 */
let validator: Promise<Lexicons> | undefined;
const lexicons = () => (validator ??= import('@atproto/lexicon').then(({ Lexicons }) => new Lexicons([requestLexicon as never])));

/** A card id as spec 2.1 writes it. */
const cardId = /^[A-Za-z0-9._:/-]{1,128}$/;

/**
 * The record to write: its lexicon form with `$type` set (a `$type` naming another collection is
 * refused), and the CID of its DAG-CBOR encoding.
 */
export async function checkedRecord(collection: string, record: unknown): Promise<{ value: Record<string, unknown>; cid: string }> {
  if (!hostedCollections.includes(collection)) {
    throw new XrpcFailure('InvalidRequest', `a hosted account holds only public requests: collection ${requestCollection}, not ${collection.slice(0, 120)}`);
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new XrpcFailure('InvalidRequest', 'record must be an object');
  const given = record as Record<string, unknown>;
  if (given.$type !== undefined && given.$type !== collection) throw new XrpcFailure('InvalidRequest', `record $type must be ${collection}`);
  const value: Record<string, unknown> = { ...given, $type: collection };
  const checker = await lexicons();
  try {
    checker.assertValidRecord(collection, value);
  } catch (error) {
    throw new XrpcFailure('InvalidRequest', `not a ${collection} record: ${(error as Error).message}`);
  }
  if (!cardId.test(value.object as string)) throw new XrpcFailure('InvalidRequest', 'object is a card id: letters, digits and . _ : / -, 1 to 128');
  let lex: LexValue;
  try {
    lex = jsonToLex(value as never);
    return { value, cid: (await cidForLex(lex)).toString() };
  } catch (error) {
    // AT Protocol's data model has no floats and no undefined: such a record has no CID.
    throw new XrpcFailure('InvalidRequest', `the record is not in AT Protocol's data model: ${(error as Error).message}`);
  }
}

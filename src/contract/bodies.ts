/**
 * Bodies and queries of the routes, as the spec (4.1–4.6) gives them. The route table points at
 * these codecs; the machinery decodes every body and query with them before a handler runs, so a
 * handler receives `ctx.state.body` already of the type below (`t.TypeOf<typeof XBody>`).
 */
import * as t from 'io-ts';
import { limits } from './limits.js';
import { TypedDataC, emptyRecord, type TypedData } from './typed.js';
import { checked, fields, openFields, pattern } from './codec.js';

// ---- scalars -------------------------------------------------------------------------------

export const Text = t.string;
export const NonEmptyText = pattern('text (not empty)', /[\s\S]/, 1);
/** Spec 2.1: ASCII letters, digits and `. _ : / -`, 1..128. */
export const ObjectId = pattern(
  `object id (letters, digits, . _ : / -; 1..${limits.cardIdLength[1]})`,
  /^[A-Za-z0-9._:/-]+$/,
  limits.cardIdLength[0],
  limits.cardIdLength[1],
);
/**
 * An intent names one turn forever; bounded so one request cannot store a large name forever.
 * (A lone surrogate never reaches it: the body reader refuses any text holding one.)
 */
export const Intent = pattern('intent (text, 1..256, no control characters)', /^[^\u0000-\u001f\u007f]+$/, 1, 256);
export const ScratchName = pattern('scratch name ([a-z][a-z0-9-]{0,31})', /^[a-z][a-z0-9-]{0,31}$/);
export const WorldRef = pattern('world (`town` or `scratch/<name>`)', /^(town|scratch\/[a-z][a-z0-9-]{0,31})$/);
export const Natural = new t.Type<number, number, unknown>(
  'natural',
  (u): u is number => typeof u === 'number' && Number.isSafeInteger(u) && u >= 0,
  (u, c) => (typeof u === 'number' && Number.isSafeInteger(u) && u >= 0 ? t.success(u) : t.failure(u, c)),
  t.identity,
);
/** A plain JSON object (a form's fields, a seed). */
export const PlainObject = t.UnknownRecord;

/**
 * One module's source. Over the module limit the request is refused `moduleTooLarge` (413), not
 * as malformed; shape.ts recognises this failure by its message.
 */
export const moduleTooLargeMessage = 'moduleTooLarge';
export const ModuleSource = new t.Type<string, string, unknown>(
  `module source (text, at most ${limits.moduleBytes} bytes)`,
  (u): u is string => typeof u === 'string' && Buffer.byteLength(u) <= limits.moduleBytes,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c);
    return Buffer.byteLength(u) <= limits.moduleBytes ? t.success(u) : t.failure(u, c, moduleTooLargeMessage);
  },
  t.identity,
);
export const Module = fields('module', { name: NonEmptyText, source: ModuleSource });
export const Modules = checked(t.array(Module), `at most ${limits.modules} modules`, (ms) =>
  ms.length <= limits.modules ? { ok: true, value: ms } : { ok: false, message: `at most ${limits.modules} modules in one request` },
);

// ---- 4.1 entry -----------------------------------------------------------------------------

export const AcceptBody = fields('accept', { code: Text }, { name: Text });
export type AcceptBody = t.TypeOf<typeof AcceptBody>;

export const ArriveBody = fields('arrive', { name: Text, proof: fields('proof', { challenge: Text, nonce: Text }) });
export type ArriveBody = t.TypeOf<typeof ArriveBody>;

// ---- 4.2 world and turns -------------------------------------------------------------------

const Root = fields('root', { object: ObjectId, version: Natural });

const TurnFields = fields('turn', { intent: Intent }, { fields: PlainObject, spell: Text, argument: TypedDataC, if: t.array(Root), try: t.boolean });
type TurnFields = t.TypeOf<typeof TurnFields>;
export type TurnBody = Omit<TurnFields, 'fields' | 'spell' | 'argument'> &
  (
    | { fields: Record<string, unknown>; spell?: undefined; argument?: undefined }
    | { spell: string; fields?: undefined; argument?: undefined }
    | { argument: TypedData; fields?: undefined; spell?: undefined }
  );
/** One of fields, spell, argument; with none the argument is the empty record (spec 4.2). */
export const TurnBody = checked<TurnFields, TurnBody>(TurnFields, 'one of fields, spell, argument; with none, argument is the empty record', (b) => {
  const given = (['fields', 'spell', 'argument'] as const).filter((k) => b[k] !== undefined);
  if (given.length > 1) return { ok: false, message: `give one of fields, spell, argument (this body gives ${given.join(' and ')})` };
  if (given.length === 0) return { ok: true, value: { ...b, argument: emptyRecord } as TurnBody };
  return { ok: true, value: b as TurnBody };
});

const Flag = t.keyof({ '1': null, '0': null });
const Digits = pattern('natural (digits)', /^(0|[1-9][0-9]{0,15})$/);
const WaitSeconds = pattern(`seconds (0..${limits.offersWaitSeconds})`, /^([0-9]|[12][0-9]|30)$/);

export const WorldQuery = openFields('world query', {}, { after: ObjectId, prefix: Text });
export const FullQuery = openFields('query', {}, { full: Flag });
export const TurnQuery = openFields('turn query', {}, { compact: Flag, full: Flag });
export const ReceiptByIntentQuery = openFields('receipt query', { intent: Intent }, { full: Flag });
export const OffersQuery = openFields('offers query', {}, { after: Digits, compact: Flag, wait: WaitSeconds });

// ---- 4.3 scratch ---------------------------------------------------------------------------

export const ScratchBody = fields('scratch', { name: ScratchName }, { from: fields('from', { world: WorldRef }, { height: Natural }) });
export type ScratchBody = t.TypeOf<typeof ScratchBody>;

export const ScratchObjectsBody = fields(
  'scratch object',
  { object: ObjectId, entry: NonEmptyText, intent: Intent },
  { source: ModuleSource, modules: Modules, law: Text, seed: PlainObject },
);
export type ScratchObjectsBody = t.TypeOf<typeof ScratchObjectsBody>;

const ReplFields = fields(
  'repl',
  { entry: NonEmptyText },
  { source: ModuleSource, arguments: t.array(TypedDataC), fields: PlainObject, argument: TypedDataC, object: ObjectId, intent: Intent },
);
export const ReplBody = checked(ReplFields, 'fields or argument, not both', (b) =>
  b.fields !== undefined && b.argument !== undefined ? { ok: false, message: 'give fields or argument, not both' } : { ok: true, value: b },
);
export type ReplBody = t.TypeOf<typeof ReplBody>;

export const CheckBody = fields('check', {}, { source: ModuleSource, modules: Modules, entry: NonEmptyText });
export type CheckBody = t.TypeOf<typeof CheckBody>;

/** What a cite names: a receipt of the scratch world by its spoken name or its content id. */
export const CitedReceipt = pattern('a receipt of that scratch world: its spoken name (slug) or its content id (cid)', /[\s\S]/, 1);
export const CiteBody = fields('cite', { receipt: CitedReceipt }, { intent: Intent });
export type CiteBody = t.TypeOf<typeof CiteBody>;

// ---- 4.4 feed ------------------------------------------------------------------------------

/** A post's text: something besides white space, at most feedPostChars. */
const FeedText = pattern(`text (1..${limits.feedPostChars}, not only white space)`, /\S/, 1, limits.feedPostChars);
const PostUri = pattern('at:// uri of a feed post', /^at:\/\/\S+$/, 1, 512);
export const FeedPostBody = fields('feed post', { text: FeedText }, { reply_to: PostUri });
export type FeedPostBody = t.TypeOf<typeof FeedPostBody>;
export const FeedQuery = openFields('feed query', {}, { thread: PostUri, before: PostUri });

// ---- 4.6 pages (forms arrive urlencoded; every value is text) -------------------------------

/** Browser forms carry their buttons' names, so form bodies are open. */
export const FeedPageBody = openFields('feed post', { text: FeedText }, { reply_to: Text });
export type FeedPageBody = t.TypeOf<typeof FeedPageBody>;

export const EnterBody = t.union([
  openFields('invitation', { code: Text }, { name: Text }),
  openFields('key', { credential: Text }),
  openFields('arrival', { name: Text, challenge: Text, nonce: Text }),
]);
export type EnterBody = t.TypeOf<typeof EnterBody>;

export const PlayBody = t.union([openFields('reply', { text: Text }), openFields('act', { do: Text }, {}, { 'f.<field>': 'text' })]);
export type PlayBody = t.TypeOf<typeof PlayBody>;

export const PageQuery = openFields('page query', {}, { page: Digits });
export const TownQuery = openFields('town query', {}, { open: ObjectId });
export const LibQuery = openFields('module query', {}, { cid: Text });
export const HistoryQuery = openFields('history query', {}, { day: Digits, from: Digits, to: Digits, page: Digits });
export const MapQuery = openFields('map query', {}, { from: ObjectId, page: Digits });
export const PlayQuery = openFields('play query', {}, { say: Text });
export const LiveObjectQuery = openFields('view query', {}, { v: Digits });
export const LiveQuery = openFields('journal query', {}, { h: Digits });

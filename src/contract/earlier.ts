/**
 * The earlier catalogue shape of spec 9, as data: its limits, the bodies that differ from the
 * current shape's (src/contract/bodies.ts) and its error, refusal and repository tables. A town
 * started with TOWN_CATALOGUE=earlier serves these through the same route table (routes.ts
 * derives the earlier rows from the current ones) and the same kernel.
 */
import * as t from 'io-ts';
import { emptyRecord, TypedDataC } from './typed.js';
import { Intent, Natural, NonEmptyText, ObjectId, PlainObject, Text, moduleTooLargeMessage } from './bodies.js';
import { checked, fields } from './codec.js';
import { earlierOnlyErrorClasses, errorClasses, xrpcErrors } from './errors.js';
import { limits, limitTable } from './limits.js';

export const earlierLimits = {
  bodyBytes: 65536,
  moduleBytes: 16384,
  modules: 16,
  challengeLifetimeSeconds: 15 * 60,
} as const;

/** The failure message by which shape.ts knows a `modules` that is not a list of at most 16 objects. */
export const badModulesMessage = 'badModules';

/** One module's source, at most the earlier 16384 bytes (over: moduleTooLarge). */
const EarlierModuleSource = new t.Type<string, string, unknown>(
  `module source (text, at most ${earlierLimits.moduleBytes} bytes)`,
  (u): u is string => typeof u === 'string' && Buffer.byteLength(u) <= earlierLimits.moduleBytes,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c);
    return Buffer.byteLength(u) <= earlierLimits.moduleBytes ? t.success(u) : t.failure(u, c, moduleTooLargeMessage);
  },
  t.identity,
);
const EarlierModule = fields('module', { name: NonEmptyText, source: EarlierModuleSource });
type EarlierModule = t.TypeOf<typeof EarlierModule>;

const isObject = (u: unknown) => typeof u === 'object' && u !== null && !Array.isArray(u);

/** `modules`: a list of at most 16 objects, else `badModules` (400); each then a {name, source}. */
export const EarlierModules = new t.Type<EarlierModule[], EarlierModule[], unknown>(
  `[module] (at most ${earlierLimits.modules})`,
  (u): u is EarlierModule[] => Array.isArray(u) && u.length <= earlierLimits.modules && u.every((m) => EarlierModule.is(m)),
  (u, c) => {
    if (!Array.isArray(u) || u.length > earlierLimits.modules || !u.every(isObject)) return t.failure(u, c, badModulesMessage);
    return t.array(EarlierModule).validate(u, c);
  },
  t.identity,
);

/** The earlier turn body: intent, fields, spell, argument only (no `if`, no `try`). */
const EarlierTurnFields = fields('turn', { intent: Intent }, { fields: PlainObject, spell: Text, argument: TypedDataC });
export const EarlierTurnBody = checked(EarlierTurnFields, 'one of fields, spell, argument; with none, argument is the empty record', (b) => {
  const given = (['fields', 'spell', 'argument'] as const).filter((k) => b[k] !== undefined);
  if (given.length > 1) return { ok: false, message: `give one of fields, spell, argument (this body gives ${given.join(' and ')})` };
  if (given.length === 0) return { ok: true, value: { ...b, argument: emptyRecord } };
  return { ok: true, value: b };
});

/** POST /AGENTS.md/challenge: the handle to prove (a guest name, or `<name>.<host>`). */
export const ChallengeBody = fields('challenge', { handle: Text });
/** POST /AGENTS.md/verify: the handle and the at:// URI of the post that says the challenge. */
export const VerifyBody = fields('verify', { handle: Text, uri: Text });
/** POST /AGENTS.md/challenge/post: the challenge text, posted to the town's feed. */
export const ChallengePostBody = fields('challenge post', { text: Text });

/** POST /AGENTS.md/heap/objects: a card in the caller's heap. */
export const HeapObjectsBody = fields(
  'heap object',
  { object: ObjectId, entry: NonEmptyText, intent: Intent },
  { source: EarlierModuleSource, modules: EarlierModules, law: Text, seed: PlainObject },
);

const ReplLimits = fields('limits', {}, { ticks: Natural, heap: Natural, bytes: Natural });
const ReplRoot = fields('root', { object: ObjectId, version: Natural });
const EarlierReplFields = fields(
  'repl',
  {},
  {
    arguments: t.array(TypedDataC),
    checkpoint: NonEmptyText,
    entry: NonEmptyText,
    intent: Intent,
    limits: ReplLimits,
    modules: EarlierModules,
    object: ObjectId,
    /** The reply to a plan: typed data, or a form's fields as a plain object. */
    response: PlainObject,
    roots: t.array(ReplRoot),
    source: EarlierModuleSource,
  },
);
/**
 * POST /AGENTS.md/repl (earlier): an entry to compile and run, or a checkpoint to resume with a
 * response (src/http/handlers/earlier.ts).
 */
export const EarlierReplBody = checked(EarlierReplFields, 'entry, or checkpoint and response; not both', (b) => {
  if (b.checkpoint !== undefined) {
    if (b.response === undefined) return { ok: false, message: 'a checkpoint is resumed with a response' };
    for (const k of ['entry', 'source', 'modules', 'arguments', 'object'] as const)
      if (b[k] !== undefined) return { ok: false, message: `a checkpoint names its entry and object already; send no ${k} with it` };
    return { ok: true, value: b };
  }
  if (b.entry === undefined) return { ok: false, message: 'give an entry to run, or a checkpoint and a response to resume' };
  if (b.response !== undefined) return { ok: false, message: 'a response answers a checkpoint; send the checkpoint with it' };
  return { ok: true, value: b };
});
export type EarlierReplBody = t.TypeOf<typeof EarlierReplBody>;

/** POST /AGENTS.md/check (earlier): {entry, modules, source}. */
export const EarlierCheckBody = fields('check', {}, { source: EarlierModuleSource, modules: EarlierModules, entry: NonEmptyText });

/** The earlier shape's HTTP errors: the current table with its own limits, and `badModules`. */
export const earlierErrorClasses = {
  ...errorClasses,
  ...earlierOnlyErrorClasses,
  bodyTooLarge: { http: 413, status: 'error', when: `body over ${earlierLimits.bodyBytes} bytes` },
  identity: { http: 400, status: 'error', when: 'a challenge or verification failed; `message` is the reason' },
  moduleTooLarge: { http: 413, status: 'error', when: `a module sent is over ${earlierLimits.moduleBytes} bytes` },
  requestTimeout: { http: 408, status: 'error', when: `the whole request did not arrive within ${limits.requestSeconds} seconds` },
} as const;

/** Repository errors of the earlier shape: a read-only ledger. */
const { AuthRequired: _a, InvalidSwap: _b, RecordAlreadyExists: _c, RepoFull: _d, UpgradeRequired: _e, ...earlierXrpc } = xrpcErrors;
export const earlierXrpcErrors = earlierXrpc;

/** `badSpell` clauses of the earlier shape; the kernel's others are answered `unclear`. */
export const earlierBadSpellClauses = ['otherCard', 'noAction', 'unknownField', 'duplicateField', 'badValue', 'unclosedBlock', 'unclear'] as const;

/** Refusal classes the earlier shape does not have, and what they are answered as (docs/decisions/earlier-catalogue-shape.md). */
export const earlierRefusalAs = { cardRefused: 'lawRefused', quiet: 'quota', moved: 'staleRoot' } as const;

/** Repository errors the earlier shape lacks, answered as the nearest it has. */
export const earlierXrpcAs = { AuthRequired: 'InvalidToken', UpgradeRequired: 'MethodNotImplemented' } as const;

/** What the earlier shape says otherwise of a limit both shapes have (spec 9, "Limits"). */
const earlierSays: Record<string, { value?: unknown; appliesTo?: string }> = {
  bodyBytes: { value: earlierLimits.bodyBytes, appliesTo: 'request body' },
  moduleBytes: { value: earlierLimits.moduleBytes },
  modules: { value: earlierLimits.modules, appliesTo: 'modules in one request (`badModules` when `modules` is not a list of at most 16 objects)' },
  ratePerAddressOnChallengeAndVerify: { appliesTo: '`challenge`, `challenge/post` and `verify`, per address' },
  challengeLifetime: { value: '15 minutes', appliesTo: 'a handle challenge: post it and verify within' },
  guestNameLength: { appliesTo: 'name (a handle is <name>.<host>)' },
};

/**
 * The limits as the earlier catalogue shows them: the current table's rows the earlier shape has
 * (no hosted writes, workers, page rate, arrival or scratch limits), in its order, as it says them.
 */
export const earlierLimitTable: { name: string; value: unknown; appliesTo: string }[] = [
  'bodyBytes',
  'bodyDepth',
  'moduleBytes',
  'modules',
  'deliverPerCall',
  'idsPerPage',
  'offersWaitSeconds',
  'headerLineBytes',
  'headers',
  'requestLineBytes',
  'replyBytes',
  'requestSeconds',
  'hostSeconds',
  'ratePerCredential',
  'ratePerAddressOnChallengeAndVerify',
  'ratePerAddressOnXrpcWithoutCredential',
  'challengeLifetime',
  'cardLines',
  'cardIdLength',
  'guestNameLength',
].map((name) => {
  const row = limitTable.find((r) => r.name === name);
  if (!row) throw new Error(`the limit table has no ${name}`);
  return { ...row, ...earlierSays[name] };
});

/**
 * Sections 7.1, 7.2 and 7.3 of the spec as data. The envelope builder, the refusal builder and
 * the catalogue all read these tables.
 */

export const errorClasses = {
  ambiguous: { http: 409, status: 'refused', when: 'a spoken name names more than one receipt' },
  badJson: { http: 400, status: 'error', when: 'body not a JSON object, or nested deeper than 256' },
  badRequest: { http: 400, status: 'error', when: 'malformed request line or header, or Content-Length not a number' },
  bodyTooLarge: { http: 413, status: 'error', when: 'body over 262144 bytes (65536 for the unauthenticated arrival/identity calls)' },
  busy: { http: 503, status: 'error', when: 'every worker taken; `Retry-After` says when' },
  denied: { http: 403, status: 'refused', when: 'the host says the caller may not read it' },
  headersTooLarge: { http: 431, status: 'error', when: 'a header line over 65536 bytes, or over 100 headers' },
  hostRequest: {
    http: 400,
    status: 'error',
    when: "the host refused the request as malformed; message (and a compile error's stage, module, span, hint) are the host's",
  },
  hostTimeout: {
    http: 504,
    status: 'error',
    when: 'the host took the request and did not answer in time; a turn may still have committed, so resend the same intent',
  },
  hostUnavailable: { http: 503, status: 'error', when: 'the host is not answering connections' },
  httpVersion: { http: 505, status: 'error', when: 'HTTP version is not 1.0 or 1.1' },
  identity: {
    http: 400,
    status: 'error',
    when: 'a challenge, verification or invitation failed; `message` is the reason (an invitation also names it in `reason`)',
  },
  internal: { http: 500, status: 'error', when: 'the front failed; nothing was decided' },
  methodNotAllowed: { http: 405, status: 'error', when: 'the route takes another method; `Allow` names it' },
  moduleTooLarge: { http: 413, status: 'error', when: 'a module sent is over 131072 bytes (inside the body limit; the library is not sent)' },
  notImplemented: { http: 501, status: 'error', when: 'an HTTP method no route takes' },
  rateLimited: { http: 429, status: 'error', when: 'over a rate limit; `Retry-After` says when' },
  replyTooLarge: { http: 502, status: 'error', when: 'reply would exceed 8388608 bytes; ask for less (compact, a page)' },
  requestTimeout: { http: 408, status: 'error', when: 'request line, headers and body did not all arrive within 30 seconds of connecting' },
  unauthenticated: { http: 401, status: 'error', when: 'credential missing, unverified or revoked' },
  unknown: { http: 404, status: 'refused', when: 'no card by that name that the caller may see' },
  unknownRoute: { http: 404, status: 'error', when: 'no such route' },
  unspellable: { http: 400, status: 'error', when: 'the object name is one no spell can address' },
  uriTooLong: { http: 414, status: 'error', when: 'request line over 65536 bytes' },
} as const;

/**
 * Classes only the earlier catalogue shape has (spec 9; src/contract/earlier.ts): thrown by its
 * codecs, shown only in its catalogue.
 */
export const earlierOnlyErrorClasses = {
  badModules: { http: 400, status: 'error', when: '`modules` is not a list of at most 16 objects' },
} as const;

export type ErrorClass = keyof typeof errorClasses | keyof typeof earlierOnlyErrorClasses;

/** The row of any class a TownError may name. */
export function errorClassOf(cls: ErrorClass): { http: number; status: string; when: string } {
  return cls in errorClasses ? errorClasses[cls as keyof typeof errorClasses] : earlierOnlyErrorClasses[cls as keyof typeof earlierOnlyErrorClasses];
}

export type HintKind = 'receipt' | 'source' | 'self' | 'world';

export const refusalClasses = {
  absentItem: { transient: false, hint: 'self', meaning: 'a list edit named an item not present' },
  badSpell: {
    transient: false,
    hint: 'source',
    meaning: 'the reply is not a spell the card hears; `clause` names which rule, `reason` says why; `hint` is the spell with blanks to resend',
  },
  budget: { transient: true, hint: 'receipt', meaning: 'the turn ran out of ticks, heap or bytes; `reason` names which' },
  budgetExhausted: { transient: false, hint: 'receipt', meaning: 'a run of sends spent its allowance (`depth`, `work` or `storage`)' },
  capacity: { transient: true, hint: 'world', meaning: 'a host limit is full; `reason` or `object` names it' },
  cardRefused: {
    transient: false,
    hint: 'source',
    meaning: 'the card refused by its own rules; `object`, `clause`, `reading`; `reason` reads `refused <clause>: <reading>`',
  },
  duplicateIdentity: {
    transient: false,
    hint: 'receipt',
    meaning:
      'the intent was already used for another request; `original` is the first receipt, `reason` names its entry and object; resend under a fresh intent',
  },
  duplicateKey: { transient: false, hint: 'self', meaning: 'the write names one key twice' },
  evaluation: { transient: true, hint: 'source', meaning: 'host or kernel could not run the turn (malformed plan, call too deep); `reason` says which' },
  keyTaken: { transient: false, hint: 'self', meaning: "a row's key is held by another row; upsert or add an ordinal" },
  lawRefused: {
    transient: false,
    hint: 'source',
    meaning: "the card's law refused the change; `clause` names the line; `reason` reads `refused <clause>: <reading>`",
  },
  moved: {
    transient: false,
    // `object` names the root that moved: its card is where to read the version now.
    hint: 'self',
    meaning: "an act's `if` named a root that has since moved; nothing ran, nothing journaled; read again and resend with new roots",
  },
  noMethod: { transient: false, hint: 'source', meaning: 'the card offers no such method' },
  programRefused: {
    transient: false,
    hint: 'source',
    meaning: "a reprogram's package refused at `clause`: packageBytes, compile, stateType, migration or law syntax",
  },
  quiet: {
    transient: true,
    hint: 'world',
    meaning: "the world's opener quieted this principal; `clause` names the clock until which, `reason` the opener's reading, `next` the clock to retry",
  },
  quota: {
    transient: true,
    hint: 'self',
    meaning: 'the interpreter has read its share this hour; `next` is the clock to retry; reply with the spell itself, or wait',
  },
  requiredAbsence: { transient: false, hint: 'world', meaning: 'a `create` found the card already present; `root` names who found it' },
  staleRoot: { transient: true, hint: 'world', meaning: 'something the turn read moved while it wrote; resend the same turn' },
  typeMismatch: { transient: false, hint: 'source', meaning: 'argument is not what the method takes; `expected` shows the form' },
  unknownObject: { transient: false, hint: 'world', meaning: 'no such card, or not visible to the caller' },
} as const satisfies Record<string, { transient: boolean; hint: HintKind; meaning: string }>;
export type RefusalClass = keyof typeof refusalClasses;

/** The clauses of `badSpell` (7.2), in the spec's order. */
export const badSpellClauses = [
  'otherCard',
  'noAction',
  'noAvatar',
  'unknownField',
  'duplicateField',
  'missingField',
  'badValue',
  'fixed',
  'unclosedBlock',
  'quotation',
  'tooManySpells',
  'unknownKind',
  'unknownLaw',
  'noLaw',
  'lawClash',
  'notYours',
  'opener',
  'tooManyActs',
  'hole',
  'planWaits',
  'notInPlan',
  'notMade',
  'codeTwice',
] as const;
export type BadSpellClause = (typeof badSpellClauses)[number];

export const xrpcErrors = {
  AmbiguousSlug: { http: 400, when: 'spoken name names more than one receipt; use the content id' },
  AuthRequired: { http: 401, when: 'service calls need a service-auth token; hosted writes need the invitation credential' },
  Denied: { http: 403, when: 'the host says the caller may not read it' },
  HandleNotFound: { http: 400, when: 'this server resolves one handle' },
  HostTimeout: { http: 504, when: 'the host did not answer in time' },
  HostUnavailable: { http: 503, when: 'the host is not answering' },
  InvalidRequest: { http: 400, when: 'a parameter, or a write' },
  InvalidSwap: { http: 400, when: 'swapCommit or swapRecord differs from the current hosted head or value' },
  InvalidToken: { http: 401, when: 'unverified or revoked credential, or a malformed, expired, replayed, mismatched or unverifiable service JWT' },
  MethodNotImplemented: { http: 501, when: 'not served here' },
  RateLimitExceeded: { http: 429, when: 'over the rate limit, or service-auth nonce custody is full until an expiry; `Retry-After` gives seconds' },
  RecordAlreadyExists: { http: 400, when: 'createRecord names an existing request key; use putRecord' },
  RecordNotFound: { http: 400, when: 'the host knows no such record' },
  RepoFull: { http: 400, when: 'a hosted account holds 256 requests; delete one first' },
  RepoNotFound: { http: 400, when: 'this world or hosted account does not serve the requested repository or host' },
  RepoNotServed: { http: 400, when: 'no signing key on this box: no tree, no signed commit' },
  UpgradeRequired: { http: 426, when: 'subscribeRepos requires WebSocket on the configured firehose listener' },
} as const;
export type XrpcError = keyof typeof xrpcErrors;

/** Reasons of the `identity` class (4.1). */
export const acceptReasons = [
  'invalid_guest_name',
  'invitation_expired',
  'invitation_revoked',
  'invitation_spent',
  'invitation_unknown',
  'name_fixed',
  'name_required',
  'taken',
] as const;
export const arriveReasons = ['invalid_guest_name', 'proof_expired', 'proof_invalid', 'proof_short', 'proof_spent', 'taken'] as const;

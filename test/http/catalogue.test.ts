/**
 * The catalogue against the route table and against the spec's own tables (sections 7 and 8,
 * copied here from the spec so that a drift in src/contract is caught too).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hrefTemplate, type Route, routes, routesFor, scratchRoutes } from '../../src/http/routes.js';
import { config, startTown, type Town } from './helpers.js';

/** Spec 7.1: class -> [HTTP, status]. */
const spec71: Record<string, [number, string]> = {
  ambiguous: [409, 'refused'],
  badJson: [400, 'error'],
  badRequest: [400, 'error'],
  bodyTooLarge: [413, 'error'],
  busy: [503, 'error'],
  denied: [403, 'refused'],
  headersTooLarge: [431, 'error'],
  hostRequest: [400, 'error'],
  hostTimeout: [504, 'error'],
  hostUnavailable: [503, 'error'],
  httpVersion: [505, 'error'],
  identity: [400, 'error'],
  internal: [500, 'error'],
  methodNotAllowed: [405, 'error'],
  moduleTooLarge: [413, 'error'],
  notImplemented: [501, 'error'],
  rateLimited: [429, 'error'],
  replyTooLarge: [502, 'error'],
  requestTimeout: [408, 'error'],
  unauthenticated: [401, 'error'],
  unknown: [404, 'refused'],
  unknownRoute: [404, 'error'],
  unspellable: [400, 'error'],
  uriTooLong: [414, 'error'],
};
/** Spec 7.2: class -> transient. */
const spec72: Record<string, boolean> = {
  absentItem: false,
  badSpell: false,
  budget: true,
  budgetExhausted: false,
  capacity: true,
  cardRefused: false,
  duplicateIdentity: false,
  duplicateKey: false,
  evaluation: true,
  keyTaken: false,
  lawRefused: false,
  moved: false,
  noMethod: false,
  programRefused: false,
  quiet: true,
  quota: true,
  requiredAbsence: false,
  staleRoot: true,
  typeMismatch: false,
  unknownObject: false,
};
const badSpellClauses =
  'otherCard, noAction, noAvatar, unknownField, duplicateField, missingField, badValue, fixed, unclosedBlock, quotation, tooManySpells, unknownKind, unknownLaw, noLaw, lawClash, notYours, opener, tooManyActs, hole, planWaits, notInPlan, notMade, codeTwice'.split(
    ', ',
  );
/** Spec 7.3: name -> HTTP. */
const spec73: Record<string, number> = {
  AmbiguousSlug: 400,
  AuthRequired: 401,
  Denied: 403,
  HandleNotFound: 400,
  HostTimeout: 504,
  HostUnavailable: 503,
  InvalidRequest: 400,
  InvalidSwap: 400,
  InvalidToken: 401,
  MethodNotImplemented: 501,
  RateLimitExceeded: 429,
  RecordAlreadyExists: 400,
  RecordNotFound: 400,
  RepoFull: 400,
  RepoNotFound: 400,
  RepoNotServed: 400,
  UpgradeRequired: 426,
};
/** Spec 8, every row: name -> value as the catalogue gives it. */
const spec8: Record<string, unknown> = {
  bodyBytes: 262144,
  bodyDepth: 256,
  hostedWriteBodyBytes: 397312,
  moduleBytes: 131072,
  modules: 64,
  deliverPerCall: 16,
  idsPerPage: 64,
  offersWaitSeconds: 30,
  headerLineBytes: 65536,
  headers: 100,
  requestLineBytes: 65536,
  replyBytes: 8388608,
  requestSeconds: 30,
  hostSeconds: 150,
  workers: 48,
  ratePerCredential: [32, 60],
  ratePerAddressOnChallengeAndVerify: [16, 60],
  ratePerAddressOnPagesWithoutLogin: [32, 60],
  ratePerAddressOnXrpcWithoutCredential: [32, 60],
  arrivalBits: 18,
  arrivalPerAddress: '30 per hour',
  arrivalInAll: '300 per hour',
  challengeLifetime: '10 minutes',
  nonceLength: '1 to 64 printable ASCII characters',
  scratchWorlds: '2 open at once',
  scratchLifetime: '6 hours of home-world clock after the last turn',
  cardLines: 'newest 8',
  receiptsOnCardPage: 'last 20',
  liveStreams: 'held 55 s; at most 16 at once',
  playWait: "up to 30 s for a waiting turn's offer",
  hostedAccountRequests: 256,
  cardIdLength: [1, 128],
  guestNameLength: [1, 32],
};
/** The route names other rooms code against. */
const names =
  'guide api examples doc accept arriveChallenge arrive world object card source turn receipt receiptByIntent offers pending deliver scratch scratchClose scratchObjects repl check cite me revoke feed feedPost xrpc xrpcProcedure didDocument guestDidDocument home feedPage feedPagePost enterPage enter leavePage leave cardPage book town inspect kinds library libraryPage lib libModule history map play playHome playPost receiptPage style static liveObject live llmsTxt mcp mcpStream mcpEnd health ready metrics favicon'.split(
    ' ',
  );
const scratchTails = ['world', 'object', 'card', 'source', 'turn', 'receipt', 'receiptByIntent', 'offers', 'pending', 'deliver'];

/** The operator's rows (/metrics): in the table, not in the agents' catalogue. */
const operatorRoutes = (routes as readonly Route[]).filter((r) => r.operator).length;

let open: Town;
let invited: Town;
let catalogue: any;
test.before(async () => {
  open = await startTown({ handlers: { me: async () => ({}), scratch: async () => ({}) } });
  invited = await startTown({ config: config(false) });
  catalogue = await (await fetch(`${open.base}/AGENTS.md/api`)).json();
});
test.after(async () => {
  await open.close();
  await invited.close();
});

test('the catalogue has exactly the fields of spec 4.1', () => {
  assert.equal(Object.keys(catalogue).sort(), [
    '_links',
    'arrival',
    'conventions',
    'envelope',
    'errors',
    'limits',
    'origin',
    'refusals',
    'routes',
    'status',
    'xrpcErrors',
  ]);
  assert.is(catalogue.status, 'catalogue');
  assert.is(catalogue.origin, 'http://town.test');
  assert.equal(catalogue._links.self, { href: '/AGENTS.md/api' });
  assert.equal(catalogue._links.api, { href: '/AGENTS.md/api' });
});

test('the route table has every route name, once', () => {
  assert.equal(routes.map((r) => r.name).sort(), [...names].sort());
  assert.equal(scratchRoutes.map((r) => r.base).sort(), [...scratchTails].sort());
});

test('the catalogue lists every route of the table, with auth, does, href, method, name', () => {
  const listed = new Map<string, any>(catalogue.routes.map((r: any) => [r.name, r]));
  for (const r of routes as readonly Route[]) {
    const c = listed.get(r.name);
    if (r.operator) {
      assert.not.ok(c, `${r.name} is the operator's, not listed`);
      continue;
    }
    assert.ok(c, `${r.name} is listed`);
    assert.equal([c.method, c.href, c.auth, c.does], [r.method, hrefTemplate(r), r.auth, r.does]);
    for (const k of Object.keys(c)) assert.ok(['name', 'method', 'href', 'auth', 'does', 'body', 'query', 'reasons', 'scratch', 'built'].includes(k), k);
    assert.is(c.body !== undefined, r.body !== undefined, `${r.name} body`);
    assert.is(c.query !== undefined, r.query !== undefined, `${r.name} query`);
  }
  assert.is(catalogue.routes.length, routes.length - operatorRoutes);
});

test('no scratch tail is advertised while scratch worlds cannot be opened', async () => {
  const bare = await (await fetch(`${invited.base}/AGENTS.md/api`)).json();
  assert.equal(
    bare.routes.filter((r: any) => r.scratch),
    [],
  );
});

test('scratch routes carry their scratch path (spec 4.3)', () => {
  const withScratch = catalogue.routes.filter((r: any) => r.scratch).map((r: any) => [r.name, r.scratch]);
  assert.equal(Object.fromEntries(withScratch), {
    world: '/AGENTS.md/scratch/{name}/world',
    object: '/AGENTS.md/scratch/{name}/world/{object}',
    card: '/AGENTS.md/scratch/{name}/world/{object}/card',
    source: '/AGENTS.md/scratch/{name}/world/{object}/source',
    turn: '/AGENTS.md/scratch/{name}/world/{object}/{method}',
    receipt: '/AGENTS.md/scratch/{name}/receipt/{slug}',
    receiptByIntent: '/AGENTS.md/scratch/{name}/receipt?intent={intent}',
    offers: '/AGENTS.md/scratch/{name}/offers',
    pending: '/AGENTS.md/scratch/{name}/pending',
    deliver: '/AGENTS.md/scratch/{name}/deliver',
  });
});

test('bodies and queries are rendered from the codecs', () => {
  const by = (n: string) => catalogue.routes.find((r: any) => r.name === n);
  assert.equal(by('accept').body, { code: 'text', 'name?': 'text' });
  assert.equal(by('arrive').body, { name: 'text', proof: { challenge: 'text', nonce: 'text' } });
  const turn = by('turn').body;
  assert.equal(Object.keys(turn), ['intent', 'fields?', 'spell?', 'argument?', 'if?', 'try?']);
  assert.is(turn['argument?'], 'typed data');
  assert.equal(turn['if?'], [{ object: turn['if?'][0].object, version: 'natural' }]);
  assert.equal(by('scratch').body['from?'], { world: 'world (`town` or `scratch/<name>`)', 'height?': 'natural' });
  assert.equal(by('feedPost').body, { text: 'text (1..3000, not only white space)', 'reply_to?': 'at:// uri of a feed post' });
  assert.equal(Object.keys(by('enter').body), ['one of']);
  assert.equal(by('source').query, { 'full?': 'one of 0, 1' });
  assert.equal(by('receiptByIntent').href, '/AGENTS.md/receipt?intent={intent}');
  assert.equal(by('accept').reasons, [
    'invalid_guest_name',
    'invitation_expired',
    'invitation_revoked',
    'invitation_spent',
    'invitation_unknown',
    'name_fixed',
    'name_required',
    'taken',
  ]);
  assert.equal(by('arrive').reasons, ['invalid_guest_name', 'proof_expired', 'proof_invalid', 'proof_short', 'proof_spent', 'taken']);
});

test('routes with no handler are marked built: false; built ones are not', () => {
  const by = (n: string) => catalogue.routes.find((r: any) => r.name === n);
  assert.is(by('me').built, undefined);
  assert.is(by('api').built, undefined);
  assert.is(by('turn').built, false);
});

test('every class of spec 7.1 with its HTTP status, status and when', () => {
  assert.equal(Object.keys(catalogue.errors).sort(), Object.keys(spec71).sort());
  for (const [cls, [http, status]] of Object.entries(spec71)) {
    assert.equal([catalogue.errors[cls].http, catalogue.errors[cls].status], [http, status], cls);
    assert.type(catalogue.errors[cls].when, 'string');
  }
});

test('every refusal of spec 7.2 with transient and hint kind, and the badSpell clauses', () => {
  assert.equal(Object.keys(catalogue.refusals).sort(), Object.keys(spec72).sort());
  for (const [cls, transient] of Object.entries(spec72)) {
    assert.is(catalogue.refusals[cls].transient, transient, cls);
    assert.ok(['receipt', 'source', 'self', 'world'].includes(catalogue.refusals[cls].hint), cls);
  }
  assert.equal(catalogue.refusals.badSpell.clauses, badSpellClauses);
});

test('every repository error of spec 7.3 with its HTTP status', () => {
  assert.equal(Object.keys(catalogue.xrpcErrors).sort(), Object.keys(spec73).sort());
  for (const [name, http] of Object.entries(spec73)) assert.is(catalogue.xrpcErrors[name].http, http, name);
});

/** The values spec 8 leaves "not shown", as we chose them (docs/decisions/catalogue-guide-and-examples.md). */
const ours: Record<string, unknown> = {
  feedQuota: '20 per hour',
  feedPostChars: 3000,
  ratePerSessionOnPages: [300, 60],
  ratePerAddressOnPagesWithLogin: [1200, 60],
  liveStreamsPerSession: '4 of the 16',
  liveStreamsPerAddress: '8 of the 16',
};

test('every limit of spec 8 with the spec value, and the ones it leaves to us', () => {
  assert.equal(Object.keys(catalogue.limits).sort(), Object.keys({ ...spec8, ...ours }).sort());
  for (const [name, value] of Object.entries({ ...spec8, ...ours })) assert.equal(catalogue.limits[name].value, value, name);
});

test('the envelope and the arrival', () => {
  assert.equal(Object.keys(catalogue.envelope), ['status', 'class', 'message', 'hint', '_links', 'extra']);
  const a = catalogue.arrival;
  assert.equal([a.open, a.bits, a.lifetime, a.perAddressPerHour, a.inAllPerHour], [true, 18, '10 minutes', 30, 300]);
  assert.match(a.rule, '<challenge>:<name>:<nonce>');
});

test('GET /AGENTS.md with Accept: application/json is the catalogue; otherwise the guide', async () => {
  const j = await fetch(`${open.base}/AGENTS.md`, { headers: { Accept: 'application/json' } });
  const body = await j.json();
  assert.equal(body._links.self, { href: '/AGENTS.md' });
  assert.equal({ ...body, _links: undefined }, { ...catalogue, _links: undefined });
  const g = await fetch(`${open.base}/AGENTS.md`);
  assert.match(g.headers.get('content-type') ?? '', 'text/plain');
  const text = await g.text();
  for (const must of [
    '/AGENTS.md/api',
    '/AGENTS.md/accept',
    '/AGENTS.md/arrive',
    'Authorization: Bearer',
    'intent',
    '/AGENTS.md/receipt',
    '_actions',
    'refused',
    'Retry-After',
    'sha256',
  ]) {
    assert.match(text, must);
  }
});

test('an invited town lists no arrive routes and says it is not open', async () => {
  const c = await (await fetch(`${invited.base}/AGENTS.md/api`)).json();
  const listed = c.routes.map((r: any) => r.name);
  assert.not.ok(listed.includes('arrive'));
  assert.not.ok(listed.includes('arriveChallenge'));
  assert.is(listed.length, routes.length - 2 - operatorRoutes);
  assert.is(c.arrival.open, false);
  const guide = await (await fetch(`${invited.base}/AGENTS.md`)).text();
  assert.not.match(guide, 'createHash');
});

test('the guide promises only what is built: scratch and the feed as the town serves them', async () => {
  const withScratch = await (await fetch(`${open.base}/AGENTS.md`)).text();
  assert.match(withScratch, 'Every world route also runs under');
  assert.match(withScratch, 'is not built yet\neither (501)', 'this town serves no feed');
  const without = await (await fetch(`${invited.base}/AGENTS.md`)).text();
  assert.match(without, 'are not built on this town yet: their\nroutes answer 501');
  assert.not.match(without, 'Every world route also runs under');
});

test('no two routes answer the same request (each sample path reaches one route only)', () => {
  const table = routesFor(true);
  const sample = (path: string) => path.replace(/:([A-Za-z_]+)/g, 'x');
  for (const r of table) {
    const p = sample(r.path);
    const matching = table.filter(
      (o) => o.method === r.method && new RegExp(`^${o.path.replace(/[.]/g, '\\.').replace(/:([A-Za-z_]+)/g, '[^/]+')}/?$`).test(p),
    );
    assert.equal(
      matching.map((m) => m.name),
      [r.name],
      `${r.method} ${p}`,
    );
  }
});

test.run();

/**
 * THE route table: every route of spec 4.1–4.6 declared once. The koa router (app.ts) and the
 * catalogue (catalogue.ts) are both generated from it, so what the catalogue lists is exactly
 * what the front answers. Rooms plug in by handler name (handler.ts); a route with no handler
 * answers 501 and the catalogue marks it `built: false`.
 *
 * Both catalogue shapes of spec 9 are served from it (`routesFor(open, shape)`): rows say which
 * shapes they belong to, and the earlier shape's own rows follow the current ones. Over 500
 * lines because it is the one table, read as a whole.
 */
import type * as t from 'io-ts';
import { acceptReasons, arriveReasons } from '../contract/errors.js';
import { limits } from '../contract/limits.js';
import * as b from '../contract/bodies.js';
import { FieldsType } from '../contract/codec.js';
import * as earlier from '../contract/earlier.js';

/**
 * The documents an agent may need beyond the guide, served at /AGENTS.md/docs/{name} from the
 * project's docs/ directory; the catalogue cites them by that path and no other.
 */
export const agentDocs = ['service-auth.md', 'hosted-records.md'] as const;
/** Where the catalogue and the guide cite a document. */
export const docHref = (name: (typeof agentDocs)[number]) => `/AGENTS.md/docs/${name}`;

export type Auth = 'none' | 'bearer' | 'cookie' | 'optional';
/**
 * Which rate budget of spec 8 a call spends (front/rate.ts). `credential`: per credential [32,60]
 * (any call made with a verified credential spends it, but a page's). `identity`: unauthenticated
 * identity calls, per address [16,60]. `page`: pages and live streams: without login per address
 * [32,60], signed in per session and per address (ratePerSessionOnPages,
 * ratePerAddressOnPagesWithLogin). `xrpc`: /xrpc without credential, per address [32,60].
 * `none`: documents every agent must be able to read (guide, catalogue, assets, health) are not
 * limited.
 */
export type RateClass = 'credential' | 'identity' | 'page' | 'xrpc' | 'none';
/** What a reply is; errors on `html` routes are pages, on `xrpc` routes AT Protocol errors. */
export type Reply = 'json' | 'text' | 'html' | 'sse' | 'xrpc';

export interface Route {
  name: string;
  /**
   * DELETE ends something the caller holds (a scratch world, an MCP session). On a path that
   * takes other methods only, app.ts answers it 405 naming them.
   */
  method: 'GET' | 'POST' | 'DELETE';
  /** koa-router syntax, e.g. `/AGENTS.md/world/:object`. */
  path: string;
  auth: Auth;
  does: string;
  reply: Reply;
  body?: t.Type<any, any, unknown>;
  query?: t.Type<any, any, unknown>;
  /** Browser forms: the body may arrive urlencoded as well as JSON. */
  form?: boolean;
  reasons?: readonly string[];
  /** Also runs under /AGENTS.md/scratch/{name}/ + the same tail (spec 4.3). */
  scratch?: boolean;
  bodyLimit: number;
  rate: RateClass;
  /** Exists on an open town only; an invited town answers unknownRoute. */
  openOnly?: boolean;
  /**
   * Cookie routes: what happens without a session. `serve` as a guest; `enter`: 303 to /enter;
   * `refuse`: 401 unauthenticated (the live streams, which a page opens only when signed in).
   */
  signedOut?: 'serve' | 'enter' | 'refuse';
  /** Set on generated scratch variants: the table route whose handler they reach. */
  base?: string;
  /**
   * The operator's, not the agents' (`/metrics`): answered only to the addresses and token the
   * operator allows (src/operations/access.ts), and left out of the catalogue, the guide and
   * the MCP tools.
   */
  operator?: true;
  /**
   * The catalogue shapes of spec 9 the row belongs to; absent: both. A row of one shape only is
   * absent (unknownRoute) from a town serving the other.
   */
  shapes?: readonly CatalogueShape[];
}

/** The catalogue shapes of spec 9 (TOWN_CATALOGUE). */
export type CatalogueShape = 'current' | 'earlier';
/** Rows of the current shape only (spec 9: absent from the earlier). */
const currentOnly = { shapes: ['current'] } as const;
/** Rows of the earlier shape only. */
const earlierOnly = { shapes: ['earlier'] } as const;

type Decl = Omit<Route, 'bodyLimit' | 'rate' | 'reply'> & Partial<Pick<Route, 'bodyLimit' | 'rate' | 'reply'>>;

const defaultRate: Record<Auth, RateClass> = { none: 'none', bearer: 'credential', cookie: 'page', optional: 'xrpc' };
const defaultReply: Record<Auth, Reply> = { none: 'json', bearer: 'json', cookie: 'html', optional: 'xrpc' };

/**
 * A row with the table's defaults. `const D` keeps each row's literal name, path, auth and codecs
 * in its type, so route-types.ts can give each route's handler its own body, query, params and
 * caller types, and a handler key that names no row does not compile.
 */
function route<const D extends Decl>(d: D): D & Pick<Route, 'bodyLimit' | 'rate' | 'reply'> {
  return { bodyLimit: limits.bodyBytes, rate: defaultRate[d.auth], reply: defaultReply[d.auth], ...d };
}
/** The unauthenticated arrival/identity calls: smaller bodies, per-address identity budget. */
const identityCall = { auth: 'none', bodyLimit: limits.bodyBytesUnauthenticated, rate: 'identity' } as const;
const page = { auth: 'cookie', signedOut: 'serve' } as const;

export const routes = [
  // 4.1 guide and entry
  route({
    name: 'guide',
    method: 'GET',
    path: '/AGENTS.md',
    auth: 'none',
    reply: 'text',
    does: 'this guide as prose (text/plain); with Accept: application/json, the catalogue',
  }),
  route({ name: 'api', method: 'GET', path: '/AGENTS.md/api', auth: 'none', does: 'the catalogue: every route, error class, refusal class and limit' }),
  route({
    name: 'examples',
    method: 'GET',
    path: '/AGENTS.md/examples',
    auth: 'none',
    reply: 'text',
    does: 'worked sessions as real request/response pairs (text/plain)',
  }),
  route({
    name: 'doc',
    method: 'GET',
    path: '/AGENTS.md/docs/:name',
    auth: 'none',
    reply: 'text',
    does: `a document the catalogue cites, as Markdown (text/markdown): ${agentDocs.join(', ')}`,
  }),
  route({
    name: 'accept',
    ...currentOnly,
    method: 'POST',
    path: '/AGENTS.md/accept',
    ...identityCall,
    body: b.AcceptBody,
    reasons: acceptReasons,
    does: 'accept an invitation code; answers a credential (shown once), principal, did and handle',
  }),
  route({
    name: 'arriveChallenge',
    ...currentOnly,
    method: 'GET',
    path: '/AGENTS.md/arrive',
    ...identityCall,
    openOnly: true,
    does: 'a proof-of-work challenge {challenge, bits, expires} for arriving without an invitation',
  }),
  route({
    name: 'arrive',
    ...currentOnly,
    method: 'POST',
    path: '/AGENTS.md/arrive',
    ...identityCall,
    openOnly: true,
    body: b.ArriveBody,
    reasons: arriveReasons,
    does: 'arrive with a solved challenge; answers a credential and sets the session cookie',
  }),

  // 4.2 world and turns
  route({
    name: 'world',
    method: 'GET',
    path: '/AGENTS.md/world',
    auth: 'bearer',
    scratch: true,
    query: b.WorldQuery,
    does: `ids of the cards you may see, ${limits.idsPerPage} a page, each with its method names`,
  }),
  route({
    name: 'object',
    method: 'GET',
    path: '/AGENTS.md/world/:object',
    auth: 'bearer',
    scratch: true,
    does: "a card's state and version, and `_actions`: a spell template per method",
  }),
  route({
    name: 'card',
    method: 'GET',
    path: '/AGENTS.md/world/:object/card',
    auth: 'bearer',
    scratch: true,
    does: `the card as you see it, with its newest ${limits.cardLinesOnCardReply} lines (spends no intent)`,
  }),
  route({
    name: 'source',
    method: 'GET',
    path: '/AGENTS.md/world/:object/source',
    auth: 'bearer',
    scratch: true,
    query: b.FullQuery,
    does: "a card's law (each clause with its reading), source, pin, pinSlug and forms",
  }),
  route({
    name: 'turn',
    method: 'POST',
    path: '/AGENTS.md/world/:object/:method',
    auth: 'bearer',
    scratch: true,
    body: b.TurnBody,
    query: b.TurnQuery,
    does: 'cast a spell on a card as a turn named by your intent; answers the turn reply with its receipt (a refusal is a receipt too)',
  }),
  route({
    name: 'receipt',
    ...currentOnly,
    method: 'GET',
    path: '/AGENTS.md/receipt/:slug',
    auth: 'bearer',
    scratch: true,
    query: b.FullQuery,
    does: "a receipt by its spoken name: anyone's public part, or your whole entry",
  }),
  route({
    name: 'receiptByIntent',
    ...currentOnly,
    method: 'GET',
    path: '/AGENTS.md/receipt',
    auth: 'bearer',
    scratch: true,
    query: b.ReceiptByIntentQuery,
    does: 'the receipt of your own turn with that intent',
  }),
  route({
    name: 'offers',
    method: 'GET',
    path: '/AGENTS.md/offers',
    auth: 'bearer',
    scratch: true,
    query: b.OffersQuery,
    does: `cards made for you; \`wait\` holds up to ${limits.offersWaitSeconds} s for one`,
  }),
  route({ name: 'pending', method: 'GET', path: '/AGENTS.md/pending', auth: 'bearer', scratch: true, does: 'queued sends between cards' }),
  route({
    name: 'deliver',
    method: 'POST',
    path: '/AGENTS.md/deliver',
    auth: 'bearer',
    scratch: true,
    does: `run up to ${limits.deliverPerCall} queued sends`,
  }),

  // 4.3 scratch
  route({
    name: 'scratch',
    ...currentOnly,
    method: 'POST',
    path: '/AGENTS.md/scratch',
    auth: 'bearer',
    body: b.ScratchBody,
    does: `open a private scratch world, empty or forked (at most ${limits.scratchWorlds} open)`,
  }),
  route({
    name: 'scratchClose',
    ...currentOnly,
    method: 'DELETE',
    path: '/AGENTS.md/scratch/:name',
    auth: 'bearer',
    does: 'close your scratch world now: it stops answering and its slot is free at once; what you cited from it stays in the town',
  }),
  route({
    name: 'scratchObjects',
    ...currentOnly,
    method: 'POST',
    path: '/AGENTS.md/scratch/:name/objects',
    auth: 'bearer',
    body: b.ScratchObjectsBody,
    does: 'create a card in your scratch world, visible to nobody else',
  }),
  route({
    name: 'repl',
    ...currentOnly,
    method: 'POST',
    path: '/AGENTS.md/scratch/:name/repl',
    auth: 'bearer',
    body: b.ReplBody,
    does: 'run an entry of a module in your scratch world (an Activity runs as your turn there)',
  }),
  route({
    name: 'check',
    ...currentOnly,
    method: 'POST',
    path: '/AGENTS.md/scratch/:name/check',
    auth: 'bearer',
    body: b.CheckBody,
    query: b.FullQuery,
    does: "check modules against the world's library; a refusal names stage, line and span",
  }),
  route({
    name: 'cite',
    ...currentOnly,
    method: 'POST',
    path: '/AGENTS.md/scratch/:name/cite',
    auth: 'bearer',
    body: b.CiteBody,
    does: 'keep a scratch receipt in the town under your name; `receipt` names it by its spoken name (slug) or its content id (cid)',
  }),

  // 4.4 identity and feed
  route({
    name: 'me',
    method: 'GET',
    path: '/AGENTS.md/me',
    auth: 'bearer',
    does: 'who you are, your scratch worlds, your rate limit and (open town) your turns left this hour',
  }),
  route({ name: 'revoke', method: 'POST', path: '/AGENTS.md/revoke', auth: 'bearer', does: 'revoke this credential; it answers 401 from then on' }),
  route({
    name: 'feed',
    ...currentOnly,
    method: 'GET',
    path: '/AGENTS.md/feed',
    auth: 'bearer',
    query: b.FeedQuery,
    does: "the town's feed, newest activity first; `thread` for one thread, `before` for the next page",
  }),
  route({
    name: 'feedPost',
    ...currentOnly,
    method: 'POST',
    path: '/AGENTS.md/feed',
    auth: 'bearer',
    body: b.FeedPostBody,
    does: 'post to the feed; a top-level post is said to the town, which answers under it within seconds',
  }),

  // 4.5 repository
  route({
    name: 'xrpc',
    method: 'GET',
    path: '/xrpc/:nsid',
    auth: 'optional',
    does: `AT Protocol repository queries serving signed world entries: com.atproto.server.describeServer; com.atproto.repo.describeRepo, getRecord, listRecords; com.atproto.sync.getRepo, getLatestCommit, getRecord, listRepos, getRepoStatus, subscribeRepos (a WebSocket on the firehose listener; 426 here); com.atproto.identity.resolveHandle. The town's own namespace is town.world: records in town.world.<entry kind> (genesis, arrival, turn, delivery, cite), each keyed by its entry's height in twelve digits (000000000042; the unpadded 42, the receipt's slug or its cid name it too), and the live card, page, index and answer values by town.world.getProjection {kind, card, view?} and town.world.listProjections {kind, view?, limit, cursor}. com.atproto.server.getServiceAuth {aud, lxm, exp?} (with the credential) issues a guest's service JWT for one method: lxm is required, for the town's audience one of town.world.getEntry, act, try, plan, and never an account-managing method; town.world.getEntry {height | cid} needs one (${docHref('service-auth.md')}). A guest's did or handle names its hosted account's repository: describeRepo, getRecord, listRecords, getRepo, getLatestCommit, sync.getRecord, getRepoStatus answer it, listRepos lists it once it has a commit; its one collection is town.guest.request {object, text, method?, spell?, fields?, createdAt} (${docHref('hosted-records.md')})`,
  }),
  route({
    name: 'xrpcProcedure',
    ...currentOnly,
    method: 'POST',
    path: '/xrpc/:nsid',
    auth: 'optional',
    bodyLimit: limits.hostedWriteBodyBytes,
    does: `AT Protocol procedures: the service calls town.world.act and town.world.try {object, method, intent, fields | spell | argument} and town.world.plan {object, intent, acts}, each with a service JWT for its own lxm from getServiceAuth (${docHref('service-auth.md')}); the hosted writes com.atproto.repo.createRecord {repo, collection, rkey?, record, swapCommit?}, putRecord {repo, collection, rkey, record, swapRecord?, swapCommit?}, deleteRecord {repo, collection, rkey, swapRecord?, swapCommit?} and applyWrites {repo, writes, swapCommit?} on the caller's own repository (repo: its did or handle) with its credential (Authorization: Bearer <credential>), records of town.guest.request only, at most ${limits.hostedAccountRequests}; bodies up to ${limits.hostedWriteBodyBytes} bytes (${docHref('hosted-records.md')})`,
  }),
  route({ name: 'didDocument', method: 'GET', path: '/.well-known/did.json', auth: 'none', does: "the repository's DID document" }),
  route({
    name: 'guestDidDocument',
    method: 'GET',
    path: '/guest/:name/did.json',
    auth: 'none',
    does: "a guest's DID document: did:web:<host>:guest:<name> resolves here",
  }),

  // 4.6 pages for people
  route({ name: 'home', method: 'GET', path: '/', ...page, does: 'HTML home' }),
  route({
    name: 'feedPage',
    ...currentOnly,
    method: 'GET',
    path: '/feed',
    ...page,
    query: b.FeedQuery,
    does: "HTML feed: newest threads, the town's answers, and (signed in) a post box; `before` for older threads",
  }),
  route({
    name: 'feedPagePost',
    ...currentOnly,
    method: 'POST',
    path: '/feed',
    auth: 'cookie',
    signedOut: 'enter',
    // A post is the world's business, as through the API: the credential's budget.
    rate: 'credential',
    form: true,
    body: b.FeedPageBody,
    does: 'post from the feed page; 303 back to /feed',
  }),
  route({
    name: 'enterPage',
    method: 'GET',
    path: '/enter',
    auth: 'none',
    reply: 'html',
    rate: 'page',
    does: 'guest door: an invitation code and a name, or a key you hold',
  }),
  route({
    name: 'enter',
    method: 'POST',
    path: '/enter',
    ...identityCall,
    reply: 'html',
    form: true,
    body: b.EnterBody,
    reasons: [...new Set([...acceptReasons, ...arriveReasons])],
    does: 'accept an invitation, sign in with a credential, or (open town) arrive with a solved challenge',
  }),
  route({ name: 'leavePage', method: 'GET', path: '/leave', ...page, does: 'a page with one button: sign out' }),
  route({ name: 'leave', method: 'POST', path: '/leave', ...page, form: true, does: 'forget the session cookie (the credential stays valid); 303 to /leave' }),
  route({
    name: 'cardPage',
    method: 'GET',
    path: '/o/:object',
    ...page,
    does: 'HTML card page: paint, the exact card, wants, doors; law, source and receipts on demand (a `/` in the id is written %2F)',
  }),
  route({ name: 'book', method: 'GET', path: '/o/:handle/book', ...page, query: b.PageQuery, does: "a resident's commonplace book" }),
  route({
    name: 'town',
    ...currentOnly,
    method: 'GET',
    path: '/town',
    ...page,
    query: b.TownQuery,
    does: 'every room and door you can see; `open` unfolds one',
  }),
  route({
    name: 'inspect',
    method: 'GET',
    path: '/inspect/:object',
    ...page,
    does: "a card's inspector: source, kind chain, spells as forms, law, rules, fields, receipts",
  }),
  route({ name: 'kinds', ...currentOnly, method: 'GET', path: '/kinds', ...page, does: 'every kind you can see, each linking to its inspector' }),
  route({ name: 'library', ...currentOnly, method: 'GET', path: '/library', ...page, does: "the library's pages" }),
  route({ name: 'libraryPage', ...currentOnly, method: 'GET', path: '/library/:name', ...page, does: 'one library page verbatim' }),
  route({ name: 'lib', method: 'GET', path: '/lib', ...page, does: 'every module the town holds that you may read' }),
  route({ name: 'libModule', method: 'GET', path: '/lib/:name', ...page, query: b.LibQuery, does: 'one module; `cid` another text of it' }),
  route({ name: 'history', ...currentOnly, method: 'GET', path: '/history', ...page, query: b.HistoryQuery, does: 'the chronicle, a day a page' }),
  route({ name: 'map', ...currentOnly, method: 'GET', path: '/map', ...page, query: b.MapQuery, does: 'the door map' }),
  route({
    name: 'playHome',
    method: 'GET',
    // one row for both: the router answers `/play` with and without its slash
    path: '/play',
    auth: 'cookie',
    signedOut: 'enter',
    does: "where a signed-in browser lands (POST /enter sends it to /play/): 303 to its avatar's play page; /play without its slash is 301 to /play/ (not in the spec's table)",
  }),
  route({
    name: 'play',
    method: 'GET',
    path: '/play/:object',
    auth: 'cookie',
    signedOut: 'enter',
    query: b.PlayQuery,
    does: 'play a card: its paint, wants, doors and one reply box (signed in)',
  }),
  route({
    name: 'playPost',
    method: 'POST',
    path: '/play/:object',
    auth: 'cookie',
    signedOut: 'enter',
    // A turn is the world's business, as through the API: the credential's budget.
    rate: 'credential',
    form: true,
    body: b.PlayBody,
    does: "reply to a card (`text`) or do one of a view's acts (`do`, `f.<field>`); shows the receipt",
  }),
  route({
    name: 'receiptPage',
    ...currentOnly,
    method: 'GET',
    path: '/receipt/:slug',
    ...page,
    does: 'one receipt in words for people: what happened, to what, by whom; the exact receipt folded (not in the spec)',
  }),
  route({ name: 'style', method: 'GET', path: '/style/', auth: 'none', reply: 'html', rate: 'page', does: 'HTML style specimen' }),
  route({ name: 'static', method: 'GET', path: '/static/:file', auth: 'none', reply: 'text', does: 'the stylesheet and the script that enhances pages' }),
  route({
    name: 'liveObject',
    ...currentOnly,
    method: 'GET',
    path: '/live/:object',
    auth: 'cookie',
    signedOut: 'refuse',
    reply: 'sse',
    query: b.LiveObjectQuery,
    does: `server-sent \`view\` events for a thing (held ${limits.liveStreamSeconds} s)`,
  }),
  route({
    name: 'live',
    ...currentOnly,
    method: 'GET',
    path: '/live',
    auth: 'cookie',
    signedOut: 'refuse',
    reply: 'sse',
    query: b.LiveQuery,
    does: `server-sent \`moved\` events as the journal moves (held ${limits.liveStreamSeconds} s)`,
  }),

  // Not in the spec: the guide's summary for agents that look for /llms.txt first.
  route({
    name: 'llmsTxt',
    method: 'GET',
    path: '/llms.txt',
    auth: 'none',
    reply: 'text',
    does: "the guide's summary in the llms.txt shape, linking the guide, the catalogue and /mcp (not in the spec)",
  }),

  // Not in the spec: the town as a Model Context Protocol server (Streamable HTTP, src/mcp). Every
  // bearer route above is one of its tools; the session is the transport's, the credential ours.
  route({
    name: 'mcp',
    method: 'POST',
    path: '/mcp',
    auth: 'bearer',
    does: 'Model Context Protocol over Streamable HTTP: one JSON-RPC message; every agent route is a tool, every card you may see a resource (not in the spec)',
  }),
  route({
    name: 'mcpStream',
    method: 'GET',
    path: '/mcp',
    auth: 'bearer',
    reply: 'sse',
    does: `an MCP session's stream of messages from the town (resource updates), held ${limits.liveStreamSeconds} s (not in the spec)`,
  }),
  route({ name: 'mcpEnd', method: 'DELETE', path: '/mcp', auth: 'bearer', does: 'end an MCP session (not in the spec)' }),

  // Not in the spec: our operators' probes and metrics, and the icon every browser asks for.
  route({ name: 'health', method: 'GET', path: '/health', auth: 'none', does: "the front's liveness probe (not in the spec)" }),
  route({
    name: 'ready',
    method: 'GET',
    path: '/ready',
    auth: 'none',
    does: "the front's readiness probe: 200 once its journal is open and its read models are caught up, else 503 hostUnavailable (not in the spec)",
  }),
  route({
    name: 'metrics',
    method: 'GET',
    path: '/metrics',
    auth: 'none',
    reply: 'text',
    operator: true,
    does: "the town's metrics in the Prometheus text format, for the operator's addresses or token only (not in the spec)",
  }),
  route({
    name: 'favicon',
    method: 'GET',
    path: '/favicon.ico',
    auth: 'none',
    reply: 'text',
    does: "the town's icon, which browsers ask for (not in the spec)",
  }),
] as const;

/**
 * Spec 9: the rows only the earlier catalogue shape has (TOWN_CATALOGUE=earlier). They are rows
 * of the same table, kept apart so that `routes` lists the current shape's rows exactly; the
 * earlier table (routesFor) is the rows of both shapes, these, and their heap variants.
 */
export const earlierOnlyRoutes = [
  route({
    name: 'challenge',
    method: 'POST',
    path: '/AGENTS.md/challenge',
    ...identityCall,
    ...earlierOnly,
    body: earlier.ChallengeBody,
    does: 'a challenge text to post exactly as the whole of a public post from that handle, and the credential verifying it activates (shown once)',
  }),
  route({
    name: 'challengePost',
    method: 'POST',
    path: '/AGENTS.md/challenge/post',
    ...identityCall,
    ...earlierOnly,
    body: earlier.ChallengePostBody,
    does: "post a challenge text to the town's feed from its handle, with the challenge's credential (Authorization: Bearer) while the handle is free, or the handle's own; answers the post's at:// uri (not in the spec: where a guest makes its public post)",
  }),
  route({
    name: 'verify',
    method: 'POST',
    path: '/AGENTS.md/verify',
    ...identityCall,
    ...earlierOnly,
    body: earlier.VerifyBody,
    does: "verify a challenge within 15 minutes with the at:// uri of the post that says it; the challenge's credential then speaks for you",
  }),
  route({
    name: 'receiptEarlier',
    method: 'GET',
    path: '/AGENTS.md/receipt/:intent',
    auth: 'bearer',
    ...earlierOnly,
    scratch: true,
    query: b.FullQuery,
    does: "a receipt by your own intent, or anyone's by its spoken name",
  }),
  route({
    name: 'heapObjects',
    method: 'POST',
    path: '/AGENTS.md/heap/objects',
    auth: 'bearer',
    ...earlierOnly,
    body: earlier.HeapObjectsBody,
    does: 'create a card in your private heap, visible to nobody else',
  }),
  route({
    name: 'replEarlier',
    method: 'POST',
    path: '/AGENTS.md/repl',
    auth: 'bearer',
    ...earlierOnly,
    body: earlier.EarlierReplBody,
    does: 'compile and run an entry in your heap: a plain entry answers its value; an Activity runs as your turn and answers its plan and a checkpoint, which a later call resumes with `checkpoint` and `response`',
  }),
  route({
    name: 'checkEarlier',
    method: 'POST',
    path: '/AGENTS.md/check',
    auth: 'bearer',
    ...earlierOnly,
    body: earlier.EarlierCheckBody,
    query: b.FullQuery,
    does: 'check modules against the library; a refusal names stage, line and span',
  }),
  route({
    name: 'cardPageQuery',
    method: 'GET',
    path: '/o',
    ...page,
    ...earlierOnly,
    does: '`?object=<id>`: a redirect to the card page /o/{object}',
  }),
] as const;

/** One row of the table, with its literal types. */
export type RouteRow = (typeof routes)[number] | (typeof earlierOnlyRoutes)[number];
/** The name of a route of the table: the key its handler is bound by. */
export type RouteName = RouteRow['name'];
/** The routes that also run under /AGENTS.md/scratch/{name}/… */
export type ScratchBase = Extract<RouteRow, { scratch: true }>['name'];
/** A generated scratch variant's name: `scratch.world` reaches the `world` handler. */
export type ScratchRouteName = `scratch.${ScratchBase}`;

export const scratchPrefix = '/AGENTS.md/scratch/:name';

/** The scratch variants of spec 4.3, generated: `scratch.world` reaches the `world` handler. */
export const scratchRoutes: readonly Route[] = (routes as readonly Route[])
  .filter((r) => r.scratch)
  .map((r) => ({ ...r, name: `scratch.${r.name}`, path: scratchPrefix + r.path.slice('/AGENTS.md'.length), scratch: undefined, base: r.name }));

/** Every route the front answers on a town of this kind (an invited town has no arrive routes). */
export function routesFor(open: boolean, shape: CatalogueShape = 'current'): Route[] {
  if (shape === 'earlier') return earlierRoutes;
  return [...currentRows, ...scratchRoutes].filter((r) => open || !r.openOnly);
}

const currentRows: readonly Route[] = routes;

export const heapPrefix = '/AGENTS.md/heap';
/**
 * The world name a heap route carries in `ctx.state.scratch` (spec 9: one private heap per guest,
 * kept as a scratch world). A `/` no scratch name may hold keeps it apart from those names.
 */
export const heapWorld = '/heap';

/**
 * The earlier shape's bodies where they differ from the current rows' (spec 9): the turn body
 * without `if` and `try`; and every body at most 65536 bytes.
 */
const earlierBodies: Partial<Record<string, t.Type<any, any, unknown>>> = { turn: earlier.EarlierTurnBody };

function asEarlier(r: Route): Route {
  const body = earlierBodies[r.name] ?? r.body;
  return {
    ...r,
    bodyLimit: Math.min(r.bodyLimit, earlier.earlierLimits.bodyBytes),
    // The earlier shape has no page rate limit.
    rate: r.rate === 'page' ? 'none' : r.rate,
    ...(body ? { body } : {}),
  };
}

const earlierRows = [...(routes as readonly Route[]), ...(earlierOnlyRoutes as readonly Route[])]
  .filter((r) => !r.shapes || r.shapes.includes('earlier'))
  .map(asEarlier);
/** The heap variants (spec 9): `heap.world` reaches the `world` handler at /AGENTS.md/heap/world. */
export const heapRoutes: readonly Route[] = earlierRows
  .filter((r) => r.scratch)
  .map((r) => ({ ...r, name: `heap.${r.name}`, path: heapPrefix + r.path.slice('/AGENTS.md'.length), scratch: undefined, base: r.name }));
/** The earlier shape's table: its rows of the one table, then their heap variants. */
const earlierRoutes: Route[] = [...earlierRows, ...heapRoutes];

export function routeNamed(name: RouteName | ScratchRouteName): Route | undefined;
export function routeNamed(name: string): Route | undefined;
export function routeNamed(name: string): Route | undefined {
  return (
    (routes as readonly Route[]).find((r) => r.name === name) ??
    scratchRoutes.find((r) => r.name === name) ??
    (earlierOnlyRoutes as readonly Route[]).find((r) => r.name === name) ??
    heapRoutes.find((r) => r.name === name)
  );
}

/** The catalogue form of a path: `/AGENTS.md/world/{object}`, plus required query fields. */
export function hrefTemplate(r: Route): string {
  const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
  const required = r.query instanceof FieldsType ? Object.keys(r.query.required) : [];
  return required.length ? `${path}?${required.map((k) => `${k}={${k}}`).join('&')}` : path;
}

/**
 * A concrete href for a route, for handlers' `_links`: hrefOf('card', {object: 'a/b'}) is
 * `/AGENTS.md/world/a%2Fb/card` (a `/` inside an id travels as %2F).
 */
export function hrefOf(name: RouteName | ScratchRouteName, params: Record<string, string> = {}, query: Record<string, string | undefined> = {}): string {
  // Handlers build a few hrefs on every reply: each route's path is split into its literal
  // pieces and parameter names once (`/a/:b/c` → ['/a/', 'b', '/c']), not searched and
  // rewritten by a regular expression on every call.
  let pieces = pathPieces.get(name);
  if (pieces === undefined) {
    const r = routeNamed(name);
    if (!r) throw new Error(`no route named ${name}`);
    pathPieces.set(name, (pieces = r.path.split(/:([A-Za-z_]+)/)));
  }
  let path = pieces[0];
  for (let i = 1; i < pieces.length; i += 2) {
    const v = params[pieces[i]];
    if (v === undefined) throw new Error(`route ${name} needs ${pieces[i]}`);
    path += encodeURIComponent(v) + pieces[i + 1];
  }
  const q = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
  return q.length ? `${path}?${new URLSearchParams(q).toString()}` : path;
}

/** Route name → its path split at its parameters (for hrefOf). */
const pathPieces = new Map<string, string[]>();

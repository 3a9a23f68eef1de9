/**
 * The repository's queries over /xrpc (spec 4.5), by NSID: AT Protocol's own (server, repo,
 * sync, identity) and the town's `town.world.getProjection` / `listProjections`. Each takes the
 * request's query parameters and answers an object (JSON) or bytes (a CAR); failures are the
 * AT Protocol errors of spec 7.3 (`XrpcFailure`). The HTTP room (src/http/handlers/xrpc.ts)
 * only dispatches.
 *
 * The repository is the town's: its did (`did:web:<host>`) and handle (`<host>`, when that is a
 * valid handle) name it; any other repo, did or handle is RepoNotFound / HandleNotFound, except
 * the handles of the town's guests, which resolve to their did:web.
 */
import { isValidDid, isValidHandle, isValidRecordKey, isValidTid } from '@atproto/syntax';
import type { Programs } from '../cards/kernel/programs.js';
import type { Clock } from '../contract/clock.js';
import type { TownConfig } from '../contract/town-config.js';
import { TownError } from '../contract/town-error.js';
import { TOWN_WORLD } from '../events/world.js';
import { didOf, hostName, isGuestName } from '../identity/names.js';
import type { WorldReads } from '../queries/world-reads.js';
import type { EventStore } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import { didDocument, type PublicKeys, townDid, townHandle } from './identity.js';
import { liveValue, liveValues, NoValue, type ProjectionKind, projectionKinds } from './live-values.js';
import { type RecordView, recordView, RepositoryReads } from './reads.js';
import { feedCollection, feedRecord, feedRecords, hasFeedRecords } from './feed-records.js';
import { heightOfRkey, recordCollections, rkeyOf, townNamespace } from './records.js';
import { carriedCollection, carriedMatches, carriedPage, carriedView, type CarriedView } from './carried-records.js';
import { carriedLine } from '../cards/kernel/outcome.js';
import type { Past } from '../cards/kernel/past.js';
import { findAccount } from './hosted/accounts.js';
import type { HostedReads, RepoRow } from './hosted/reads.js';
import { fail, flag, limitOf, nsidParam, type Params, passes, required, rkeyParam } from './xrpc-params.js';

export type { Params };

/** A CAR reply: the bytes and their media type. */
export interface CarReply {
  car: Uint8Array;
}

export type XrpcReply = object | CarReply;

export interface XrpcDeps {
  reads: ReadStore;
  events: EventStore;
  programs: Programs;
  clock: Clock;
  config: TownConfig;
  /** The repository's public keys (undefined on a box that does not sign). */
  keys: PublicKeys | undefined;
  /** Where subscribeRepos is served as a WebSocket (undefined: no firehose listener here). */
  firehoseUrl: () => string | undefined;
  /** The hosted accounts' repositories (hosted/reads.ts). */
  hosted: HostedReads;
  /** The town's carried past, once a carry began its epoch: receipts before it are pointers. */
  past?: () => Past | undefined;
}

/** A collection of the town's entries (or of receipts from before a carry): keyed by height. */
const entryCollection = (collection: string) => recordCollections.includes(collection) || collection === carriedCollection;

/** What names a record of the town's entries, said where a key names none. */
export const keyForm =
  "a record's key is its entry's height in twelve digits (000000000042; the unpadded 42 is read as it), or the receipt's spoken name (slug) or content id (cid)";

/**
 * The key of an entry's record: its height in twelve digits, so that keys sort as the journal
 * does; a height written without its zeros (`42`) names the same record.
 */
function entryRkey(collection: string, rkey: string): string {
  return entryCollection(collection) && /^\d{1,11}$/.test(rkey) ? rkeyOf(Number(rkey)) : rkey;
}

/** The queries a hosted account answers too, and the parameter that names the repository. */
const accountParam: Record<string, 'repo' | 'did'> = {
  'com.atproto.repo.describeRepo': 'repo',
  'com.atproto.repo.getRecord': 'repo',
  'com.atproto.repo.listRecords': 'repo',
  'com.atproto.sync.getRepo': 'did',
  'com.atproto.sync.getLatestCommit': 'did',
  'com.atproto.sync.getRecord': 'did',
  'com.atproto.sync.getRepoStatus': 'did',
};

export const getProjectionNsid = `${townNamespace}.getProjection`;
export const listProjectionsNsid = `${townNamespace}.listProjections`;

export function xrpcMethods(deps: XrpcDeps): Record<string, (q: Params) => Promise<XrpcReply>> {
  const repo = new RepositoryReads(deps.reads);
  const world: WorldReads = {
    reads: deps.reads,
    events: deps.events,
    programs: deps.programs,
    world: TOWN_WORLD,
    clock: deps.clock,
    ...(deps.past ? { past: deps.past } : {}),
  };

  /** The repository's did: from the genesis host once the projection has folded it. */
  async function did(): Promise<string> {
    return (await repo.head())?.did ?? townDid(deps.config.host);
  }
  const handle = () => townHandle(deps.config.host);

  /** The `repo` (did or handle) or `did` parameter must name this town's repository. */
  async function ours(q: Params, name: 'repo' | 'did'): Promise<string> {
    const v = required(q, name);
    const mine = await did();
    if (v === mine || v.toLowerCase() === handle()) return mine;
    const valid = name === 'did' ? passes(isValidDid, v) : passes(isValidDid, v) || passes(isValidHandle, v);
    if (!valid) fail('InvalidRequest', `${name} is not a ${name === 'did' ? 'did' : 'did or handle'}`);
    return fail('RepoNotFound', `this town serves one repository, ${mine}; not ${v.slice(0, 120)}`);
  }

  /** The signed head, or RepoNotServed on a box that does not sign. */
  async function signedHead() {
    const head = await repo.head();
    if (!deps.keys) fail('RepoNotServed', 'this box has no signing key: it serves records but no tree and no signed commit');
    if (!head?.commit) fail('RepoNotFound', 'the repository has no signed commit yet; try again shortly');
    return head!;
  }

  /** A record, or the pointer of a receipt from before a carry (carried-records.ts). */
  async function findRecord(q: Params): Promise<{ did: string; view: RecordView; rkey: string; collection: string } | { did: string; carried: CarriedView }> {
    const mine = await ours(q, 'repo');
    const collection = nsidParam(q, 'collection');
    const rkey = entryRkey(collection, rkeyParam(q));
    const match = collection === carriedCollection ? ({ none: true } as const) : await repo.record(collection, rkey);
    const carried = carriedMatches(deps.past?.(), collection, rkey);
    // a spoken name shared across a carry is ambiguous too, whichever side holds which
    const records = 'ambiguous' in match ? match.ambiguous : 'found' in match && carried.length && heightOfRkey(rkey) === undefined ? [match.found] : [];
    if (records.length + (records.length ? carried.length : 0) > 1 || carried.length > 1) {
      const named = [
        ...records.map((d) => `${d.collection}/${d.rkey} ${d.entry}`),
        ...carried.map((r) => `${carriedCollection}/${rkeyOf(r.height)} ${r.cid} (archived)`),
      ];
      fail('AmbiguousSlug', `${named.length} receipts are named ${rkey}: ask by record key or content id (${named.join(', ')})`);
    }
    if ('none' in match) {
      const [pointer] = carried;
      if (pointer && (q.cid === undefined || q.cid === pointer.cid)) return { did: mine, carried: await carriedView(mine, collection, pointer) };
      fail('RecordNotFound', `no record ${collection}/${rkey} in ${mine}${entryCollection(collection) ? `; ${keyForm}` : ''}`);
    }
    const doc = (match as { found: import('./records.js').RecordDoc }).found;
    if (q.cid !== undefined && q.cid !== doc.cid) fail('RecordNotFound', `the record ${doc.collection}/${doc.rkey} is not ${q.cid} now`);
    return { did: mine, view: recordView(mine, doc), rkey: doc.rkey, collection: doc.collection };
  }

  function kindParam(q: Params): ProjectionKind {
    const kind = required(q, 'kind');
    if (!(projectionKinds as readonly string[]).includes(kind)) fail('InvalidRequest', `kind is one of ${projectionKinds.join(', ')}`);
    if (kind === 'answer' && !q.view) fail('InvalidRequest', 'kind answer needs view: the name of the view whose answer to read');
    return kind as ProjectionKind;
  }

  const live = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof NoValue) fail('RecordNotFound', error.message);
      if (error instanceof TownError && error.cls === 'denied') fail('Denied', error.message);
      if (error instanceof TownError && error.cls === 'unspellable') fail('InvalidRequest', error.message);
      throw error;
    }
  };

  const methods: Record<string, (q: Params) => Promise<XrpcReply>> = {
    'com.atproto.server.describeServer': async () => ({
      did: await did(),
      availableUserDomains: [`.${hostName(deps.config.host)}`],
      inviteCodeRequired: !deps.config.open,
      links: {},
    }),

    'com.atproto.repo.describeRepo': async (q) => {
      const mine = await ours(q, 'repo');
      const h = handle();
      return {
        handle: h,
        did: mine,
        didDoc: didDocument(mine, h, deps.config.origin, deps.keys),
        collections: [...(await repo.collections(recordCollections)), ...((await hasFeedRecords(deps.reads)) ? [feedCollection] : [])],
        handleIsCorrect: isValidHandle(h) && h !== 'handle.invalid',
      };
    },

    'com.atproto.repo.getRecord': async (q) => {
      if (q.collection === feedCollection) {
        const mine = await ours(q, 'repo');
        const rkey = rkeyParam(q);
        const found = await feedRecord(deps.reads, deps.config.host, rkey);
        if (!found || (q.cid !== undefined && q.cid !== found.cid)) fail('RecordNotFound', `no record ${feedCollection}/${rkey} in ${mine}`);
        return found!;
      }
      const found = await findRecord(q);
      return 'carried' in found ? found.carried : found.view;
    },

    'com.atproto.repo.listRecords': async (q) => {
      const mine = await ours(q, 'repo');
      const collection = nsidParam(q, 'collection');
      const limit = limitOf(q);
      const reverse = flag(q, 'reverse');
      if (q.cursor !== undefined && !isValidRecordKey(q.cursor)) fail('InvalidRequest', 'cursor is a record key from the page before');
      // A height given without its zeros is the record key it names.
      const cursor = q.cursor === undefined ? undefined : entryRkey(collection, q.cursor);
      // Newest first unless `reverse`, as AT Protocol's own servers list.
      if (collection === feedCollection) return feedRecords(deps.reads, deps.config.host, limit, cursor, !reverse);
      if (collection === carriedCollection) {
        if (cursor !== undefined && heightOfRkey(cursor) === undefined) fail('InvalidRequest', 'cursor is a record key (twelve digits) from the page before');
        return carriedPage(deps.past?.(), mine, limit, cursor, !reverse);
      }
      const page = await repo.list(collection, limit, cursor, !reverse);
      return { records: page.records.map((d) => recordView(mine, d)), ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) };
    },

    'com.atproto.sync.getRepo': async (q) => {
      await ours(q, 'did');
      if (q.since !== undefined && !isValidTid(q.since)) fail('InvalidRequest', 'since is a rev (a TID)');
      await signedHead();
      const car = q.since !== undefined ? await repo.carSince(q.since) : await repo.fullCar();
      return car ? { car } : fail('RepoNotFound', 'the repository has no signed commit yet');
    },

    'com.atproto.sync.getLatestCommit': async (q) => {
      await ours(q, 'did');
      const head = await signedHead();
      return { cid: head.commit!, rev: head.rev! };
    },

    'com.atproto.sync.getRecord': async (q) => {
      const mine = await ours(q, 'did');
      await signedHead();
      // A key the tree does not hold gets the proof of its absence, as AT Protocol's own servers
      // answer (the lexicon: "prove the existence or non-existence"): the commit and the nodes on
      // the key's path, which `verifyProofs` checks with a claim of no CID. Feed posts are not in
      // the tree (docs/decisions/repository-reads-and-firehose.md), so their collection stays RecordNotFound rather than "proved absent".
      // A receipt from before a carry is not in the tree either, but it is no absence: its pointer says where it lives.
      const collection = nsidParam(q, 'collection');
      const rkey = entryRkey(collection, rkeyParam(q));
      const absent =
        recordCollections.includes(collection) &&
        'none' in (await repo.record(collection, rkey)) &&
        carriedMatches(deps.past?.(), collection, rkey).length === 0;
      let path: { collection: string; rkey: string } = { collection, rkey };
      if (!absent) {
        const found = await findRecord({ ...q, repo: mine });
        // a receipt from before a carry has a pointer and no signed record: nothing to prove
        if ('carried' in found) return fail('RecordNotFound', `no signed record: ${carriedLine(found.carried.value.carried)}`);
        path = found;
      }
      const car = await repo.recordCar(path.collection, entryRkey(path.collection, path.rkey));
      return car ? { car } : fail('RepoNotFound', 'the repository has no signed commit yet');
    },

    'com.atproto.sync.listRepos': async (q) => {
      const limit = limitOf(q, 500, 1000);
      if (!deps.keys) return { repos: [] };
      // The town's repository first, then the hosted accounts with a commit, by did (the cursor).
      const head = await repo.head();
      const rows: RepoRow[] = q.cursor === undefined && head?.commit ? [{ did: head.did, head: head.commit, rev: head.rev!, active: true }] : [];
      if (rows.length < limit) rows.push(...(await deps.hosted.repos(limit - rows.length, q.cursor)));
      return { repos: rows, ...(rows.length === limit ? { cursor: rows[rows.length - 1]!.did } : {}) };
    },

    'com.atproto.sync.getRepoStatus': async (q) => {
      const mine = await ours(q, 'did');
      const head = deps.keys ? await repo.head() : undefined;
      return { did: mine, active: true, ...(head?.rev ? { rev: head.rev } : {}) };
    },

    'com.atproto.sync.subscribeRepos': async () => {
      const url = deps.firehoseUrl();
      return fail(
        'UpgradeRequired',
        url
          ? `subscribeRepos is a WebSocket on the firehose listener: ${url}`
          : 'subscribeRepos is a WebSocket on the configured firehose listener, and this town has none configured (TOWN_FIREHOSE_PORT)',
      );
    },

    'com.atproto.identity.resolveHandle': async (q) => {
      const asked = required(q, 'handle').toLowerCase();
      if (!isValidHandle(asked)) fail('InvalidRequest', 'handle is not a handle');
      if (asked === handle()) return { did: await did() };
      // A guest's handle is `<name>.<host without port>`.
      const suffix = `.${hostName(deps.config.host).toLowerCase()}`;
      if (asked.endsWith(suffix)) {
        const name = asked.slice(0, -suffix.length);
        if (isGuestName(name) && (await deps.events.streamRevision(`guest-${name}`)) !== undefined) return { did: didOf(deps.config.host, name) };
      }
      return fail('HandleNotFound', `this town resolves its own handle and its guests'; not ${asked.slice(0, 120)}`);
    },

    [getProjectionNsid]: async (q) => {
      const kind = kindParam(q);
      if (kind !== 'index') required(q, 'card');
      return live(() => liveValue(world, kind, { card: q.card, view: q.view, after: q.after, prefix: q.prefix }));
    },

    [listProjectionsNsid]: async (q) => {
      const kind = kindParam(q);
      const limit = limitOf(q);
      const page = await live(() => liveValues(world, kind, { view: q.view, limit, ...(q.cursor !== undefined ? { cursor: q.cursor } : {}) }));
      return { projections: page.values, ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) };
    },
  };

  // A guest's did or handle names its hosted account's repository (hosted/reads.ts).
  const hosted = deps.hosted.queries();
  for (const [nsid, param] of Object.entries(accountParam)) {
    const town = methods[nsid]!;
    const account = hosted[nsid]!;
    methods[nsid] = async (q) => {
      const named = q[param];
      const found = named ? await findAccount(deps.config.host, deps.events, named) : undefined;
      return found ? account(q, found) : town(q);
    };
  }
  return methods;
}

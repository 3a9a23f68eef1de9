/**
 * The hosted writes over /xrpc (spec 4.5, 5.6, 7.3): `com.atproto.repo.createRecord`,
 * `putRecord`, `deleteRecord` and `applyWrites` on a guest's own repository, opened by that
 * guest's town credential (`Authorization: Bearer <credential>`, the one the agent routes take).
 * No credential is `AuthRequired`, one the town did not issue `InvalidToken`; another guest's
 * repository is `AuthRequired` (the call needs that account's credential), the world's own
 * repository `InvalidRequest` (it is read-only: no credential writes it), and a repository this
 * town does not hold `RepoNotFound`. Bodies are checked as AT Protocol's lexicons say; records
 * by hosted/records.ts; the write itself is src/repository/hosted/writes.ts. A write answers once
 * the `hosted` read model shows it (bounded), so the caller's next read finds what it wrote.
 */
import { isValidDid, isValidHandle, isValidNsid, isValidRecordKey } from '@atproto/syntax';
import type { HostedWrite } from '../../commands/hosted-repo.js';
import type { Caller } from '../../contract/caller.js';
import { XrpcFailure } from '../../contract/xrpc-failure.js';
import type { CheckpointWaits } from '../../queries/fresh.js';
import type { EventStore } from '../../stores/event-store.js';
import { accountName, findAccount, type HostedAccount, hostedAccount } from '../../repository/hosted/accounts.js';
import { checkedRecord } from '../../repository/hosted/records.js';
import type { HostedWrites, Written } from '../../repository/hosted/writes.js';
import { townHandle } from '../../repository/identity.js';
import type { TownContext } from '../handler.js';

export interface HostedWriteDeps {
  writes: HostedWrites;
  events: EventStore;
  host: string;
  /** The world repository's did (read-only here). */
  townDid: () => Promise<string>;
  waits: CheckpointWaits;
  /** How long a write waits for the read model to show it. */
  waitMs: number;
}

export const createRecordNsid = 'com.atproto.repo.createRecord';
export const putRecordNsid = 'com.atproto.repo.putRecord';
export const deleteRecordNsid = 'com.atproto.repo.deleteRecord';
export const applyWritesNsid = 'com.atproto.repo.applyWrites';
export const hostedWriteNsids = [createRecordNsid, putRecordNsid, deleteRecordNsid, applyWritesNsid] as const;

/** applyWrites takes at most this many writes (AT Protocol's lexicon: 200). */
const writesPerCall = 200;

const bad = (message: string): never => {
  throw new XrpcFailure('InvalidRequest', message);
};

type Body = Record<string, unknown>;

function text(body: Body, name: string, optional: true): string | undefined;
function text(body: Body, name: string): string;
function text(body: Body, name: string, optional = false): string | undefined {
  const v = body[name];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || v === '') return bad(`${name} is required text`);
  return v;
}

function collectionOf(body: Body): string {
  const c = text(body, 'collection');
  return isValidNsid(c) ? c : bad(`collection is not an NSID: ${JSON.stringify(c.slice(0, 80))}`);
}

function rkeyOf(body: Body, optional: true): string | undefined;
function rkeyOf(body: Body): string;
function rkeyOf(body: Body, optional = false): string | undefined {
  const k = optional ? text(body, 'rkey', true) : text(body, 'rkey');
  if (k !== undefined && (k.length > 512 || !isValidRecordKey(k))) bad(`rkey is not a record key: ${JSON.stringify(k.slice(0, 80))}`);
  return k;
}

/** swapRecord: a CID, or null for "no record there"; absent: no check. */
function swapRecordOf(body: Body): string | null | undefined {
  const v = body.swapRecord;
  if (v === undefined || v === null) return v;
  return typeof v === 'string' && v !== '' ? v : bad('swapRecord is a CID (text) or null');
}

function swapCommitOf(body: Body): string | undefined {
  const v = body.swapCommit;
  if (v === undefined) return undefined;
  return typeof v === 'string' && v !== '' ? v : bad('swapCommit is a CID (text)');
}

async function putOf(collection: string, rkey: string, record: unknown, swapRecord?: string | null): Promise<HostedWrite> {
  const { value, cid } = await checkedRecord(collection, record);
  return { action: 'put', collection, rkey, value, cid, ...(swapRecord !== undefined ? { swapRecord } : {}) };
}

/** One write of applyWrites, by its `$type`. */
async function applyWriteOf(item: unknown): Promise<HostedWrite> {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return bad('each write is an object');
  const w = item as Body;
  const collection = collectionOf(w);
  switch (w.$type) {
    case 'com.atproto.repo.applyWrites#create': {
      const { value, cid } = await checkedRecord(collection, w.value);
      const rkey = rkeyOf(w, true);
      return { action: 'create', collection, value, cid, ...(rkey !== undefined ? { rkey } : {}) };
    }
    case 'com.atproto.repo.applyWrites#update':
      return putOf(collection, rkeyOf(w), w.value);
    case 'com.atproto.repo.applyWrites#delete':
      return { action: 'delete', collection, rkey: rkeyOf(w) };
    default:
      return bad('each write has $type com.atproto.repo.applyWrites#create, #update or #delete');
  }
}

export function hostedProcedures(deps: HostedWriteDeps): Record<string, (ctx: TownContext) => Promise<object>> {
  /**
   * The body and the caller's own account, which `repo` must name; the credential is checked
   * first, so a call without one is AuthRequired whatever its body.
   */
  async function ownAccount(ctx: TownContext, nsid: string): Promise<{ body: Body; account: HostedAccount }> {
    const caller = ctx.state.caller as Caller | undefined;
    if (!caller) {
      if (!ctx.req.headers.authorization) throw new XrpcFailure('AuthRequired', `${nsid} needs the account's credential: Authorization: Bearer <credential>`);
      throw new XrpcFailure('InvalidToken', 'the credential is not one this town issued, or it was revoked');
    }
    const body = bodyOf(ctx, nsid);
    return { body, account: await accountOf(caller, text(body, 'repo')) };
  }

  async function accountOf(caller: Caller, repo: string): Promise<HostedAccount> {
    if (repo === (await deps.townDid()) || repo.toLowerCase() === townHandle(deps.host)) {
      throw new XrpcFailure('InvalidRequest', 'the world repository is read-only: a guest writes to its own repository (its did from accept or arrive)');
    }
    if (accountName(deps.host, repo) === caller.name) return hostedAccount(deps.host, caller.name);
    if (await findAccount(deps.host, deps.events, repo)) {
      throw new XrpcFailure(
        'AuthRequired',
        `${repo.slice(0, 120)} is another account: writing it needs that account's credential; this one is ${caller.did}'s`,
      );
    }
    if (!isValidDid(repo) && !isValidHandle(repo)) bad('repo is a did or handle');
    throw new XrpcFailure('RepoNotFound', `this town hosts no account ${repo.slice(0, 120)}`);
  }

  function bodyOf(ctx: TownContext, nsid: string): Body {
    const raw = ctx.state.body;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad(`${nsid} takes a JSON object body`);
    return raw as Body;
  }

  /** Writes, then waits (bounded) until the read model shows the write. */
  async function write(account: HostedAccount, writes: HostedWrite[], swapCommit: string | undefined): Promise<Written> {
    const written = await deps.writes.write(account, writes, swapCommit);
    if (written.position !== undefined) await deps.waits.wait('hosted', written.position, deps.waitMs);
    return written;
  }

  const commitOf = (w: Written) => (w.commit ? { commit: { cid: w.commit.cid, rev: w.commit.rev } } : {});
  const uriOf = (account: HostedAccount, collection: string, rkey: string) => `at://${account.did}/${collection}/${rkey}`;

  return {
    [createRecordNsid]: async (ctx) => {
      const { body, account } = await ownAccount(ctx, createRecordNsid);
      const collection = collectionOf(body);
      const rkey = rkeyOf(body, true);
      const { value, cid } = await checkedRecord(collection, body.record);
      const written = await write(account, [{ action: 'create', collection, value, cid, ...(rkey !== undefined ? { rkey } : {}) }], swapCommitOf(body));
      return { uri: uriOf(account, collection, written.keys[0]!), cid, ...commitOf(written), validationStatus: 'valid' };
    },

    [putRecordNsid]: async (ctx) => {
      const { body, account } = await ownAccount(ctx, putRecordNsid);
      const collection = collectionOf(body);
      const rkey = rkeyOf(body);
      const put = await putOf(collection, rkey, body.record, swapRecordOf(body));
      const written = await write(account, [put], swapCommitOf(body));
      return { uri: uriOf(account, collection, rkey), cid: (put as { cid: string }).cid, ...commitOf(written), validationStatus: 'valid' };
    },

    [deleteRecordNsid]: async (ctx) => {
      const { body, account } = await ownAccount(ctx, deleteRecordNsid);
      const swapRecord = swapRecordOf(body);
      const del: HostedWrite = { action: 'delete', collection: collectionOf(body), rkey: rkeyOf(body), ...(swapRecord !== undefined ? { swapRecord } : {}) };
      return commitOf(await write(account, [del], swapCommitOf(body)));
    },

    [applyWritesNsid]: async (ctx) => {
      const { body, account } = await ownAccount(ctx, applyWritesNsid);
      const items = body.writes;
      if (!Array.isArray(items) || items.length > writesPerCall) return bad(`writes is a list of at most ${writesPerCall}`);
      const writes: HostedWrite[] = [];
      for (const item of items) writes.push(await applyWriteOf(item));
      const written = await write(account, writes, swapCommitOf(body));
      const results = writes.map((w, i) => {
        if (w.action === 'delete') return { $type: 'com.atproto.repo.applyWrites#deleteResult' };
        const kind = w.action === 'create' ? 'createResult' : 'updateResult';
        return { $type: `com.atproto.repo.applyWrites#${kind}`, uri: uriOf(account, w.collection, written.keys[i]!), cid: w.cid, validationStatus: 'valid' };
      });
      return { ...commitOf(written), results };
    },
  };
}

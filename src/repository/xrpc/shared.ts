/**
 * What the xrpc methods share: the town's repository (its reads, did and handle, its signed
 * head), the one decision of whose repository a `repo` or `did` parameter names, and the keys
 * of the records of the town's entries.
 *
 * The town's repository is named by its did (`did:web:<host>`) and its handle (`<host>`, when
 * that is a valid handle); a guest's did:web or handle names the guest's hosted account
 * (hosted/accounts.ts); any other repository is RepoNotFound.
 */
import { isValidDid, isValidHandle } from '@atproto/syntax';
import type { ReadStore } from '../../stores/read-store.js';
import { findAccount, type HostedAccount } from '../hosted/accounts.js';
import { townDid, townHandle } from '../identity.js';
import { carriedCollection } from '../carried-records.js';
import { RepositoryReads } from '../reads.js';
import { recordCollections, rkeyOf } from '../records.js';
import type { XrpcDeps } from './method.js';
import { fail, type Params, passes, required } from './params.js';

const readers = new WeakMap<ReadStore, RepositoryReads>();

/** The reads of the town's repository, one per read store. */
export function townRepo(deps: XrpcDeps): RepositoryReads {
  let repo = readers.get(deps.reads);
  if (!repo) readers.set(deps.reads, (repo = new RepositoryReads(deps.reads)));
  return repo;
}

/** The repository's did: from the genesis host once the projection has folded it. */
export async function townRepoDid(deps: XrpcDeps): Promise<string> {
  return (await townRepo(deps).head())?.did ?? townDid(deps.config.host);
}

export const townRepoHandle = (deps: XrpcDeps) => townHandle(deps.config.host);

/** Whose repository a parameter names: the town's (its did) or a hosted account's. */
export type RepoOwner = { town: string } | { account: HostedAccount };

/**
 * Whose repository the `repo` (did or handle) or `did` parameter names: a guest's did or handle
 * names its hosted account (in `did` too), the town's did or handle the town's; a text of neither
 * form is InvalidRequest, any other repository RepoNotFound.
 */
export async function repoOwner(deps: XrpcDeps, q: Params, name: 'repo' | 'did'): Promise<RepoOwner> {
  const named = q[name];
  const account = named ? await findAccount(deps.config.host, deps.events, named) : undefined;
  if (account) return { account };
  const v = required(q, name);
  const mine = await townRepoDid(deps);
  if (v === mine || v.toLowerCase() === townRepoHandle(deps)) return { town: mine };
  const valid = name === 'did' ? passes(isValidDid, v) : passes(isValidDid, v) || passes(isValidHandle, v);
  if (!valid) fail('InvalidRequest', `${name} is not a ${name === 'did' ? 'did' : 'did or handle'}`);
  return fail('RepoNotFound', `this town serves one repository, ${mine}; not ${v.slice(0, 120)}`);
}

/** The did of the repository the owner names: what the lexicon sees in place of the name. */
const ownerDid = (owner: RepoOwner): string => ('town' in owner ? owner.town : owner.account.did);

/** The query with its repository named by did, once `repoOwner` has decided whose it is. */
export const byDid = (q: Params, name: 'repo' | 'did', owner: RepoOwner): Params => ({ ...q, [name]: ownerDid(owner) });

/** The town's signed head, or RepoNotServed on a box that does not sign. */
export async function signedHead(deps: XrpcDeps) {
  const head = await townRepo(deps).head();
  if (!deps.keys) fail('RepoNotServed', 'this box has no signing key: it serves records but no tree and no signed commit');
  if (!head?.commit) fail('RepoNotFound', 'the repository has no signed commit yet; try again shortly');
  return head!;
}

/** A collection of the town's entries (or of receipts from before a carry): keyed by height. */
export const entryCollection = (collection: string) => recordCollections.includes(collection) || collection === carriedCollection;

/** What names a record of the town's entries, said where a key names none. */
export const keyForm =
  "a record's key is its entry's height in twelve digits (000000000042; the unpadded 42 is read as it), or the receipt's spoken name (slug) or content id (cid)";

/**
 * The key of an entry's record: its height in twelve digits, so that keys sort as the journal
 * does; a height written without its zeros (`42`) names the same record.
 */
export function entryRkey(collection: string, rkey: string): string {
  return entryCollection(collection) && /^\d{1,11}$/.test(rkey) ? rkeyOf(Number(rkey)) : rkey;
}

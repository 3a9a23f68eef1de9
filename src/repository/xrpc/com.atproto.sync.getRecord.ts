/**
 * com.atproto.sync.getRecord: a record with the signed commit and the tree nodes that prove it,
 * as a CAR, of the town's repository or of a hosted account's.
 *
 * A key the tree does not hold gets the proof of its absence, as AT Protocol's own servers
 * answer (the lexicon: "prove the existence or non-existence"): the commit and the nodes on the
 * key's path, which `verifyProofs` checks with a claim of no CID. Feed posts are not in the tree
 * (docs/decisions/repository-reads-and-firehose.md), so their collection stays RecordNotFound
 * rather than "proved absent". A receipt from before a carry is not in the tree either, but it
 * is no absence: its pointer says where it lives.
 */
import { carriedLine } from '../../cards/kernel/outcome.js';
import { carriedMatches } from '../carried-records.js';
import { recordCollections } from '../records.js';
import type { XrpcMethod } from './method.js';
import { fail, lexiconParams } from './params.js';
import { byDid, entryRkey, repoOwner, signedHead, townRepo } from './shared.js';
import { townRecord } from './town-record.js';

const nsid = 'com.atproto.sync.getRecord';

export const syncGetRecord: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    const owner = await repoOwner(deps, q, 'did');
    // The head is asked for before the key: a box that does not sign says so whatever the key.
    if ('account' in owner) await deps.hosted.signedHead(owner.account);
    else await signedHead(deps);
    await lexiconParams(nsid, byDid(q, 'did', owner));
    const collection = q.collection!;
    if ('account' in owner) return deps.hosted.recordCar(owner.account, collection, q.rkey!);
    const rkey = entryRkey(collection, q.rkey!);
    const repo = townRepo(deps);
    const absent =
      recordCollections.includes(collection) && 'none' in (await repo.record(collection, rkey)) && carriedMatches(deps.past?.(), collection, rkey).length === 0;
    let path: { collection: string; rkey: string } = { collection, rkey };
    if (!absent) {
      const found = await townRecord(deps, owner.town, collection, q.rkey!, q.cid);
      // a receipt from before a carry has a pointer and no signed record: nothing to prove
      if ('carried' in found) return fail('RecordNotFound', `no signed record: ${carriedLine(found.carried.value.carried)}`);
      path = found;
    }
    const car = await repo.recordCar(path.collection, entryRkey(path.collection, path.rkey));
    return car ? { car } : fail('RepoNotFound', 'the repository has no signed commit yet');
  },
};

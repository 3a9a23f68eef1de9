/**
 * A record of the town's repository by collection and key, as getRecord and sync.getRecord read
 * it: the record, or the pointer of a receipt from before a carry (carried-records.ts). A key
 * that several receipts share is AmbiguousSlug; a `cid` that is not the record's now names none.
 */
import { type CarriedView, carriedCollection, carriedMatches, carriedView } from '../carried-records.js';
import { type RecordView, recordView } from '../reads.js';
import { heightOfRkey, type RecordDoc, rkeyOf } from '../records.js';
import type { XrpcDeps } from './method.js';
import { fail } from './params.js';
import { entryCollection, entryRkey, keyForm, townRepo } from './shared.js';

export type TownRecord = { did: string; view: RecordView; rkey: string; collection: string } | { did: string; carried: CarriedView };

export async function townRecord(deps: XrpcDeps, mine: string, collection: string, key: string, cid: string | undefined): Promise<TownRecord> {
  const rkey = entryRkey(collection, key);
  const match = collection === carriedCollection ? ({ none: true } as const) : await townRepo(deps).record(collection, rkey);
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
    if (pointer && (cid === undefined || cid === pointer.cid)) return { did: mine, carried: await carriedView(mine, collection, pointer) };
    fail('RecordNotFound', `no record ${collection}/${rkey} in ${mine}${entryCollection(collection) ? `; ${keyForm}` : ''}`);
  }
  const doc = (match as { found: RecordDoc }).found;
  if (cid !== undefined && cid !== doc.cid) fail('RecordNotFound', `the record ${doc.collection}/${doc.rkey} is not ${cid} now`);
  return { did: mine, view: recordView(mine, doc), rkey: doc.rkey, collection: doc.collection };
}

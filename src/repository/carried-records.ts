/**
 * Receipts from before a carry in the repository (spec 4.5: "a receipt from before a carry has
 * a pointer and no signed record"). The repository begins again at a carry (projection.ts), so
 * the tree holds no record of them; the town's carried past (src/cards/kernel/past.ts) still
 * names each one by height, content id and spoken name. Asked for by any of these, under a
 * record collection of the town, `getRecord` answers a record-shaped view whose value is the
 * pointer (`town.world.carried`: the archive, epoch, height and content id, and a message), its
 * CID the pointer value's own (DAG-CBOR), unsigned and in no tree; `listRecords` of
 * `town.world.carried` pages through them by height.
 * `sync.getRecord`, whose answer is a signed record and its proof, answers RecordNotFound with
 * the pointer's message: there is no signed record to prove.
 *
 * The past keeps no entry kind, so a pre-carry receipt answers under any record collection of
 * the town (town.world.<kind>) as well as its own, `town.world.carried`.
 */
import { encode as cborEncode } from '@atproto/lex-cbor';
import { cidForCbor } from '@atproto/lex-data';
import { carriedLine } from '../cards/kernel/outcome.js';
import { type Past, type PastReceipt, pastAt, pastByCid, pastBySlug, pastEnd } from '../cards/kernel/past.js';
import { heightOfRkey, recordCollections, rkeyOf, townNamespace } from './records.js';

/** The collection of pointers: receipts from before a carry. */
export const carriedCollection = `${townNamespace}.carried`;

/** Whether a pre-carry receipt may be asked for under `collection`. */
export const carriesPointers = (collection: string) => collection === carriedCollection || recordCollections.includes(collection);

const looksLikeCid = (s: string) => /^b[a-z2-7]{20,}$/.test(s);

/** The pre-carry receipts `rkey` names: by height (its record key), content id or spoken name. */
export function carriedMatches(past: Past | undefined, collection: string, rkey: string): PastReceipt[] {
  if (!past || !carriesPointers(collection)) return [];
  const height = heightOfRkey(rkey);
  if (height !== undefined) {
    const r = pastAt(past, height);
    return r ? [r] : [];
  }
  if (looksLikeCid(rkey)) {
    const r = pastByCid(past, rkey);
    return r ? [r] : [];
  }
  return pastBySlug(past, rkey);
}

export interface CarriedView {
  uri: string;
  /** The CID of the pointer value itself: no signed record, no place in the tree. */
  cid: string;
  value: { $type: string; height: number; cid: string; slug: string; carried: PastReceipt['pointer']; message: string };
}

/** The pointer as a record's view. */
export async function carriedView(did: string, collection: string, r: PastReceipt): Promise<CarriedView> {
  const value = {
    $type: carriedCollection,
    height: r.height,
    cid: r.cid,
    slug: r.slug,
    carried: { ...r.pointer },
    message: carriedLine(r.pointer),
  };
  return { uri: `at://${did}/${collection}/${rkeyOf(r.height)}`, cid: (await cidForCbor(cborEncode(value))).toString(), value };
}

/** A page of pointers in height order (newest first unless `reverse`), after a record key. */
export async function carriedPage(
  past: Past | undefined,
  did: string,
  limit: number,
  cursor: string | undefined,
  newestFirst: boolean,
): Promise<{ records: CarriedView[]; cursor?: string }> {
  if (!past) return { records: [] };
  const end = pastEnd(past);
  const after = cursor === undefined ? undefined : heightOfRkey(cursor);
  const records: CarriedView[] = [];
  let h = newestFirst ? Math.min(end, after ?? end) - 1 : after === undefined ? 0 : after + 1;
  for (; records.length < limit && h >= 0 && h < end; h += newestFirst ? -1 : 1) records.push(await carriedView(did, carriedCollection, pastAt(past, h)!));
  const more = h >= 0 && h < end;
  return more && records.length ? { records, cursor: rkeyOf(records[records.length - 1]!.value.height) } : { records };
}

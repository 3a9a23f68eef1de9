/**
 * World entries as records of the repository (docs/decisions/repository-records-and-keys.md).
 *
 *   collection  `town.world.<kind>`: one per entry kind (genesis, arrival, turn, delivery, cite,
 *               carry, and the scratch kinds fork and create, which the town's own journal never
 *               holds); receipts from before a carry are pointers (carried-records.ts)
 *   record key  the entry's height, twelve digits (`000000000042`): keys sort as the journal
 *               does, so listRecords pages in journal order and the tree grows at its right edge
 *   record      height, content id (`cid`), spoken name (`slug`), `createdAt`, the ed25519
 *               signature of the content id (`sig`, when the box signs), and the receipt's public
 *               part (`by`, `object`, `method`, `status`, `class`, `line`) when the card it names
 *               is visible to everyone; otherwise `sealed: true` and no public part, so nothing
 *               of a card one may not see is in the tree. A card that stops (or starts) being
 *               public has its records sealed (or opened) again in the next commit.
 */
import type { LexMap } from '@atproto/lex-data';
import type { Entry, EntryKind } from '../cards/kernel/entry.js';
import type { Doc } from '../stores/read-store.js';

/** The namespace of the town's own lexicons: record collections and the projection queries. */
export const townNamespace = 'town.world';

export const collectionOf = (kind: EntryKind | string) => `${townNamespace}.${kind}`;

export const entryKinds: readonly EntryKind[] = ['genesis', 'fork', 'arrival', 'turn', 'delivery', 'create', 'cite', 'carry'];
export const recordCollections: readonly string[] = entryKinds.map(collectionOf);

/** Twelve digits: a trillion entries before keys stop sorting as heights do. */
export const rkeyOf = (height: number) => String(height).padStart(12, '0');
export const heightOfRkey = (rkey: string): number | undefined => (/^\d{12}$/.test(rkey) ? Number(rkey) : undefined);

/** What a receipt shows anyone about a card everyone may see. */
export interface PublicPart {
  by: string;
  object?: string;
  method?: string;
  status: string;
  class?: string;
  line: string;
}

/** What a record document holds before its visibility and CID are settled. */
export interface RecordFields {
  /** `<collection>/<rkey>`: the record's key in the tree. */
  _id: string;
  collection: string;
  rkey: string;
  height: number;
  /** The entry's content id. */
  entry: string;
  slug: string;
  createdAt: string;
  /** The card the receipt is about ('' for none): its visibility decides `sealed`. */
  object: string;
  /** Kept whether or not it is shown, so that a card made public again opens its records. */
  public: PublicPart;
  /** base64 of the ed25519 signature of the content id (absent on a box that does not sign). */
  sig?: string;
}

/** A record of the repository as the read model keeps it. */
export type RecordDoc = RecordFields &
  Doc & {
    sealed: boolean;
    /** The CID of the record as it stands (sealed or open). */
    cid: string;
    /**
     * The rev of the commit that set the record's value (absent on a box that does not sign):
     * the record is its own block, and `getRepo` with `since` selects blocks by it.
     */
    rev?: string;
  };

const shortName = (p: string) => (p.startsWith('guest:') ? p.slice(p.lastIndexOf(':') + 1) : p);

/** The object and method a receipt is about (as the receipts projection reads them). */
export const objectOf = (e: Entry) => e.receipt.object ?? e.request?.object ?? '';
const methodOf = (e: Entry) => e.receipt.method ?? e.request?.method ?? '';

/** The record document of an entry, before its visibility and CID are settled. */
export function recordDocOf(entry: Entry, sig: Uint8Array | undefined): RecordFields {
  const collection = collectionOf(entry.kind);
  const rkey = rkeyOf(entry.height);
  const object = objectOf(entry);
  const method = methodOf(entry);
  const r = entry.receipt;
  return {
    _id: `${collection}/${rkey}`,
    collection,
    rkey,
    height: entry.height,
    entry: entry.cid,
    slug: entry.slug,
    createdAt: new Date(entry.clock).toISOString(),
    object,
    public: {
      by: shortName(entry.principal),
      ...(object ? { object } : {}),
      ...(method ? { method } : {}),
      status: r.status,
      ...(r.class !== undefined ? { class: r.class } : {}),
      line: r.line,
    },
    ...(sig ? { sig: Buffer.from(sig).toString('base64') } : {}),
  };
}

/**
 * The record itself (AT Protocol data: `sig` is bytes; `sigBytes`, when the caller holds them, are
 * the bytes `doc.sig` is the base64 of, so they need not be decoded again).
 */
export function recordValue(doc: RecordFields & { sealed: boolean }, sigBytes?: Uint8Array): LexMap {
  return {
    $type: doc.collection,
    height: doc.height,
    cid: doc.entry,
    slug: doc.slug,
    createdAt: doc.createdAt,
    ...(doc.sig !== undefined ? { sig: sigBytes ?? new Uint8Array(Buffer.from(doc.sig, 'base64')) } : {}),
    ...(doc.sealed ? { sealed: true } : doc.public),
  };
}

/** The message the receipt key signs: the content id's text, as UTF-8. */
const utf8 = new TextEncoder();
export const receiptMessage = (cid: string) => utf8.encode(cid);

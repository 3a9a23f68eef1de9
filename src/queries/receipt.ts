/**
 * `GET receipt/{slug}` and `GET receipt?intent=`: anyone's public part of a receipt, or the
 * caller's whole entry (read from the journal: the receipts read model finds receipts, the
 * journal holds them). A spoken name (three words) may name several receipts: then the answer
 * is `ambiguous` (409) listing them, with their content ids under `full=1`, and any of those
 * content ids names exactly one.
 *
 * Visibility (spec 1.1, 5.7): another's receipt about a card the caller may not see does not
 * exist for the caller, exactly as a receipt about a card that does not exist: its public part
 * would name the card and quote its line. A receipt about no card (the town's founding, an
 * arrival's own entry) is anyone's to read; one's own receipts are always one's own.
 */
import { TownError } from '../contract/town-error.js';
import type { Entry } from '../cards/kernel/entry.js';
import { carriedLine } from '../cards/kernel/outcome.js';
import { pastAt, pastByCid, pastBySlug, pastEnd, pastIntent, type PastReceipt } from '../cards/kernel/past.js';
import { decodeWorldEntry, epochStream } from '../events/world.js';
import { receiptDocs, type ReceiptDoc } from '../projections/receipts.js';
import { maySee, type WorldReads } from './world-reads.js';

const shortName = (p: string) => (p.startsWith('guest:') ? p.slice(p.lastIndexOf(':') + 1) : p);

/** What anyone may read of a receipt. */
export function publicPart(doc: ReceiptDoc) {
  return {
    slug: doc.slug,
    height: doc.height,
    status: doc.status,
    ...(doc.class !== undefined ? { class: doc.class } : {}),
    line: doc.line,
    object: doc.object,
    method: doc.method,
    kind: doc.kind,
    by: shortName(doc.principal),
    at: new Date(doc.clock).toISOString(),
  };
}

/** Where the current epoch's journal begins: receipts before it are pointers (spec 4.2). */
const carriedTo = (r: WorldReads) => {
  const past = r.past?.();
  return past ? pastEnd(past) : 0;
};

/**
 * A receipt from before a carry: where the whole of it lives and a message saying so. Nothing
 * of what it was about (no card, line or principal: the past does not keep them), so it tells
 * of no card anyone may not see, and reads the same from live read models and rebuilt ones.
 */
export function pointerReply(p: PastReceipt) {
  return { slug: p.slug, height: p.height, cid: p.cid, carried: p.pointer, message: carriedLine(p.pointer) };
}

/** The entry a receipt belongs to, from the journal of its epoch (its height less the epoch's start). */
async function entryOf(r: WorldReads, doc: ReceiptDoc): Promise<Entry | undefined> {
  const start = carriedTo(r);
  if (doc.height < start) return undefined;
  const [event] = await r.events.readStream(epochStream(doc.world, start), { fromRevision: BigInt(doc.height - start), maxCount: 1 });
  const entry = event ? decodeWorldEntry(event) : undefined;
  return entry?.cid === doc._id ? entry : undefined;
}

/** The public part, or for its own principal the whole entry. */
export async function receiptReply(r: WorldReads, doc: ReceiptDoc, principal: string, full: boolean) {
  const past = r.past?.();
  // a live read model still holds receipts from before a carry; a rebuilt one does not: alike, a pointer
  if (past && doc.height < pastEnd(past)) return pointerReply(pastAt(past, doc.height)!);
  const own = doc.principal === principal;
  const reply: Record<string, unknown> = { ...publicPart(doc), own };
  if (own) {
    const entry = await entryOf(r, doc);
    if (entry) {
      const { status: _s, line: _l, ...rest } = entry.receipt;
      Object.assign(reply, rest);
      if (doc.intent !== undefined) reply.intent = doc.intent;
      if (entry.request) reply.request = entry.request;
      if (full) {
        const { packages, ...kept } = entry;
        reply.entry = packages?.length ? { ...kept, packages: packages.map((p) => ({ pin: p.pin, pinSlug: p.pinSlug, kind: p.kind })) } : kept;
      }
    }
  }
  if (full) reply.cid = doc._id;
  return reply;
}

const looksLikeCid = (s: string) => /^b[a-z2-7]{20,}$/.test(s);

/** May `principal` read this receipt at all? */
async function mayRead(r: WorldReads, doc: ReceiptDoc, principal: string): Promise<boolean> {
  return doc.principal === principal || doc.object === '' || maySee(r, doc.object, principal);
}

export async function receiptBySlug(r: WorldReads, slug: string, principal: string, full: boolean) {
  const receipts = receiptDocs.in(r.reads);
  const past = r.past?.();
  const start = carriedTo(r);
  if (looksLikeCid(slug)) {
    const carried = past && pastByCid(past, slug);
    if (carried) return pointerReply(carried);
    const doc = await receipts.findOne({ _id: slug });
    if (doc && doc.world === r.world && (await mayRead(r, doc, principal))) return receiptReply(r, doc, principal, full);
  }
  const named = await receipts.find({ slug, world: r.world, height: { $gte: start } }, { sort: { height: 1 }, limit: 16 });
  // Filtered before counting: that a name is shared must not tell of a receipt one may not read.
  const docs: ReceiptDoc[] = [];
  for (const doc of named) if (await mayRead(r, doc, principal)) docs.push(doc);
  const before = past ? pastBySlug(past, slug) : [];
  if (before.length + docs.length > 1) {
    const receipts = [
      ...before.map((p) => ({ height: p.height, carried: p.pointer, ...(full ? { cid: p.cid } : {}) })),
      ...docs.map((d) => ({ height: d.height, object: d.object, method: d.method, ...(full ? { cid: d._id } : {}) })),
    ];
    throw new TownError('ambiguous', `${receipts.length} receipts are named ${slug}; ask with ?full=1 and cite the content id`, {
      fields: { receipts },
      hintHref: `/AGENTS.md/receipt/${encodeURIComponent(slug)}?full=1`,
    });
  }
  if (before.length === 1) return pointerReply(before[0]!);
  if (!docs.length) throw new TownError('unknown', `no receipt named ${JSON.stringify(slug.slice(0, 80))}`, { hintHref: '/AGENTS.md/world' });
  if (docs.length > 1) {
    throw new TownError('ambiguous', `${docs.length} receipts are named ${slug}; ask with ?full=1 and cite the content id`, {
      fields: { receipts: docs.map((d) => ({ height: d.height, object: d.object, method: d.method, ...(full ? { cid: d._id } : {}) })) },
      hintHref: `/AGENTS.md/receipt/${encodeURIComponent(slug)}?full=1`,
    });
  }
  return receiptReply(r, docs[0]!, principal, full);
}

/** The receipt at a height of the journal, as `principal` may read it (the service call getEntry). */
export async function receiptByHeight(r: WorldReads, height: number, principal: string, full: boolean) {
  const past = r.past?.();
  const carried = past && pastAt(past, height);
  if (carried) return pointerReply(carried);
  const doc = await receiptDocs.in(r.reads).findOne({ height, world: r.world });
  if (!doc || !(await mayRead(r, doc, principal))) throw new TownError('unknown', `no receipt at height ${height}`, { hintHref: '/AGENTS.md/world' });
  return receiptReply(r, doc, principal, full);
}

export async function receiptByIntent(r: WorldReads, intent: string, principal: string, full: boolean) {
  const past = r.past?.();
  // the past keeps a used intent as a hash with its request's: any request finds the receipt
  const carried = past && pastIntent(past, principal, intent, '');
  if (carried) return pointerReply(carried.receipt);
  const doc = await receiptDocs.in(r.reads).findOne({ principal, intent, world: r.world });
  if (!doc) throw new TownError('unknown', `you have no turn with intent ${JSON.stringify(intent.slice(0, 80))}`, { hintHref: '/AGENTS.md/world' });
  return receiptReply(r, doc, principal, full);
}

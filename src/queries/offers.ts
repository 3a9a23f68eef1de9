/**
 * `GET offers`: cards made for the caller, oldest first, after a height; `compact=1` answers
 * `{status, offers: [text], height}`; `wait` holds the request until an offer lands (at most 30
 * seconds), answering as soon as one does.
 */
import { limits } from '../contract/limits.js';
import { offerDocs, type OfferDoc } from '../projections/offers.js';
import type { WorldReads } from './world-reads.js';

export async function offersAfter(r: WorldReads, principal: string, after: number | undefined): Promise<OfferDoc[]> {
  const filter: Record<string, unknown> = { principal, world: r.world };
  if (after !== undefined) filter.height = { $gt: after };
  return offerDocs.in(r.reads).find(filter, { sort: { principal: 1, world: 1, height: 1 }, limit: limits.idsPerPage });
}

/**
 * Offers after `after`; when there are none and `waitMs` > 0, looks again whenever `changed`
 * says the read model moved, until one lands or the time is up.
 */
export async function waitForOffers(
  r: WorldReads,
  principal: string,
  after: number | undefined,
  waitMs: number,
  changed: (timeoutMs: number) => Promise<void>,
): Promise<OfferDoc[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const found = await offersAfter(r, principal, after);
    const left = deadline - Date.now();
    if (found.length || left <= 0) return found;
    await changed(left);
  }
}

export function offersReply(docs: OfferDoc[], compact: boolean, after: number | undefined) {
  const height = docs.length ? docs[docs.length - 1]!.height : (after ?? 0);
  if (compact) return { status: docs.length ? 'offers' : 'none', offers: docs.map((d) => d.text), height };
  return {
    status: docs.length ? 'offers' : 'none',
    offers: docs.map((d) => ({ text: d.text, object: d.object, kind: d.kind, height: d.height, receipt: d.slug })),
    height,
  };
}

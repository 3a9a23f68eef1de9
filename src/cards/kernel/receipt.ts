/**
 * Receipts: the body an entry journals (done or refused), and the receipt a reply shows (the
 * body with where its entry stands).
 */
import type { Usage } from '../program.js';
import { copied } from './copy.js';
import type { Entry, ReceiptBody } from './entry.js';
import type { CarriedPointer } from './past.js';
import { hintKind, refusalLine, type Refusal } from './refusal.js';
import { nameOf, type Turn } from './turn.js';

export const zeroUsage = (): Usage => ({ ticks: 0, heap: 0, bytes: 0 });

/**
 * Holds the receipt's place among an entry body's keys (key order is the JSON the store keeps)
 * until the turn is decided; every path puts the real receipt there before sealing.
 */
/**
 * A receipt as a reply shows it; height, cid and slug are absent for a refusal nothing journaled.
 * `carried`: a receipt from before a carry, of which only where it lives is known here.
 */
export type Receipt = ReceiptBody & { height?: number; cid?: string; slug?: string; carried?: CarriedPointer };

export const undecided: ReceiptBody = Object.freeze({ status: 'done', line: '', revealed: [], offers: [], usage: zeroUsage() }) as ReceiptBody;

export function refusedBody(r: Refusal, usage: Usage, object: string, method: string): ReceiptBody {
  const body: ReceiptBody = {
    status: 'refused',
    class: r.class,
    hintKind: hintKind(r.class),
    line: refusalLine(r),
    revealed: [],
    offers: [],
    usage: { ...usage },
    object: r.object ?? object,
    method,
  };
  for (const k of ['clause', 'reason', 'reading', 'hint', 'expected', 'original', 'root'] as const) {
    const v = r[k];
    if (v !== undefined) body[k] = v;
  }
  if (r.next !== undefined) body.next = r.next;
  return body;
}

export function doneBody(turn: Turn, object: string, method: string): ReceiptBody {
  const line = turn.lines[0] ?? `${nameOf(turn.scope.principal)} cast ${method} on ${object}`;
  const revealed = turn.revealed.slice();
  const offers = turn.offers.map((o) => o.text);
  const u = turn.usage;
  const usage = { ticks: u.ticks, heap: u.heap, bytes: u.bytes };
  const result = turn.result;
  // two literals rather than a key added later: receipts are kept for good, best with every field in the object itself
  return result !== undefined
    ? { status: 'done', line, revealed, offers, usage, object, method, result }
    : { status: 'done', line, revealed, offers, usage, object, method };
}

export const receiptOf = (entry: Entry): Receipt => placed(entry.receipt, entry.height, entry.cid, entry.slug);

/** The receipt with where it stands (built as `{...r, height, cid, slug}` would be, without its cost). */
function placed(r: ReceiptBody, height: number, cid: string, slug: string): Receipt {
  const out: Receipt = copied(r);
  out.height = height;
  out.cid = cid;
  out.slug = slug;
  return out;
}

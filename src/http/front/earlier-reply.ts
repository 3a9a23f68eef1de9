/**
 * Refusals as the earlier catalogue shape names them (spec 9, "Errors differ"), applied to a
 * JSON reply at the front when the town serves that shape. The kernel decides as ever; only the
 * names change: a `badSpell` clause outside the earlier list reads `unclear` (the kernel's own
 * clause stays readable in `reason`), and the classes the earlier shape lacks become the nearest
 * it has (earlierRefusalAs, docs/decisions/earlier-catalogue-shape.md).
 */
import { earlierBadSpellClauses, earlierRefusalAs, earlierXrpcAs } from '../../contract/earlier.js';
import { XrpcFailure } from '../../contract/xrpc-failure.js';

const clauses = new Set<string>(earlierBadSpellClauses);
const renamed = earlierRefusalAs as Record<string, string>;

/** A refusal (a turn reply, a receipt, a delivery line) in the earlier names; anything else unchanged. */
function renameRefusal(o: Record<string, unknown>): void {
  if (o.status !== 'refused' || typeof o.class !== 'string') return;
  const to = renamed[o.class];
  if (to !== undefined) o.class = to;
  else if (o.class === 'badSpell' && typeof o.clause === 'string' && !clauses.has(o.clause)) {
    if (typeof o.reason === 'string' && !o.reason.includes(o.clause)) o.reason = `${o.clause}: ${o.reason}`;
    o.clause = 'unclear';
  }
}

/**
 * Walks the reply's refusals in place: the reply itself, the `whole` receipt, the receipt of a
 * full `entry`, and the lists
 * a reply carries receipts in (`delivered`, `receipts`). Card state is never walked.
 */
export function earlierReply(reply: Record<string, unknown>): Record<string, unknown> {
  renameRefusal(reply);
  for (const inner of [reply.whole, (reply.entry as { receipt?: unknown } | undefined)?.receipt]) {
    if (inner && typeof inner === 'object') renameRefusal(inner as Record<string, unknown>);
  }
  for (const key of ['delivered', 'receipts', 'refused']) {
    const list = reply[key];
    if (Array.isArray(list)) for (const item of list) if (item && typeof item === 'object') renameRefusal(item as Record<string, unknown>);
  }
  return reply;
}

/**
 * A repository error of a name the earlier shape lacks (its read-only ledger's set), answered as
 * the nearest it has; any other failure unchanged.
 */
export function earlierFailure(err: unknown): unknown {
  if (!(err instanceof XrpcFailure)) return err;
  const to = (earlierXrpcAs as Partial<Record<string, XrpcFailure['error']>>)[err.error];
  return to === undefined ? err : new XrpcFailure(to, err.message, err.headers);
}

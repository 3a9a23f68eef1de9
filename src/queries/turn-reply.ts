/**
 * The turn reply of spec 2.5, rendered from what the kernel decided: the ONE place a receipt
 * becomes the body a guest reads. The world handlers add `_links` to it and answer it over
 * HTTP; the card command line (`npm run town -- card run`) prints the very same body, so a
 * refusal reads the same in both (class, clause, reason, reading, hint, expected, …).
 *
 * The codecs describe the bodies (they cross the HTTP boundary); the types come from them.
 */
import * as t from 'io-ts';
import type { Answer, HostRequest, Receipt, TryReport } from '../cards/kernel/outcome.js';
import { ReceiptBodyC, UsageC, type Entry } from '../cards/kernel/entry.js';
import type { Usage } from '../cards/program.js';
import { TypedDataC, type TypedData } from '../contract/typed.js';
import { TownError } from '../contract/town-error.js';

/** Where a receipt stands: its spoken name and height; `slug: null` when nothing was journaled. */
export const ReceiptRefC = t.intersection([t.type({ slug: t.union([t.string, t.null]), height: t.number }), t.partial({ cid: t.string })]);

/** A delivered send, as the turn and `deliver` replies list it; a refused one with where to look and why (spec 7.2). */
export const DeliveryLineC = t.intersection([
  t.type({ slug: t.string, height: t.number, status: t.string, line: t.string }),
  t.partial({ class: t.string, hintKind: t.string, clause: t.string, reason: t.string, object: t.string, method: t.string }),
]);
export type DeliveryLine = t.TypeOf<typeof DeliveryLineC>;

/** The fields a refusal carries beside the receipt (spec 7.2), in the order a reply lists them. */
export const refusalFields = ['hintKind', 'clause', 'reason', 'reading', 'hint', 'expected', 'original', 'root', 'next', 'object'] as const;

const RefusalFieldsC = t.partial({
  /** Spec 7.2: where to look next (receipt, source, self or world); `_links.hint` points there. */
  hintKind: t.string,
  clause: t.string,
  reason: t.string,
  reading: t.string,
  hint: t.string,
  expected: t.string,
  original: t.string,
  root: t.string,
  next: t.number,
  object: t.string,
});

const StatusC = t.union([t.literal('done'), t.literal('refused')]);

export const TurnReplyC = t.intersection([
  t.type({ status: StatusC, line: t.string, offers: t.array(t.string), receipt: ReceiptRefC }),
  RefusalFieldsC,
  t.partial({
    class: t.string,
    revealed: t.array(t.string),
    /** A refusal nothing journaled (moved, quiet, quota, duplicateIdentity). */
    journaled: t.literal(false),
    /** The same intent again: this is the first receipt. */
    repeated: t.literal(true),
    /** Sends the host delivered right after the turn. */
    delivered: t.array(DeliveryLineC),
    /** `full=1`: the whole receipt (result, usage, object, method, …). */
    whole: t.intersection([ReceiptBodyC, t.partial({ height: t.number, cid: t.string, slug: t.string })]),
  }),
]);
export type TurnReply = t.TypeOf<typeof TurnReplyC>;

/** `compact=1`: status, outcome, offer texts and receipt position. */
export const CompactTurnReplyC = t.intersection([
  t.type({ status: StatusC, outcome: t.string, offers: t.array(t.string), receipt: ReceiptRefC }),
  t.partial({ class: t.string }),
]);
export type CompactTurnReply = t.TypeOf<typeof CompactTurnReplyC>;

/** `try: true`: what the act would write, make, fire and open, and the roots it read. */
export const TryReplyC = t.intersection([
  t.type({
    status: StatusC,
    try: t.literal(true),
    line: t.string,
    offers: t.array(t.string),
    writes: t.array(t.type({ object: t.string, version: t.number, state: TypedDataC })),
    made: t.array(t.type({ object: t.string, kind: t.string, state: TypedDataC })),
    fires: t.array(t.type({ to: t.string, method: t.string, argument: TypedDataC })),
    opens: t.array(t.string),
    roots: t.array(t.type({ object: t.string, version: t.number })),
    usage: UsageC,
    receipt: ReceiptRefC,
    journaled: t.literal(false),
  }),
  RefusalFieldsC,
  t.partial({ class: t.string, revealed: t.array(t.string), result: TypedDataC }),
]);
export type TryReply = t.TypeOf<typeof TryReplyC>;

/** A scratch REPL entry that is not an Activity: its value, nothing journaled. */
export const ValueReplyC = t.type({ status: t.literal('value'), result: TypedDataC, usage: UsageC });
export type ValueReply = t.TypeOf<typeof ValueReplyC>;

export interface TurnReplyOptions {
  /** Height of the journal once the answer was given: where a refusal nothing journaled stands. */
  height: number;
  /** `full=1`: the receipt's content id and the whole receipt. */
  full?: boolean;
  /** The outcome was a repeat of an intent already spent on this very request. */
  repeated?: boolean;
  /** Sends the host delivered right after the turn. */
  deliveries?: readonly Entry[];
}

function receiptRef(r: Receipt, height: number): { slug: string | null; height: number } {
  return r.slug !== undefined ? { slug: r.slug, height: r.height ?? height } : { slug: null, height };
}

type RefusalDetail = t.TypeOf<typeof RefusalFieldsC>;

function refusalOf(r: Receipt | TryReport): RefusalDetail {
  const out: Record<string, unknown> = {};
  for (const k of refusalFields) if (r[k] !== undefined) out[k] = r[k];
  return out as RefusalDetail;
}

/** Spec 2.5: status, class, line, revealed, offers, receipt; a refusal's own fields beside them. */
export function turnReply(r: Receipt, o: TurnReplyOptions): TurnReply {
  const journaled = r.slug !== undefined;
  const reply: TurnReply = {
    status: r.status,
    ...(r.class !== undefined ? { class: r.class } : {}),
    line: r.line,
    ...(r.revealed.length ? { revealed: r.revealed } : {}),
    offers: r.offers,
    receipt: receiptRef(r, o.height),
  };
  if (r.status === 'refused') {
    Object.assign(reply, refusalOf(r));
    if (!journaled) reply.journaled = false;
  }
  if (o.repeated) reply.repeated = true;
  if (o.deliveries?.length) reply.delivered = o.deliveries.map(deliveryLine);
  if (o.full) {
    reply.receipt = { ...reply.receipt, ...(r.cid !== undefined ? { cid: r.cid } : {}) };
    reply.whole = { ...r };
  }
  return reply;
}

export function compactTurnReply(r: Receipt, height: number): CompactTurnReply {
  return {
    status: r.status,
    ...(r.class !== undefined ? { class: r.class } : {}),
    outcome: r.line,
    offers: r.offers,
    receipt: receiptRef(r, height),
  };
}

export function tryReply(report: TryReport, height: number): TryReply {
  return {
    status: report.status,
    ...(report.class !== undefined ? { class: report.class } : {}),
    try: true,
    line: report.line,
    ...(report.revealed.length ? { revealed: report.revealed } : {}),
    offers: report.offers,
    ...refusalOf(report),
    writes: report.writes,
    made: report.made,
    fires: report.fires,
    opens: report.opens,
    roots: report.roots,
    ...(report.result !== undefined ? { result: report.result } : {}),
    usage: report.usage,
    receipt: { slug: null, height },
    journaled: false,
  };
}

export function deliveryLine(e: Entry): DeliveryLine {
  const r = e.receipt;
  return {
    slug: e.slug,
    height: e.height,
    status: r.status,
    ...(r.class !== undefined ? { class: r.class } : {}),
    ...(r.hintKind !== undefined ? { hintKind: r.hintKind } : {}),
    ...(r.clause !== undefined ? { clause: r.clause } : {}),
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    line: r.line,
    ...(e.request ? { object: e.request.object, method: e.request.method } : {}),
  };
}

export const valueReply = (result: TypedData, usage: Usage): ValueReply => ({ status: 'value', result, usage: { ...usage } });

/**
 * `hostRequest` (spec 7.1): the kernel refused the request as malformed. The compile error's
 * stage, module, span and diagnostics ride beside the envelope; its hint is the envelope's own.
 */
export function hostRequestError(e: HostRequest): TownError {
  const { class: _c, message, hint, ...fields } = e;
  return new TownError('hostRequest', message, { ...(hint !== undefined ? { hint } : {}), fields });
}

/**
 * The reply to a decided turn (or a REPL Activity): the turn reply, its compact form, a try
 * report, a value. A request the kernel rejected is thrown as `hostRequest`.
 */
export function outcomeReply(outcome: Answer, o: TurnReplyOptions & { compact?: boolean }): TurnReply | CompactTurnReply | TryReply | ValueReply {
  switch (outcome.kind) {
    case 'rejected':
      throw hostRequestError(outcome.error);
    case 'try':
      return tryReply(outcome.report, o.height);
    case 'value':
      return valueReply(outcome.value, outcome.usage);
    case 'journal':
    case 'repeat':
    case 'refused':
      if (o.compact) return compactTurnReply(outcome.receipt, o.height);
      return turnReply(outcome.receipt, { ...o, repeated: outcome.kind === 'repeat' });
    default:
      throw new Error(`a turn decided ${outcome.kind}`);
  }
}

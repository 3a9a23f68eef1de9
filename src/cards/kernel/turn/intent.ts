/**
 * Stage 2, first gate (turn/decide-turn.ts): the intent. An intent names one request forever:
 * the same request again is a repeat (its first receipt, nothing journaled); another request
 * under it is refused `duplicateIdentity` naming the first, and journals nothing (the intent is
 * already spent on the first request). Creates, REPL turns and cites pass the same gate.
 */
import type { Outcome } from '../outcome.js';
import { refusedBody, zeroUsage } from '../receipt.js';
import { pastIntent } from '../past.js';
import { intentKey, type World } from '../world.js';

/** A repeat, a `duplicateIdentity`, or undefined for an unused intent. */
export function intentGate(world: World, principal: string, intent: string, fp: string, object: string, method: string): Outcome | undefined {
  const rec = world.intents.get(intentKey(principal, intent));
  if (!rec) return world.past ? pastGate(world, principal, intent, fp, object, method) : undefined;
  const first = world.receipts.get(rec.cid);
  if (rec.fingerprint === fp && first) return { kind: 'repeat', first: { cid: first.cid, slug: first.slug, height: first.height } };
  const where = first ? `entry ${first.height} (${first.method} on ${first.object}, receipt ${first.slug})` : `entry ${rec.cid}`;
  return {
    kind: 'refused',
    receipt: refusedBody(
      {
        class: 'duplicateIdentity',
        original: rec.cid,
        reason: `intent ${JSON.stringify(intent.slice(0, 64))} was already used for another request: ${where}; resend under a fresh intent`,
      },
      zeroUsage(),
      object,
      method,
    ),
  };
}

/** An intent used before the latest carry: the same request answers the pointer; another is refused. */
function pastGate(world: World, principal: string, intent: string, fp: string, object: string, method: string): Outcome | undefined {
  const used = pastIntent(world.past!, principal, intent, fp);
  if (!used) return undefined;
  const { cid, slug, height, pointer } = used.receipt;
  if (used.same) return { kind: 'repeat', first: { cid, slug, height, carried: { status: used.status, pointer } } };
  return {
    kind: 'refused',
    receipt: refusedBody(
      {
        class: 'duplicateIdentity',
        original: cid,
        reason: `intent ${JSON.stringify(intent.slice(0, 64))} was already used for another request: entry ${height} (receipt ${slug}), from before a carry (archive ${pointer.archive}, epoch ${pointer.epoch}); resend under a fresh intent`,
      },
      zeroUsage(),
      object,
      method,
    ),
  };
}

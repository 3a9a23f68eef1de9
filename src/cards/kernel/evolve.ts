/**
 * evolve(world, entry) -> world: applies one journal entry. Deterministic, runs no card code;
 * replaying a journal from its first entry reproduces the world. It updates the world's Maps in
 * place (replacing values, never editing them) and returns the same world.
 */
import type { Card, Entry, Write } from './entry.js';
import { applyCarry } from './carry.js';
import { copied } from './copy.js';
import { hourOf, intentKey, linesKept, offersKept, type OfferRecord, type ReceiptRecord, type World } from './world.js';

export class JournalGap extends Error {
  constructor(
    readonly expected: number,
    readonly got: number,
  ) {
    super(`entry at height ${got} does not follow height ${expected - 1}`);
  }
}

export function evolve(world: World, entry: Entry): World {
  // A carry begins an epoch: its journal holds nothing before it, so a blank world takes it too
  // (its first part: the continuation entries follow it).
  if (entry.height !== world.height && !(entry.carried && !entry.carried.part && world.height === 0)) throw new JournalGap(world.height, entry.height);
  if (entry.carried) applyCarry(world, entry.carried);
  if (entry.world) {
    world.name = entry.world.name;
    world.host = entry.world.host;
    world.opener = entry.world.opener;
    world.entrance = entry.world.entrance;
  }
  if (entry.packages) for (const pkg of entry.packages) world.packages.set(pkg.pin, pkg);
  if (entry.kinds) for (const k of entry.kinds) world.kinds.set(k.name, k.pin);
  if (entry.made) for (const card of entry.made) world.cards.set(card.id, card);
  if (entry.writes)
    for (const write of entry.writes) {
      const card = world.cards.get(write.id);
      if (card) world.cards.set(write.id, applyWrite(card, write));
    }
  if (entry.offers)
    for (const offer of entry.offers) {
      const old = world.offers.get(offer.principal) ?? [];
      const record = copied(offer) as OfferRecord;
      record.height = entry.height;
      const next = [...old, record];
      world.offers.set(offer.principal, next.length > offersKept ? next.slice(-offersKept) : next);
    }
  if (entry.consumed !== undefined) {
    const send = world.pending.get(entry.consumed);
    world.pending.delete(entry.consumed);
    if (send) {
      const run = world.runs.get(send.run);
      if (run) world.runs.set(send.run, { ...run, waiting: run.waiting - 1 });
    }
  }
  if (entry.spent) {
    const run = world.runs.get(entry.spent.run);
    if (run) world.runs.set(entry.spent.run, { ...run, work: entry.spent.work, storage: entry.spent.storage });
  }
  if (entry.sends)
    for (const send of entry.sends) {
      world.pending.set(send.id, send);
      const run = world.runs.get(send.run) ?? { work: 0, storage: 0, waiting: 0 };
      world.runs.set(send.run, { ...run, waiting: run.waiting + 1 });
    }
  if (entry.spent) {
    const run = world.runs.get(entry.spent.run);
    if (run && run.waiting <= 0) world.runs.delete(entry.spent.run);
  }
  if (entry.quiet) world.quiet.set(entry.quiet.principal, entry.quiet);
  if (entry.avatars) for (const a of entry.avatars) world.avatars.set(a.principal, a.object);
  if (entry.intent) world.intents.set(intentKey(entry.principal, entry.intent.intent), { fingerprint: entry.intent.fingerprint, cid: entry.cid });
  if (entry.kind === 'turn') countTurn(world, entry.principal, entry.clock);
  if (entry.kind !== 'delivery' && entry.kind !== 'genesis' && entry.kind !== 'fork' && entry.kind !== 'carry') world.seen.set(entry.principal, entry.clock);

  const object = entry.receipt.object ?? entry.request?.object ?? '';
  const method = entry.receipt.method ?? entry.request?.method ?? '';
  // two literals rather than a key added later: the record then keeps every field in the object itself
  const record: ReceiptRecord = entry.intent
    ? { cid: entry.cid, slug: entry.slug, height: entry.height, clock: entry.clock, principal: entry.principal, object, method, intent: entry.intent.intent }
    : { cid: entry.cid, slug: entry.slug, height: entry.height, clock: entry.clock, principal: entry.principal, object, method };
  world.receipts.set(entry.cid, record);
  const sharing = world.slugs.get(entry.slug);
  world.slugs.set(entry.slug, sharing ? [...sharing, entry.cid] : [entry.cid]);

  world.height = entry.height + 1;
  world.clock = entry.clock;
  return world;
}

function countTurn(world: World, principal: string, clock: number): void {
  const hour = hourOf(clock);
  const old = world.turns.get(principal);
  world.turns.set(principal, { hour, count: old && old.hour === hour ? old.count + 1 : 1 });
}

export function applyWrite(card: Card, write: Write): Card {
  const next: Card = { ...card, version: write.version };
  if (write.state !== undefined) next.state = write.state;
  if (write.kind !== undefined) next.kind = write.kind;
  if (write.pin !== undefined) next.pin = write.pin;
  if (write.pinSlug !== undefined) next.pinSlug = write.pinSlug;
  if (write.owner !== undefined) next.owner = write.owner;
  if (write.visibility !== undefined) next.visibility = write.visibility;
  if (write.lent !== undefined) next.lent = write.lent;
  if (write.place !== undefined) next.place = write.place;
  if (write.say?.length) next.lines = newest(card.lines, write.say, linesKept);
  return next;
}

/** Replays entries over a blank (or given) world. */
export function replay(entries: Iterable<Entry>, world: World): World {
  for (const entry of entries) evolve(world, entry);
  return world;
}

/** The last `keep` of `old` followed by `added`, in one new array. */
function newest<T>(old: readonly T[], added: readonly T[], keep: number): T[] {
  const total = old.length + added.length;
  const skip = Math.max(0, total - keep);
  const out: T[] = [];
  for (let i = skip; i < old.length; i++) out.push(old[i]!);
  for (let i = Math.max(0, skip - old.length); i < added.length; i++) out.push(added[i]!);
  return out;
}

/**
 * The world a carry starts its epoch from: the present of the world carried over as it stands,
 * its past (every receipt, slug and intent record) replaced by the compact past of past.ts.
 * Pure: the caller builds the past from the archived epoch (a function of its entries).
 */
import { createHash } from 'node:crypto';
import { stableJson } from './content-id.js';
import type { Carried, Entry } from './entry.js';
import { decodePast, pastAt, pastEnd, pastOfTables, type Past } from './past.js';
import { zeroUsage } from './receipt.js';
import { seal } from './seal.js';
import { blankWorld, type World } from './world.js';

/**
 * The carried world: cards, packages, kinds, avatars, queued sends and their runs, offers,
 * quiet, turn counts and last-seen as they stand; no receipts, slugs or intents (the past holds
 * them); the same height and clock, so heights never repeat across a carry.
 */
export function carryWorld(world: World, past: Past): World {
  if (pastEnd(past) !== world.height) throw new Error(`a past ending at height ${pastEnd(past)} cannot carry a world at height ${world.height}`);
  const carried = blankWorld();
  carried.name = world.name;
  carried.host = world.host;
  carried.opener = world.opener;
  carried.entrance = world.entrance;
  carried.height = world.height;
  carried.clock = world.clock;
  for (const name of presentMaps) {
    const into = carried[name] as Map<unknown, unknown>;
    for (const [k, v] of world[name] as Map<unknown, unknown>) into.set(k, v);
  }
  carried.past = past;
  return carried;
}

/** The World's Maps that are its present (everything but receipts, slugs and intents). */
export const presentMaps = [
  'cards',
  'packages',
  'kinds',
  'avatars',
  'pending',
  'runs',
  'offers',
  'quiet',
  'turns',
  'seen',
] as const satisfies readonly (keyof World)[];

/**
 * SHA-256 of the world's present as stable JSON (info, height, clock and every present Map in key
 * order): equal for a world and its carry, so an archive's trailer and a carry entry can name it.
 */
export function presentDigest(world: World): string {
  const h = createHash('sha256');
  h.update(stableJson({ name: world.name, host: world.host, opener: world.opener, entrance: world.entrance, height: world.height, clock: world.clock }));
  for (const name of presentMaps) {
    const map = world[name] as Map<string | number, unknown>;
    const keys = [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    h.update(`\n${name}`);
    for (const k of keys) h.update(`\n${stableJson(k)}\t${stableJson(map.get(k))}`);
  }
  return h.digest('hex');
}

/** The archive a carry names: the file of the epoch before, its hash, final height and digest. */
export type CarriedArchive = Carried['archive'];

/**
 * The carry entry: the first entry of epoch `epoch`, at the height the world stands at, holding
 * its present and `past` (the past of every epoch before, the one just archived included).
 * Applied to a blank world (the new epoch replayed alone) or to the world it was made from, it
 * gives `carryWorld(world, past)` with the carry's own receipt. One part: see `carryEntries`.
 */
export function carryEntry(world: World, past: Past, epoch: number, archive: CarriedArchive, clock: number): Entry {
  const [entry, ...more] = carryEntries(world, past, epoch, archive, clock, Number.POSITIVE_INFINITY);
  if (more.length) throw new Error('a carry in one part made several');
  return entry!;
}

/** What an entry holds beside its `carried` (receipt, cid, slug, the JSON around it): kept free in a part's budget. */
const entryOverhead = 4096;

/** Bytes of a past table in one piece at most (the tables are joined byte for byte at the last part). */
const pastPiece = 240 * 1024;

type Present = Carried['present'];
type Item =
  | { into: Exclude<keyof Present, 'world'>; value: Present[Exclude<keyof Present, 'world'>][number] }
  | { table: 'digests' | 'slugs' | 'intents'; bytes: Buffer };

/**
 * The carry as entries: the carry entry, then as many continuation entries as it takes for none
 * to be over `budget` bytes (the store's largest append: each is appended alone). Each part holds
 * a run of the present (every Map in its own order, packages and kinds first so a card's package
 * is known before the card) and of the past's tables; part 0 also the past's epochs. Heights go
 * on from the world's: the carry entry at its height, each continuation at the next one.
 * Deterministic: the same world, past, archive, clock and budget give the same entries (a carry
 * killed between parts is completed by appending the rest, commands/carry.ts).
 */
export function carryEntries(world: World, past: Past, epoch: number, archive: CarriedArchive, clock: number, budget: number): Entry[] {
  if (pastEnd(past) !== world.height || archive.height !== world.height) {
    throw new Error(`a carry at height ${world.height} needs a past and an archive ending there (${pastEnd(past)}, ${archive.height})`);
  }
  const info = { name: world.name, host: world.host, opener: world.opener, entrance: world.entrance };
  const items: Item[] = [];
  const add = (into: Exclude<keyof Present, 'world'>, values: Iterable<unknown>) => {
    for (const value of values) items.push({ into, value } as Item);
  };
  // in each Map's own order (the journal's): a world replayed from the entries iterates as the live one
  add('packages', [...world.packages.values()]);
  add(
    'kinds',
    [...world.kinds].map(([name, pin]) => ({ name, pin })),
  );
  add('cards', [...world.cards.values()]);
  add(
    'avatars',
    [...world.avatars].map(([principal, object]) => ({ principal, object })),
  );
  add('pending', [...world.pending.values()]);
  add(
    'runs',
    [...world.runs].map(([run, r]) => ({ run, work: r.work, storage: r.storage, waiting: r.waiting })),
  );
  add(
    'offers',
    [...world.offers].map(([principal, offers]) => ({
      principal,
      offers: offers.map((o) => {
        const made = pastAt(past, o.height);
        return made ? { ...o, cid: made.cid, slug: made.slug } : { ...o };
      }),
    })),
  );
  add('quiet', [...world.quiet.values()]);
  add(
    'turns',
    [...world.turns].map(([principal, c]) => ({ principal, hour: c.hour, count: c.count })),
  );
  add(
    'seen',
    [...world.seen].map(([principal, clock]) => ({ principal, clock })),
  );
  const room = budget - entryOverhead - JSON.stringify({ epoch, archive, past: { epochs: past.epochs }, present: { world: info } }).length - 512;
  // half a part at most (as base64), so pieces and the present share parts
  const piece = Math.max(1024, Math.min(pastPiece, Math.floor((room * 3) / 8)));
  const slugBytes = Buffer.from(past.slugs.buffer, past.slugs.byteOffset, past.slugs.byteLength);
  for (const [table, bytes] of [
    ['digests', past.digests],
    ['slugs', slugBytes],
    ['intents', past.intents],
  ] as const) {
    for (let i = 0; i < bytes.length; i += piece) items.push({ table, bytes: bytes.subarray(i, i + piece) });
  }

  const empty = (): { present: Present; tables: Record<'digests' | 'slugs' | 'intents', Buffer[]> } => ({
    present: { world: info, cards: [], packages: [], kinds: [], avatars: [], pending: [], runs: [], offers: [], quiet: [], turns: [], seen: [] },
    tables: { digests: [], slugs: [], intents: [] },
  });
  const parts = [empty()];
  let used = 0;
  for (const item of items) {
    const size = 'table' in item ? Math.ceil(item.bytes.length / 3) * 4 : Buffer.byteLength(JSON.stringify(item.value)) + 1;
    if (size > room) throw new CarryTooLarge(`one part of the carry holds ${size} bytes, over the ${budget} a part may hold`);
    if (used + size > room) {
      parts.push(empty());
      used = 0;
    }
    used += size;
    const part = parts[parts.length - 1]!;
    if ('table' in item) part.tables[item.table].push(item.bytes);
    else (part.present[item.into] as unknown[]).push(item.value);
  }
  const of = (b: Buffer[]) => Buffer.concat(b).toString('base64');
  return parts.map((p, i) => {
    const carried: Carried = {
      epoch,
      archive,
      past: { epochs: i === 0 ? past.epochs : [], digests: of(p.tables.digests), slugs: of(p.tables.slugs), intents: of(p.tables.intents) },
      present: p.present,
      ...(parts.length > 1 ? { part: i, parts: parts.length } : {}),
    };
    const line =
      i === 0
        ? `the town carried its present into epoch ${epoch}; entries before height ${world.height} lie in the archive ${archive.file}`
        : `the carry into epoch ${epoch} goes on: part ${i + 1} of ${parts.length}`;
    return seal({
      height: world.height + i,
      clock: Math.max(clock, world.clock),
      kind: 'carry',
      principal: 'town',
      receipt: { status: 'done', line, revealed: [], offers: [], usage: zeroUsage(), object: '', method: 'carry' },
      carried,
    });
  });
}

/** A carry with one thing (a card, a package) larger than a part may hold: nothing is carried. */
export class CarryTooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CarryTooLarge';
  }
}

/**
 * Lays a carry entry's world into `world` (evolve.ts): part 0 replaces everything before it;
 * each continuation adds its run of the present and of the past's tables; the past is whole at
 * the last part.
 */
export function applyCarry(world: World, carried: Carried): void {
  const p = carried.present;
  const part = carried.part ?? 0;
  const parts = carried.parts ?? 1;
  if (part === 0) {
    Object.assign(world, p.world);
    const fresh = blankWorld();
    for (const [k, v] of Object.entries(fresh)) if (v instanceof Map) (world as unknown as Record<string, unknown>)[k] = v;
    world.carrying = undefined;
    if (parts === 1) world.past = decodePast(carried.past);
    else {
      world.past = undefined;
      world.carrying = { parts, next: 0, epochs: carried.past.epochs, digests: [], slugs: [], intents: [] };
    }
  } else if (!world.carrying || world.carrying.next !== part || world.carrying.parts !== parts) {
    throw new Error(`part ${part} of ${parts} of a carry came where ${world.carrying ? `part ${world.carrying.next}` : 'no carry in parts'} was due`);
  }
  for (const pkg of p.packages) world.packages.set(pkg.pin, pkg);
  for (const k of p.kinds) world.kinds.set(k.name, k.pin);
  for (const c of p.cards) world.cards.set(c.id, c);
  for (const a of p.avatars) world.avatars.set(a.principal, a.object);
  for (const s of p.pending) world.pending.set(s.id, s);
  for (const r of p.runs) world.runs.set(r.run, { work: r.work, storage: r.storage, waiting: r.waiting });
  // the kernel's offer records, without the content id and slug carried for the read model
  for (const o of p.offers)
    world.offers.set(
      o.principal,
      o.offers.map(({ cid: _c, slug: _s, ...offer }) => offer),
    );
  for (const q of p.quiet) world.quiet.set(q.principal, q);
  for (const t of p.turns) world.turns.set(t.principal, { hour: t.hour, count: t.count });
  for (const s of p.seen) world.seen.set(s.principal, s.clock);
  const c = world.carrying;
  if (!c) return;
  c.digests.push(Buffer.from(carried.past.digests, 'base64'));
  c.slugs.push(Buffer.from(carried.past.slugs, 'base64'));
  c.intents.push(Buffer.from(carried.past.intents, 'base64'));
  c.next = part + 1;
  if (c.next < c.parts) return;
  world.past = pastOfTables(c.epochs, Buffer.concat(c.digests), Buffer.concat(c.slugs), Buffer.concat(c.intents));
  world.carrying = undefined;
}

/**
 * The world a carry starts its epoch from: the present of the world carried over as it stands,
 * its past (every receipt, slug and intent record) replaced by the compact past of past.ts.
 * Pure: the caller builds the past from the archived epoch (a function of its entries).
 */
import { createHash } from 'node:crypto';
import { stableJson } from './content-id.js';
import type { Carried, Entry } from './entry.js';
import { decodePast, encodePast, pastEnd, type Past } from './past.js';
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
 * gives `carryWorld(world, past)` with the carry's own receipt.
 */
export function carryEntry(world: World, past: Past, epoch: number, archive: CarriedArchive, clock: number): Entry {
  if (pastEnd(past) !== world.height || archive.height !== world.height) {
    throw new Error(`a carry at height ${world.height} needs a past and an archive ending there (${pastEnd(past)}, ${archive.height})`);
  }
  // in each Map's own order (the journal's): a world replayed from the entry iterates as the live one
  const pairs = <K, V>(m: Map<K, V>) => [...m];
  const carried: Carried = {
    epoch,
    archive,
    past: encodePast(past),
    present: {
      world: { name: world.name, host: world.host, opener: world.opener, entrance: world.entrance },
      cards: pairs(world.cards).map(([, c]) => c),
      packages: pairs(world.packages).map(([, p]) => p),
      kinds: pairs(world.kinds).map(([name, pin]) => ({ name, pin })),
      avatars: pairs(world.avatars).map(([principal, object]) => ({ principal, object })),
      pending: pairs(world.pending).map(([, send]) => send),
      runs: pairs(world.runs).map(([run, r]) => ({ run, work: r.work, storage: r.storage, waiting: r.waiting })),
      offers: pairs(world.offers).map(([principal, offers]) => ({ principal, offers: [...offers] })),
      quiet: pairs(world.quiet).map(([, q]) => q),
      turns: pairs(world.turns).map(([principal, c]) => ({ principal, hour: c.hour, count: c.count })),
      seen: pairs(world.seen).map(([principal, c]) => ({ principal, clock: c })),
    },
  };
  return seal({
    height: world.height,
    clock: Math.max(clock, world.clock),
    kind: 'carry',
    principal: 'town',
    receipt: {
      status: 'done',
      line: `the town carried its present into epoch ${epoch}; entries before height ${world.height} lie in the archive ${archive.file}`,
      revealed: [],
      offers: [],
      usage: zeroUsage(),
      object: '',
      method: 'carry',
    },
    carried,
  });
}

/** Lays a carry entry's world into `world` (evolve.ts): everything before it is replaced. */
export function applyCarry(world: World, carried: Carried): void {
  const p = carried.present;
  Object.assign(world, p.world);
  const fresh = blankWorld();
  for (const [k, v] of Object.entries(fresh)) if (v instanceof Map) (world as unknown as Record<string, unknown>)[k] = v;
  for (const c of p.cards) world.cards.set(c.id, c);
  for (const pkg of p.packages) world.packages.set(pkg.pin, pkg);
  for (const k of p.kinds) world.kinds.set(k.name, k.pin);
  for (const a of p.avatars) world.avatars.set(a.principal, a.object);
  for (const s of p.pending) world.pending.set(s.id, s);
  for (const r of p.runs) world.runs.set(r.run, { work: r.work, storage: r.storage, waiting: r.waiting });
  for (const o of p.offers) world.offers.set(o.principal, o.offers);
  for (const q of p.quiet) world.quiet.set(q.principal, q);
  for (const t of p.turns) world.turns.set(t.principal, { hour: t.hour, count: t.count });
  for (const s of p.seen) world.seen.set(s.principal, s.clock);
  world.past = decodePast(carried.past);
}

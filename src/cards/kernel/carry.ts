/**
 * The world a carry starts its epoch from: the present of the world carried over as it stands,
 * its past (every receipt, slug and intent record) replaced by the compact past of past.ts.
 * Pure: the caller builds the past from the archived epoch (a function of its entries).
 */
import { createHash } from 'node:crypto';
import { stableJson } from './content-id.js';
import { pastEnd, type Past } from './past.js';
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

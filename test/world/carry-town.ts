/**
 * A stored town of a few thousand mixed entries for the carry tests: the random play of the
 * kernel tests (test/cards/kernel/random-play.ts), appended to `world-town` of an embedded store,
 * and the world service that runs on it.
 */
import { entryEvent, TOWN_WORLD, worldStream } from '../../src/events/world.js';
import { WorldService } from '../../src/commands/world-service.js';
import type { EventStore } from '../../src/stores/event-store.js';
import { defaultOptions } from '../../src/cards/kernel/options.js';
import { fixturePrograms } from '../cards/kernel/fixtures.js';
import type { Harness } from '../cards/kernel/harness.js';
import { play } from '../cards/kernel/random-play.js';

export function playedTown(steps = 3500, seed = 11): Harness {
  return play(seed, steps);
}

export async function storeTown(events: EventStore, h: Harness): Promise<void> {
  for (let i = 0; i < h.journal.length; i += 64) {
    const chunk = h.journal.slice(i, i + 64);
    await events.append(
      worldStream(TOWN_WORLD),
      chunk.map((e) => entryEvent(TOWN_WORLD, e)),
      i === 0 ? 'noStream' : BigInt(i - 1),
    );
  }
}

export async function openService(events: EventStore, h: Harness, clock: () => number): Promise<WorldService> {
  const service = new WorldService({
    events,
    programs: fixturePrograms().programs,
    clock,
    options: () => ({ ...defaultOptions, ...h.options }),
    genesis: { host: 'town.test', opener: 'guest:town.test:mayor' },
  });
  await service.open();
  return service;
}

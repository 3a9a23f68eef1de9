/**
 * A stored town of a few thousand mixed entries for the carry tests: the random play of the
 * kernel tests (test/cards/kernel/random-play.ts), appended to `world-town` of an embedded store,
 * and the world service that runs on it.
 */
import path from 'node:path';
import { carry } from '../../src/commands/carry.js';
import { entryEvent, TOWN_WORLD, worldStream } from '../../src/events/world.js';
import { openEventStore } from '../../src/stores/open-event-store.js';
import type { TestTown } from './support.js';
import { WorldService } from '../../src/commands/world-service.js';
import type { EventStore } from '../../src/stores/event-store.js';
import type { ReadStore } from '../../src/stores/read-store.js';
import { digestProjection } from '../../src/projections/digest.js';
import { projectionNames } from '../../src/projections/index.js';
import { allProjections } from '../../src/projectors/registry.js';
import type { Projection } from '../../src/projections/projection.js';
import { foldChunk } from '../../src/projections/rebuild.js';
import { defaultOptions } from '../../src/cards/kernel/options.js';
import { fixturePrograms } from '../cards/kernel/fixtures.js';
import type { Harness } from '../cards/kernel/harness.js';
import { play } from '../cards/kernel/random-play.js';

export function playedTown(steps = 3500, seed = 11): Harness {
  return play(seed, steps);
}

/** Appends the journal in chunks of at most 64 entries and about 64 KiB (under the smallest append size a test sets). */
export async function storeTown(events: EventStore, h: Harness): Promise<void> {
  let i = 0;
  while (i < h.journal.length) {
    const chunk = [entryEvent(TOWN_WORLD, h.journal[i]!)];
    let bytes = JSON.stringify(chunk[0]).length;
    while (i + chunk.length < h.journal.length && chunk.length < 64) {
      const next = entryEvent(TOWN_WORLD, h.journal[i + chunk.length]!);
      bytes += JSON.stringify(next).length;
      if (bytes > 64 * 1024) break;
      chunk.push(next);
    }
    await events.append(worldStream(TOWN_WORLD), chunk, i === 0 ? 'noStream' : BigInt(i - 1));
    i += chunk.length;
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

/**
 * Carries a running test town's world while the town is stopped (`t.restart`), as `npm run town
 * -- carry` does on a stopped store; the town starts again on the new epoch.
 */
export async function carryWhileStopped(t: Pick<TestTown, 'restart' | 'dir' | 'clock'>): Promise<{ archive: string; height: number }> {
  let done: { archive: string; height: number } | undefined;
  await t.restart({}, async () => {
    const events = await openEventStore({ url: undefined, dataDir: t.dir });
    try {
      done = await carry({ events, world: TOWN_WORLD, archiveDir: path.join(t.dir, 'archive'), clock: t.clock });
    } finally {
      await events.close();
    }
  });
  return done!;
}

/** The read models' digests, one line each (`<projection> <documents> <sha256>`), in projection order. */
export async function digests(reads: ReadStore): Promise<string[]> {
  const projections = allProjections(fixturePrograms().programs);
  const out: string[] = [];
  for (const name of projectionNames) {
    const d = await digestProjection(reads, projections[name]);
    out.push(`${name} ${d.documents} ${d.sha256}`);
  }
  return out;
}

/** Folds what the journal holds after `after` in batches of 64, as a live projector does; answers the last position folded. */
export async function follow(events: EventStore, reads: ReadStore, projections: Projection[], after: bigint | undefined): Promise<bigint | undefined> {
  let chunk = [];
  let last = after;
  for await (const event of events.readAll(after === undefined ? {} : { after })) {
    chunk.push(event);
    if (chunk.length === 64) {
      last = await foldChunk(reads, projections, chunk);
      chunk = [];
    }
  }
  if (chunk.length) last = await foldChunk(reads, projections, chunk);
  return last;
}

/**
 * A rebuild without downtime (`npm run rebuild -- --live`): every read model is folded again
 * into the next generation of the read store (read-store-generations.ts) while the town keeps
 * serving from the current one and its projectors keep folding it; the new generation catches
 * up with the journal in rounds; then, for the last few events only, the projectors are
 * suspended, the new generation folds the tail up to the journal's head, the store switches to
 * it in one step, the projectors resume on it, and the old generation is dropped.
 *
 * No read goes back: when the store switches, the new generation holds everything up to a head
 * at least as far as anything the old one had folded (the projectors were suspended first), and
 * every reader opens its collections through the store, which is the new generation from then
 * on. Reads during the pause are answered from the old generation as it stands; a read waiting
 * for its own turn waits for the resumed projectors (which tell it at once where they are).
 *
 * All read models switch together: a generation is whole, and a reader joining two read models
 * never sees one from each.
 */
import type { EventStore, RecordedEvent } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import type { Projection } from './projection.js';
import type { ProjectorHandle } from './projector.js';
import { foldChunk, rebuildProjections, type Progress } from './rebuild.js';

export interface LiveRebuildOptions {
  events: EventStore;
  /** The store itself (not a view): what switches. */
  reads: ReadStore;
  /** Every read model the town serves. */
  projections: Projection[];
  /** The town's own projectors, suspended for the switch. */
  projectors: ProjectorHandle[];
  /** Events per unit (default 10,000, as rebuilds). */
  batch?: number;
  /**
   * The switch waits until the new generation is at most this many events behind the head
   * (default 200), so that the pause folds a short tail; after `rounds` rounds it switches
   * whatever the lag (a town appending faster than a rebuild folds would never get there).
   */
  switchLag?: number;
  rounds?: number;
  onProgress?(p: Progress): void;
  /** Told of each step (catch-up rounds, the switch), for the operator. */
  onStep?(line: string): void;
}

export interface LiveRebuildResult {
  /** The generation served before, and the one served now. */
  from: number;
  generation: number;
  /** Events folded into the new generation, and seconds it took in all. */
  events: number;
  seconds: number;
  /** The journal position the new generation had folded when the store switched. */
  switchedAt: bigint | undefined;
  /**
   * How long the projectors read-your-writes waits on were suspended (the last suspended: the
   * repository's, which signs, is suspended first and longer).
   */
  pauseMs: number;
}

/** What builds a generation beside the current one (a live rebuild, an export), per store. */
const building = new WeakMap<ReadStore, string>();

/**
 * Runs `work` as the store's only builder of a next generation: a live rebuild and an export
 * both build `generation + 1`, so a second one is refused rather than sharing it.
 */
export async function buildingNext<T>(reads: ReadStore, what: string, work: () => Promise<T>): Promise<T> {
  const busy = building.get(reads);
  if (busy) throw new Error(`${busy} is running: one at a time`);
  building.set(reads, what);
  try {
    return await work();
  } finally {
    building.delete(reads);
  }
}

export function rebuildLive(o: LiveRebuildOptions): Promise<LiveRebuildResult> {
  return buildingNext(o.reads, 'a live rebuild', () => rebuild(o));
}

async function rebuild(o: LiveRebuildOptions): Promise<LiveRebuildResult> {
  const { events, reads, projections } = o;
  const started = performance.now();
  const from = reads.generation;
  const generation = from + 1;
  const next = reads.at(generation);
  const batch = o.batch ?? 10_000;
  const step = o.onStep ?? (() => undefined);
  let suspended: ProjectorHandle[] = [];
  let switched = false;
  try {
    // Whatever a rebuild that failed part-way left of this generation goes first.
    await next.drop();
    const built = await rebuildProjections(events, next, projections, { batch, ...(o.onProgress ? { onProgress: o.onProgress } : {}) });
    let folded = built.events;
    const switchLag = BigInt(o.switchLag ?? 200);
    for (let round = 0; round < (o.rounds ?? 10); round++) {
      const head = (await events.headPosition()) ?? 0n;
      const at = (await next.checkpoint(projections[0]!.name)) ?? 0n;
      if (head - at <= switchLag) break;
      const caught = await catchUp(events, next, projections, batch);
      folded += caught.events;
      step(`caught up ${caught.events.toLocaleString('en')} events to position ${caught.position ?? 'none'}`);
    }
    // The repository's projector first: its unit in hand (it signs commits) takes longest to
    // finish, and no read-your-writes wait is on it; the others are suspended only after it,
    // so the read models reads wait for pause for the tail and the switch alone.
    const order = [...o.projectors].sort((a, b) => Number(b.names.includes('repository')) - Number(a.names.includes('repository')));
    const began = performance.now();
    let paused = began;
    for (const p of order) {
      paused = performance.now();
      suspended.push(p);
      await p.suspend();
    }
    const stopped = performance.now();
    // With the projectors suspended nothing folds the old generation: the tail to the head now
    // puts the new one at least where the old one stopped.
    const tail = await catchUp(events, next, projections, batch);
    folded += tail.events;
    await reads.switchGeneration(generation);
    switched = true;
    const turned = performance.now();
    await Promise.all(suspended.map((p) => p.resume()));
    suspended = [];
    const resumed = performance.now();
    const pauseMs = resumed - paused;
    const ms = (a: number, b: number) => Math.round(b - a);
    step(
      `switched to generation ${generation} at position ${tail.position ?? 'none'}: the last projectors paused ${ms(paused, resumed)} ms (${ms(paused, stopped)} to suspend, ${ms(stopped, turned)} for the last ${tail.events} events and the switch, ${ms(turned, resumed)} to resume); all paused ${ms(began, resumed)} ms`,
    );
    const old = reads.at(from);
    for (const p of projections) {
      await old.drop(`${p.name}.`);
      await old.drop(p.name);
    }
    step(`dropped generation ${from}`);
    return { from, generation, events: folded, seconds: (performance.now() - started) / 1000, switchedAt: tail.position, pauseMs };
  } catch (error) {
    // Serving goes on from the generation it was on; what was built of the next one goes.
    await Promise.all(suspended.map((p) => p.resume().catch(() => undefined)));
    if (!switched) await next.drop().catch(() => undefined);
    throw error;
  }
}

/**
 * Folds into `reads` the journal after its checkpoint up to the head as it is now, in units of
 * `batch` events, every projection with the same checkpoint (they were rebuilt together).
 */
async function catchUp(
  events: EventStore,
  reads: ReadStore,
  projections: Projection[],
  batch: number,
): Promise<{ events: number; position: bigint | undefined }> {
  const after = await reads.checkpoint(projections[0]!.name);
  const head = await events.headPosition();
  let position = after;
  if (head === undefined || (after !== undefined && after >= head)) return { events: 0, position };
  let count = 0;
  let pending: RecordedEvent[] = [];
  const commit = async () => {
    if (!pending.length) return;
    const chunk = pending;
    pending = [];
    position = await foldChunk(reads, projections, chunk);
    count += chunk.length;
  };
  for await (const event of events.readAll(after === undefined ? {} : { after })) {
    if (event.position > head) break;
    pending.push(event);
    if (pending.length >= batch) await commit();
  }
  await commit();
  return { events: count, position };
}

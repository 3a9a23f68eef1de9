/**
 * The town's world: its snapshots, the world service that keeps the World current and appends
 * turns to `world-town` (the write side; it opens beside the projectors' start, world-open.ts),
 * and the arrivals reactor that admits newcomers and follows the town's mode.
 */
import type { Clock } from '../contract/clock.js';
import type { TownConfig } from '../contract/town-config.js';
import type { Settings } from '../config.js';
import type { Programs } from '../cards/kernel/programs.js';
import { defaultOptions, type KernelOptions } from '../cards/kernel/options.js';
import { WorldService } from '../commands/world-service.js';
import { fileSnapshots, noSnapshots, type SnapshotStore } from '../commands/snapshot/world-snapshot.js';
import { startArrivals } from '../commands/world-arrivals.js';
import { TOWN_WORLD, worldStream } from '../events/world.js';
import type { TownMetrics } from '../operations/metrics.js';
import { turnCounter } from '../operations/watch.js';
import type { ReportTo } from './failures.js';
import type { TownMode } from './identity.js';
import { defaultTurnQuota, type TownOptions } from './options.js';
import type { Closers } from './shutdown.js';
import type { Stores } from './stores.js';

/**
 * The world's snapshots (under the data directory with the embedded store, by default). The
 * world's snapshot is read (off the event loop) while the stores open and the read models are
 * checked: ~0.1 s of a start from a 200,000-entry snapshot (docs/decisions/world-snapshots.md).
 */
export function worldSnapshots(settings: Settings, kept: boolean | undefined): SnapshotStore {
  // A front beside the journal's owner leaves the snapshots to it (one writer of their files).
  const snapshots = (kept ?? (!settings.eventStoreUrl && !settings.front)) ? fileSnapshots(settings.dataDir) : noSnapshots;
  snapshots.readAhead?.(TOWN_WORLD);
  return snapshots;
}

export interface WorldParts {
  options: TownOptions;
  events: Stores['events'];
  programs: Programs;
  clock: Clock;
  config: TownConfig;
  mode: TownMode;
  snapshots: SnapshotStore;
  metrics: TownMetrics;
}

/** The world service (not yet open) and the kernel options its turns are decided with. */
export function worldService({ options, events, programs, clock, config, mode, snapshots, metrics }: WorldParts) {
  const quota = options.turnQuota ?? defaultTurnQuota;
  // The quota follows the town's mode as the arrivals reactor sees TownModeSet events.
  const kernelOptions = (): KernelOptions => (mode.open ? { ...defaultOptions, turnQuota: quota } : defaultOptions);
  const world = new WorldService({
    events,
    programs,
    clock,
    options: kernelOptions,
    world: TOWN_WORLD,
    genesis: { host: config.host, opener: options.opener ?? 'town', ...(options.layout ? { layout: options.layout } : {}) },
    snapshots,
    // One append in flight: measured on the embedded store, overlapping appends (sound there,
    // this service being the stream's only writer) made smaller batches and fewer turns/s.
    appendsInFlight: 1,
    onDecided: turnCounter(metrics, 'town'),
  });
  return { world, kernelOptions };
}

/** Starts the arrivals reactor; it tells the town's mode as TownModeSet events come. */
export async function startTownArrivals(stores: Stores, world: WorldService, config: TownConfig, mode: TownMode, report: ReportTo, closers: Closers) {
  const arrivals = await startArrivals({
    events: stores.events,
    reads: stores.reads,
    service: world,
    host: config.host,
    onMode: (now) => {
      mode.open = now;
    },
    ...report('arrivals stopped'),
  });
  closers.push(() => arrivals.close());
}

/**
 * With several fronts on one journal, each front's world service reads the turns the others
 * appended as they become durable (WorldService.follow), so its live pages and MCP card watches
 * hear every turn of the town, not only its own. Follows run one at a time; events that arrive
 * during one ask for one more.
 */
export async function followOtherFronts(stores: Stores, world: WorldService, report: ReportTo, closers: Closers): Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  const follow = () => {
    if (running) {
      again = true;
      return;
    }
    running = world
      .follow()
      .catch((error: unknown) => report('following the other fronts failed').onError?.(error instanceof Error ? error : new Error(String(error))))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          follow();
        }
      });
  };
  const stream = worldStream(TOWN_WORLD);
  const subscription = stores.events.subscribeToAll(await stores.events.headPosition(), { onEvent: follow }, { streamPrefixes: [stream] });
  closers.push(async () => {
    await subscription.close();
    await running;
  });
}

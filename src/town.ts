/**
 * The composition root: opens a town, area by area, in the order each needs the ones before
 * (src/town/). `npm start` (src/main.ts), the tests and the benches all assemble a town through
 * here, so what they exercise is what runs.
 *
 * The world: the world service keeps the town's World current and appends turns to
 * `world-town` (the write side); the projectors fold the journal into the read models every
 * read is served from (the read side), in this process by default or as workers
 * (`npm run projector -- <name>`) when TOWN_PROJECTORS=workers or MONGO_URL is set.
 */
import type { TownConfig } from './contract/town-config.js';
import { defaultLimiters } from './contract/rate-limit.js';
import { libraryPrograms } from './cards/kernel/library.js';
import type { Programs } from './cards/kernel/programs.js';
import type { WorldService } from './commands/world-service.js';
import type { TownApp } from './http/app.js';
import { TownMetrics } from './operations/metrics.js';
import type { Operations } from './operations/watch.js';
import type { ProjectorHandle } from './projections/projector.js';
import type { LiveRebuildOptions, LiveRebuildResult } from './projections/live-rebuild.js';
import { inProcessWaits, ReadYourWrites, workerWaits } from './queries/fresh.js';
import type { EventStore } from './stores/event-store.js';
import type { ReadStore } from './stores/read-store.js';
import { reportTo, townLogger } from './town/failures.js';
import { openFeed } from './town/feed.js';
import { startFirehose } from './town/firehose.js';
import { townFront } from './town/front.js';
import { townIdentity } from './town/identity.js';
import { type McpRoom, openMcp } from './town/mcp.js';
import { frontId, relaySocket, serveRelays } from './town/mcp-relay.js';
import { startOperations, townGauges, watchTownAppends } from './town/operations.js';
import type { TownOptions } from './town/options.js';
import { startProjectors } from './town/projectors.js';
import { liveRebuild } from './town/rebuild.js';
import { openRepository, repositoryKeysAfter } from './town/repository.js';
import { townRooms } from './town/rooms.js';
import { openScratches } from './town/scratch.js';
import { closeAfterFailure, type Closers, shutdown } from './town/shutdown.js';
import { startSteps } from './town/start-steps.js';
import { endReadSnapshot, openStores, serveFronts, sharedFronts } from './town/stores.js';
import { followOtherFronts, startTownArrivals, worldService, worldSnapshots } from './town/world.js';
import { worldBesideProjectors } from './town/world-open.js';

export { defaultTurnQuota, type TownOptions } from './town/options.js';

export interface Town {
  app: TownApp;
  config: TownConfig;
  events: EventStore;
  reads: ReadStore;
  world: WorldService;
  /** The in-process projectors (none when they run as workers). */
  projectors: ProjectorHandle[];
  fresh: ReadYourWrites;
  programs: Programs;
  /** The MCP room (its sessions), for the tests and the bench. */
  mcp: McpRoom;
  /** The first open invitation, present only when this start founded the town. */
  firstInvitation?: string;
  /** The firehose's WebSocket listener, when one is configured (settings.firehosePort). */
  firehose?: { port: number; url: string };
  /** Milliseconds from openTown's start until the town could serve. */
  startMs: number;
  /** Metrics, readiness and who may read /metrics (src/operations). */
  operations: Operations;
  /**
   * Rebuilds every read model into a new generation while the town serves, then switches to it
   * (projections/live-rebuild.ts). Refused when the projectors run as workers: they are not
   * this process's to suspend.
   */
  rebuildLive(options?: Pick<LiveRebuildOptions, 'onProgress' | 'onStep' | 'batch' | 'switchLag'>): Promise<LiveRebuildResult>;
  /** Milliseconds each step of the start took, in order (for the bench and the operator). */
  startSteps: Record<string, number>;
  close(): Promise<void>;
}

/**
 * Opens the stores, then the areas in order, each given what the ones before made. What an
 * area starts it adds to `closers`; a failure closes them newest first, then the stores.
 */
export async function openTown(options: TownOptions): Promise<Town> {
  const start = startSteps();
  const { settings } = options;
  const clock = options.clock ?? Date.now;
  const snapshots = worldSnapshots(settings, options.snapshots);
  const stores = await openStores(options);
  const closers: Closers = [];
  try {
    const appends = await serveFronts(settings, stores);
    if (appends) closers.push(() => appends.close());
    const { config, mode, firstInvitation } = await townIdentity(stores.events, clock, settings, options.origin);
    start.step('stores');
    // Several fronts of one box share their guests' notes and rate limits.
    const shared = sharedFronts(settings);
    if (shared) closers.push(() => shared.close());
    const limiters = options.limiters ?? defaultLimiters(clock, shared ? (name, budget, clk) => shared.limiter(name, budget, clk) : undefined);
    const metrics = new TownMetrics();
    const logger = townLogger(options);
    const report = reportTo(logger);
    const programs = options.programs ?? libraryPrograms();
    const { world, kernelOptions } = worldService({ options, events: stores.events, programs, clock, config, mode, snapshots, metrics });
    const projecting = await startProjectors(options, stores, programs, report);
    const { projectors } = projecting;
    start.step('versions');
    await endReadSnapshot();
    const worldOpened = world.open().then(() => start.step('world'));
    const keysLoaded = repositoryKeysAfter(worldOpened, settings);
    await worldBesideProjectors(worldOpened, projecting, world, closers);
    start.step('projectors');
    watchTownAppends(metrics, world, closers);
    const fresh = new ReadYourWrites(
      projectors.length ? inProcessWaits(projectors) : workerWaits(stores.reads),
      options.readYourWritesMs ?? 2000,
      undefined,
      shared,
    );
    await startTownArrivals(stores, world, config, mode, report, closers);
    // Several fronts on the box: each hears the turns the others take.
    if (shared) await followOtherFronts(stores, world, report, closers);
    start.step('arrivals');

    const firehose = await startFirehose(settings, stores.reads, projectors, config, metrics, closers);
    const repository = await openRepository(stores.reads, config, keysLoaded);
    const feed = await openFeed(settings, stores, world, clock, config, logger, closers);
    const scratches = openScratches(stores, programs, clock, world, config, metrics, closers);
    const operations = startOperations(settings, stores, projectors, metrics, closers);
    const firehoseUrl = firehose?.at.url;
    const rooms = townRooms({
      options,
      stores,
      programs,
      clock,
      config,
      limiters,
      kernelOptions,
      world,
      fresh,
      feed,
      scratches,
      operations,
      metrics,
      repository,
      firehoseUrl,
    });
    // Several fronts on the box: each holds its own MCP sessions, and relays the others' to them.
    const relayFrom = shared ? { front: frontId(), dataDir: settings.dataDir } : undefined;
    const { mcp, handlers } = openMcp({ options, rooms, stores, world, fresh, config, mode, logger, metrics }, closers, relayFrom);
    const app = townFront({ options, stores, config, mode, handlers, clock, limiters, logger, metrics });
    if (relayFrom) {
      const relays = await serveRelays(app, relaySocket(relayFrom.dataDir, relayFrom.front));
      closers.push(() => relays.close());
    }
    townGauges(metrics, { world, app, scratches, mcp, firehose });
    start.step('rooms');
    return {
      app,
      config,
      events: stores.events,
      reads: stores.reads,
      world,
      projectors,
      fresh,
      programs,
      mcp,
      firstInvitation,
      ...(firehose ? { firehose: firehose.at } : {}),
      startMs: start.sinceStart(),
      operations,
      rebuildLive: liveRebuild(settings, stores, programs, projectors),
      startSteps: start.steps,
      close: shutdown(closers, stores),
    };
  } catch (error) {
    await closeAfterFailure(closers, stores);
    throw error;
  }
}

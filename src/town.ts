/**
 * The composition root: opens the stores, builds every room's handlers and the HTTP app.
 * `npm start` (src/main.ts), the tests and the benches all assemble a town through here, so
 * what they exercise is what runs.
 *
 * The world: the world service keeps the town's World current and appends turns to
 * `world-town` (the write side); the projectors fold the journal into the read models every
 * read is served from (the read side), in this process by default or as workers
 * (`npm run projector -- <name>`) when TOWN_PROJECTORS=workers or MONGO_URL is set.
 */
import type { RoomTable } from './http/route-types.js';
import type { TownConfig } from './contract/town-config.js';
import type { Clock } from './contract/clock.js';
import { pagesHandlers } from './http/handlers/pages.js';
import { xrpcHandlers } from './http/handlers/xrpc.js';
import { Firehose, subscribeReposPath } from './repository/firehose.js';
import { publicKeys, townDid } from './repository/identity.js';
import { RepositoryReads } from './repository/reads.js';
import { ServiceAuth } from './repository/service-auth.js';
import { HostedReads } from './repository/hosted/reads.js';
import { HostedTrees } from './repository/hosted/tree.js';
import { HostedWrites } from './repository/hosted/writes.js';
import { createApp, type TownApp, type Logger } from './http/app.js';
import { defaultLimiters, type Limiters } from './contract/rate-limit.js';
import { identityHandlers } from './http/handlers/identity.js';
import { turnsLeft, worldHandlers } from './http/handlers/world.js';
import { feedHandlers } from './http/handlers/feed.js';
import { scratchHandlers } from './http/handlers/scratch.js';
import { earlierHandlers } from './http/handlers/earlier.js';
import { earlierIdentityHandlers } from './http/handlers/earlier-identity.js';
import { IdentityService } from './identity/service.js';
import { ScratchWorlds } from './commands/scratch-service.js';
import { mcpHandlers } from './http/handlers/mcp.js';
import { type McpRoom, mcpRoom } from './mcp/room.js';
import type { McpLimits } from './mcp/sessions.js';
import { errorText, stderrLogger } from './http/front/failure.js';
import { FeedService } from './commands/feed-service.js';
import { startFeedReactor } from './commands/feed-reactor.js';
import { StoreAuthenticator } from './identity/authenticator.js';
import { applyStartupMode, ensureFirstInvitation } from './identity/town.js';
import { EmbeddedEventStore } from './stores/embedded/event-store.js';
import { openEventStore } from './stores/open-event-store.js';
import type { JournalIo } from './stores/embedded/journal.js';
import { openReadStore } from './stores/open-read-store.js';
import { DiskGuard, defaultMinFreeBytes, type FreeBytes } from './stores/embedded/disk-guard.js';
import type { EventStore } from './stores/event-store.js';
import type { ReadStore } from './stores/read-store.js';
import { loadSecret, type Settings } from './config.js';
import { libraryPrograms } from './cards/kernel/library.js';
import type { Programs } from './cards/kernel/programs.js';
import { defaultOptions, type KernelOptions } from './cards/kernel/options.js';
import type { TownLayout } from './cards/kernel/genesis.js';
import { WorldService } from './commands/world-service.js';
import { fileSnapshots, noSnapshots } from './commands/snapshot/world-snapshot.js';
import { startArrivals, type ArrivalReactor } from './commands/world-arrivals.js';
import { allProjections, type ProjectionName, projectionNames } from './projections/index.js';
import { loadRepositoryKeys } from './repository/keys.js';
import { ensureIndexes, Projector, type ProjectorHandle } from './projections/projector.js';
import { ThreadProjector } from './projections/thread.js';
import { rebuildStale } from './projections/versions.js';
import { rebuildLive, type LiveRebuildOptions, type LiveRebuildResult } from './projections/live-rebuild.js';
import { inProcessWaits, ReadYourWrites, workerWaits } from './queries/fresh.js';
import { TOWN_WORLD } from './events/world.js';
import { operationsHandlers } from './http/handlers/operations.js';
import { frontLogger, principalHasher, type TownLog } from './operations/log.js';
import { TownMetrics } from './operations/metrics.js';
import { type Operations, turnCounter, watch, watchAppends } from './operations/watch.js';

/**
 * The repository's projector waits this long after a live entry before folding, so one signed
 * commit covers what arrived meanwhile; and gives way to the request thread (nice 10).
 */
const repositoryLingerMs = 1000;
const repositoryNice = 10;
/**
 * While the journal grows by 32 KiB a second or more (about 25 simple turns), or the process
 * spends a quarter of a core or more (turns, reads), the repository's projector waits for the
 * town to pause, and folds anyway once an entry has waited `maxLagMs` (docs/decisions/repository-commits.md).
 */
const repositoryGiveWay = { journalBytesPerSecond: 32 * 1024, cpuPerSecond: 250_000, maxLagMs: 10_000 };

/** Turns a guest may start per clock hour on an open town (spec 8: value not shown). */
export const defaultTurnQuota = 240;

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

export interface TownOptions {
  settings: Settings;
  clock?: Clock;
  /** Origin to put in links and principals when the port is only known after listening. */
  origin?: string;
  logger?: Logger;
  /** The operational log: one line per request, and failures (none: no request lines). */
  log?: TownLog;
  /** Difficulty of arrival proofs (the spec's 18 unless a test needs many proofs fast). */
  arrivalBits?: number;
  /** The front's rate limiters (tests and benches that are not about rate limits lift them). */
  limiters?: Limiters;
  /** Open-town turns per guest per clock hour. */
  turnQuota?: number;
  /** The programs the kernel runs (the sealed library by default; tests add kinds). */
  programs?: Programs;
  /** Genesis layout of a fresh town (the genesis town by default). */
  layout?: TownLayout;
  /** The town's opener (moderation powers); the host itself by default. */
  opener?: string;
  /** Keep world snapshots under the data directory (default true with the embedded store). */
  snapshots?: boolean;
  /** How long a read waits for its projection to show the caller's own turn. */
  readYourWritesMs?: number;
  /**
   * Fold the in-process projections on a thread of their own (default), or on the event loop
   * that answers requests (what programs without library modules need).
   */
  projectorThread?: boolean;
  /** The MCP sessions' limits (tests hold streams for less). */
  mcp?: Partial<McpLimits>;
  /**
   * Run the repository projection (default true). Off, the town serves no repository: for the
   * bench that measures what the projection costs turns.
   */
  repository?: boolean;
  /** How many unexpired service-token ids the town keeps (src/repository/service-auth.ts; tests fill it). */
  serviceTokenCustody?: number;
  /** The embedded journal's file writes (tests make the disk fail through it; test/faults). */
  journalIo?: Partial<JournalIo>;
  /** How the free-space watermark reads the disk's free bytes (tests make a disk fill and empty). */
  diskFree?: FreeBytes;
}

export async function openTown(options: TownOptions): Promise<Town> {
  const started = performance.now();
  const startSteps: Record<string, number> = {};
  let stepStarted = started;
  const step = (name: string) => {
    const now = performance.now();
    startSteps[name] = Math.round(now - stepStarted);
    stepStarted = now;
  };
  const { settings } = options;
  const clock = options.clock ?? Date.now;
  const snapshots = (options.snapshots ?? !settings.eventStoreUrl) ? fileSnapshots(settings.dataDir) : noSnapshots;
  // The world's snapshot is read (off the event loop) while the stores open and the read models
  // are checked: ~0.1 s of a start from a 200,000-entry snapshot (docs/decisions/world-snapshots.md).
  snapshots.readAhead?.(TOWN_WORLD);
  // The embedded stores keep free space on the data directory's disk (src/stores/embedded/disk-guard.ts).
  const diskGuard =
    settings.eventStoreUrl && settings.mongoUrl ? undefined : new DiskGuard(settings.dataDir, settings.minFreeBytes ?? defaultMinFreeBytes, options.diskFree);
  const events = await openEventStore({
    url: settings.eventStoreUrl,
    ...(diskGuard ? { diskGuard } : {}),
    dataDir: settings.dataDir,
    maxAppendSize: settings.maxAppendSize,
    ...(options.journalIo ? { journalIo: options.journalIo } : {}),
  });
  let reads: ReadStore | undefined;
  const closers: (() => Promise<void>)[] = [];
  try {
    reads = await openReadStore({
      url: settings.mongoUrl,
      dataDir: settings.dataDir,
      ...(diskGuard ? { diskGuard } : {}),
      // Projector workers beside this town fold into the embedded read store too.
      ...(!settings.inProcessProjectors && !settings.mongoUrl ? { shared: true } : {}),
    });
    const origin = options.origin ?? settings.origin ?? `http://localhost:${settings.port}`;
    const url = new URL(origin);
    let open = await applyStartupMode(events, clock, settings.open);
    const config: TownConfig = {
      host: url.host,
      origin: url.origin,
      open,
      secret: loadSecret(settings.dataDir),
      secure: url.protocol === 'https:',
      ...(settings.catalogue === 'earlier' ? { catalogue: 'earlier' as const } : {}),
    };
    const firstInvitation = await ensureFirstInvitation(events, clock);
    step('stores');
    const limiters = options.limiters ?? defaultLimiters(clock);

    const metrics = new TownMetrics();
    const logger = options.logger ?? (options.log ? frontLogger(options.log) : undefined);
    // Failures of the town's background work go to the log when there is one (else to stderr, as each reports by default).
    const reportTo = (what: string) => (logger ? { onError: (e: Error) => logger.error(what, { error: errorText(e) }) } : {});
    const programs = options.programs ?? libraryPrograms();
    const quota = options.turnQuota ?? defaultTurnQuota;
    // The quota follows the town's mode as the arrivals reactor sees TownModeSet events.
    const kernelOptions = (): KernelOptions => (open ? { ...defaultOptions, turnQuota: quota } : defaultOptions);
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
    const projectors: ProjectorHandle[] = [];
    const signing = settings.signing !== false;
    /**
     * The projectors start on threads of their own (loading their modules there, catching up from
     * their checkpoints) while this thread replays the world: a start waits for the longer of the
     * two, not for both one after the other. Resolves once their threads are spawned, to a
     * promise of their start.
     */
    const startProjectors = async (): Promise<{ started: Promise<void> }> => {
      if (!settings.inProcessProjectors) return { started: Promise.resolve() };
      const all = allProjections(programs, signing ? { keys: () => loadRepositoryKeys(settings.dataDir) } : {});
      const projections = Object.values(all);
      // Read models built by another version of their fold are rebuilt from the journal (with
      // the progress bar on stderr) before a projector resumes them or a read is served.
      await rebuildStale(events, reads!, projections);
      // Indexes first, from this thread: its read store then knows them for its queries.
      await ensureIndexes(reads!, Object.values(all));
      const modules = programs.libraryModules;
      const threaded = modules && options.projectorThread !== false;
      // The repository folds on a projector of its own: it signs commits, which must not hold up
      // the read models a caller's next read waits for (docs/decisions/repository-commits.md).
      const groups: { names: ProjectionName[]; repository: boolean }[] = [{ names: projectionNames.filter((n) => n !== 'repository'), repository: false }];
      if (options.repository !== false) groups.push({ names: ['repository'], repository: true });
      const made = groups.map((group) =>
        threaded
          ? new ThreadProjector({
              events,
              ...(events instanceof EmbeddedEventStore ? { journal: events.share() } : {}),
              // The thread keeps the same watermark before its units (a guard of its own: options cross as data).
              readStore: { url: settings.mongoUrl, dataDir: settings.dataDir, ...(diskGuard ? { minFreeBytes: diskGuard.minFreeBytes } : {}) },
              names: group.names,
              libraryModules: modules,
              batch: 1000,
              ...(group.repository
                ? { lingerMs: repositoryLingerMs, nice: repositoryNice, giveWay: repositoryGiveWay, ...(signing ? { signing: settings.dataDir } : {}) }
                : {}),
              ...reportTo(`projector thread ${group.names.join(',')} failed (started again after a wait)`),
            })
          : new Projector(
              events,
              reads!,
              group.names.map((n) => all[n]),
              { batch: 1000, ...(group.repository ? { lingerMs: repositoryLingerMs } : {}), ...reportTo(`projector ${group.names.join(',')} stopped`) },
            ),
      );
      // Their threads start side by side; each one started is stopped at close (or when another fails).
      const starts = Promise.allSettled(made.map((projector) => projector.start()));
      return {
        started: starts.then((settled) => {
          settled.forEach((s, i) => s.status === 'fulfilled' && projectors.push(made[i]!));
          const failed = settled.find((s) => s.status === 'rejected');
          if (failed) throw (failed as PromiseRejectedResult).reason;
        }),
      };
    };
    const { started: projecting } = await startProjectors();
    step('versions');
    // lmdb keeps this thread's read snapshot of the read store (the versions and indexes just
    // read) until a timer of its own ends it, and loading the world holds the thread for up to
    // seconds without one firing. The projector threads write meanwhile, and a snapshot pinned
    // across their writes meets lmdb 3.5.6's free-list defect: a commit aborted, or the process
    // (docs/decisions/lmdb-defects.md). So the
    // snapshot ends first.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const worldOpened = world.open().then(() => step('world'));
    // The repository keys (~0.1 s of the main thread: the curve's tables for the commit key) are
    // made once the world is open, while the start may still wait for the projector threads;
    // their failure is the start's at the same point as before (below).
    const keysLoaded = worldOpened.then(() => (settings.signing !== false ? loadRepositoryKeys(settings.dataDir) : undefined));
    keysLoaded.catch(() => {});
    const [opened, projected] = await Promise.allSettled([worldOpened, projecting]);
    // The projectors stop before the world (closers run newest first).
    if (opened.status === 'fulfilled') closers.push(() => world.close());
    for (const projector of projectors) closers.push(() => projector.stop());
    if (opened.status === 'rejected') throw opened.reason;
    if (projected.status === 'rejected') throw projected.reason;
    step('projectors');
    const appends = watchAppends(metrics, world);
    closers.push(async () => appends());
    const fresh = new ReadYourWrites(projectors.length ? inProcessWaits(projectors) : workerWaits(reads), options.readYourWritesMs ?? 2000);

    const arrivals: ArrivalReactor = await startArrivals({
      events,
      reads,
      service: world,
      host: config.host,
      onMode: (now) => {
        open = now;
      },
      ...reportTo('arrivals stopped'),
    });
    closers.push(() => arrivals.close());
    step('arrivals');

    // The firehose listens beside the HTTP port; it hears the repository projector's commits.
    let firehose: Town['firehose'];
    let firehoseServer: Firehose | undefined;
    if (settings.firehosePort !== undefined) {
      const repositoryProjector = projectors.find((p) => p.names.includes('repository'));
      const hose = new Firehose({
        reads,
        port: settings.firehosePort,
        host: settings.listenHost,
        onSlowDrop: () => metrics.slowConsumers.drop('firehose'),
        onAdvance: (listener) => {
          if (repositoryProjector) return repositoryProjector.onAdvance(() => listener());
          // Projectors in other processes: look for new frames now and then.
          const timer = setInterval(listener, 250);
          return () => clearInterval(timer);
        },
      });
      const port = await hose.start();
      firehoseServer = hose;
      closers.push(() => hose.close());
      const wsOrigin = new URL(config.origin);
      wsOrigin.protocol = wsOrigin.protocol === 'https:' ? 'wss:' : 'ws:';
      wsOrigin.port = String(port);
      firehose = { port, url: `${wsOrigin.origin}${subscribeReposPath}` };
    }
    const repository = new RepositoryReads(reads);
    const worldDid = async () => (await repository.head())?.did ?? townDid(config.host);
    const repositoryKeys = await keysLoaded;
    const keys = repositoryKeys ? publicKeys(repositoryKeys) : undefined;
    // The hosted accounts' trees, shared by their writes and their CARs (src/repository/hosted/tree.ts).
    const hostedTrees = new HostedTrees();

    const feed = new FeedService(events, clock, config.host);
    // The town's answers follow the projectors: in this process on the embedded journal (which
    // only this process appends to), as a worker (`npm run reactor -- feed`) beside EventStoreDB.
    if (settings.inProcessProjectors || !settings.eventStoreUrl) {
      const reactor = await startFeedReactor({
        events,
        reads,
        world,
        feed,
        host: config.host,
        onError: (e) => logger?.error('feed answers failed', { error: e.message }),
      });
      closers.push(() => reactor.close());
    }

    const scratches = new ScratchWorlds({
      events,
      programs,
      clock,
      options: () => defaultOptions,
      town: world,
      host: config.host,
      onDecided: turnCounter(metrics, 'scratch'),
    });
    closers.push(() => scratches.close());
    const operations = watch({
      settings,
      events,
      reads,
      projections: settings.inProcessProjectors ? projectors.flatMap((p) => p.names) : projectionNames,
      projectors,
      metrics,
      ...(diskGuard ? { disk: diskGuard } : {}),
    });
    operations.readiness.start();
    closers.push(async () => operations.readiness.stop());
    const deps = { service: world, events, reads, programs, clock, fresh, options: kernelOptions, scratches };
    // Every row of the route table is bound here or stated as not built: a route left out, or a
    // key no row has, does not compile.
    const rooms = {
      ...identityHandlers({
        store: events,
        config,
        clock,
        limiters,
        arrivalBits: options.arrivalBits,
        turns: turnsLeft(deps),
        feed: (principal) => feed.left(principal),
        scratches: (principal) => scratches.list({ principal, name: principal.slice(principal.lastIndexOf(':') + 1) }),
        arrived: async ({ principal, name }) => {
          // Idempotent (a second arrival decides nothing), and its answer's position covers the
          // arrival entry even when the arrivals reactor decided it first.
          fresh.note(principal, (await world.submit({ kind: 'arrive', principal, name })).position);
        },
      }),
      ...scratchHandlers({ scratches, town: world, events, fresh }),
      ...earlierHandlers({ scratches, fresh, secret: config.secret }),
      ...earlierIdentityHandlers({ identity: new IdentityService({ store: events, config, clock }), feed, reads, fresh, config }),
      ...feedHandlers({ feed, reads, fresh, config, height: () => world.height }),
      ...worldHandlers(deps),
      ...pagesHandlers({ ...deps, config, onSlowDrop: () => metrics.slowConsumers.drop('live') }),
      ...operationsHandlers(operations),
      ...xrpcHandlers({
        reads,
        events,
        programs,
        clock,
        config,
        keys,
        firehoseUrl: () => firehose?.url,
        past: () => world.committed.past,
        hosted: new HostedReads({ reads, events, trees: hostedTrees, origin: config.origin, keys }),
        writes: {
          writes: new HostedWrites({ events, clock, signer: repositoryKeys?.commit, trees: hostedTrees }),
          events,
          host: config.host,
          townDid: worldDid,
          waits: fresh.waits,
          waitMs: options.readYourWritesMs ?? 2000,
        },
        calls: {
          auth: new ServiceAuth({
            host: config.host,
            townDid: worldDid,
            signer: repositoryKeys?.commit,
            guestExists: async (name) => (await events.streamRevision(`guest-${name}`)) !== undefined,
            ...(options.serviceTokenCustody !== undefined ? { capacity: options.serviceTokenCustody } : {}),
          }),
          service: world,
          fresh,
          world: { reads, events, programs, world: world.world, clock, past: () => world.committed.past },
        },
      }),
    };
    // The MCP room's tools call the other rooms' handlers, so it is made from them.
    const mcp = mcpRoom({
      handlers: rooms,
      events,
      world,
      waits: fresh.waits,
      origin: config.origin,
      townOpen: () => open,
      logger: logger ?? stderrLogger,
      limits: options.mcp,
      onSlowDrop: () => metrics.slowConsumers.drop('mcp'),
      ...(config.catalogue ? { shape: config.catalogue } : {}),
    });
    closers.push(() => mcp.close());
    const handlers: RoomTable = { ...rooms, ...mcpHandlers(mcp, config) };
    const app = createApp({
      config,
      handlers,
      authenticator: new StoreAuthenticator(events, config, clock),
      clock,
      limiters,
      logger,
      observation: { log: options.log, metrics, principalHash: principalHasher(config.secret) },
      // The operator may switch the mode while the town runs; the arrive routes follow at once.
      townOpen: () => open,
    });
    metrics.gauge('town_journal_height', "The town world's journal height (entries committed)", () => world.height);
    metrics.gauge('town_http_requests_in_flight', 'Requests being worked on now (at the limit, the next is refused busy)', () => app.inFlight());
    metrics.gauge('town_scratch_worlds_open', 'Scratch worlds this front holds open', () => scratches.openHere);
    metrics.gauge('town_mcp_sessions', 'MCP sessions open on this front', () => mcp.sessions.size);
    const hose = firehoseServer;
    if (hose) metrics.gauge('town_firehose_subscribers', 'WebSocket subscribers of the firehose', () => hose.subscribed);
    step('rooms');
    const readStore = reads;
    let closing: Promise<void> | undefined;
    return {
      app,
      config,
      events,
      reads: readStore,
      world,
      projectors,
      fresh,
      programs,
      mcp,
      firstInvitation,
      ...(firehose ? { firehose } : {}),
      startMs: performance.now() - started,
      operations,
      rebuildLive: async (o = {}) => {
        if (!projectors.length)
          throw new Error('the read models are folded by workers: a live rebuild needs the town to fold them itself (TOWN_PROJECTORS=inline)');
        // Projections of their own: the running projectors' keep state between units.
        const all = allProjections(programs, settings.signing !== false ? { keys: () => loadRepositoryKeys(settings.dataDir) } : {});
        const names = new Set(projectors.flatMap((p) => p.names));
        return rebuildLive({ ...o, events, reads: readStore, projections: Object.values(all).filter((p) => names.has(p.name)), projectors });
      },
      startSteps,
      close: () =>
        (closing ??= (async () => {
          // Newest first: the reactor and the projectors stop before the world and the stores.
          for (const close of closers.reverse()) await close().catch(() => {});
          await readStore.close();
          await events.close();
        })()),
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => {});
    await reads?.close().catch(() => {});
    await events.close();
    throw error;
  }
}

/**
 * The town's operations (src/operations): the appends counted as they commit, readiness (the
 * read models caught up, the disk above its watermark) and the gauges `/metrics` reads when
 * scraped.
 */
import type { Settings } from '../config.js';
import type { ScratchWorlds } from '../commands/scratch-service.js';
import type { WorldService } from '../commands/world-service.js';
import type { TownApp } from '../http/app.js';
import type { TownMetrics } from '../operations/metrics.js';
import { type Operations, watch, watchAppends } from '../operations/watch.js';
import type { ProjectorHandle } from '../projections/projector.js';
import type { TownFirehose } from './firehose.js';
import type { McpRoom } from './mcp.js';
import { watchedProjections } from './projectors.js';
import type { Closers } from './shutdown.js';
import type { Stores } from './stores.js';

/** Counts the world's appends as they commit (batch sizes, append latency). */
export function watchTownAppends(metrics: TownMetrics, world: WorldService, closers: Closers): void {
  const appends = watchAppends(metrics, world);
  closers.push(async () => appends());
}

/** Starts readiness: ready once the read models caught up with the journal. */
export function startOperations(
  settings: Settings,
  { events, reads, diskGuard }: Stores,
  projectors: ProjectorHandle[],
  metrics: TownMetrics,
  closers: Closers,
): Operations {
  const operations = watch({
    settings,
    events,
    reads,
    projections: watchedProjections(settings, projectors),
    projectors,
    metrics,
    ...(diskGuard ? { disk: diskGuard } : {}),
  });
  operations.readiness.start();
  closers.push(async () => operations.readiness.stop());
  return operations;
}

export interface GaugedParts {
  world: WorldService;
  app: TownApp;
  scratches: ScratchWorlds;
  mcp: McpRoom;
  firehose: TownFirehose | undefined;
}

/** The gauges read at scrape time: the journal's height and what the front holds open now. */
export function townGauges(metrics: TownMetrics, { world, app, scratches, mcp, firehose }: GaugedParts): void {
  metrics.gauge('town_journal_height', "The town world's journal height (entries committed)", () => world.height);
  metrics.gauge('town_http_requests_in_flight', 'Requests being worked on now (at the limit, the next is refused busy)', () => app.inFlight());
  metrics.gauge('town_scratch_worlds_open', 'Scratch worlds this front holds open', () => scratches.openHere);
  metrics.gauge('town_mcp_sessions', 'MCP sessions open on this front', () => mcp.sessions.size);
  const hose = firehose?.server;
  if (hose) metrics.gauge('town_firehose_subscribers', 'WebSocket subscribers of the firehose', () => hose.subscribed);
}

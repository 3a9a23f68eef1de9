/**
 * What the operator watches of a running town or worker, wired to the parts that know it: the
 * metrics read at scrape time (journal height and head, each projection's checkpoint and lag,
 * in-flight requests, scratch worlds, MCP sessions, firehose subscribers), the turns counted as
 * they are decided, the appends as they commit, and readiness. The composition root (town.ts)
 * and the workers call these; nothing here is on a request's path.
 */
import type { DiskGuard } from '../stores/embedded/disk-guard.js';
import type { WorldCommand, WorldService } from '../commands/world-service.js';
import type { Outcome } from '../cards/kernel/outcome.js';
import type { ProjectorHandle } from '../projections/projector.js';
import type { EventStore } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import { operatorAccess, type OperatorAccess } from './access.js';
import { TownMetrics } from './metrics.js';
import { Readiness, type ReadinessState } from './readiness.js';

export interface Operations {
  metrics: TownMetrics;
  access: OperatorAccess;
  readiness: Readiness;
}

/** Counts each decided turn by world kind, outcome (receipt status, or repeat, try, …) and refusal class. */
export function turnCounter(metrics: TownMetrics, world: 'town' | 'scratch'): (command: WorldCommand, outcome: Outcome) => void {
  const turns = metrics.turns;
  return (command, outcome) => {
    if (command.kind !== 'turn') return;
    if (outcome.kind === 'journal' || outcome.kind === 'refused') {
      const receipt = outcome.receipt as { status: string; class?: string };
      turns.inc({ world, outcome: receipt.status, class: receipt.class ?? '' });
    } else turns.inc({ world, outcome: outcome.kind, class: outcome.kind === 'rejected' ? outcome.error.class : '' });
  };
}

/** Append latency and batch size of the town world, from its commits (one observation per batch). */
export function watchAppends(metrics: TownMetrics, world: WorldService): () => void {
  return world.onCommit((entries) => {
    metrics.batchEntries.observe(entries.length);
    const ms = world.appendMs[world.appendMs.length - 1];
    if (ms !== undefined) metrics.appendSeconds.observe(ms / 1000);
  });
}

/** What the watch reads of the town's settings (src/config.ts). */
export interface WatchSettings {
  readyLagSeconds?: number;
  metricsAllow?: string;
  metricsToken?: string;
}

export interface WatchedParts {
  settings: WatchSettings;
  events: EventStore;
  reads: ReadStore;
  /** The projections whose checkpoints readiness follows. */
  projections: readonly string[];
  /** In-process projectors (their checkpoints are in memory); none: read from the read store. */
  projectors: readonly ProjectorHandle[];
  metrics?: TownMetrics;
  /** The embedded stores' free-space watermark: below it the process is not ready. */
  disk?: DiskGuard;
}

/** Readiness, access and the metrics read at scrape time that every process has. */
export function watch(parts: WatchedParts): Operations {
  const { settings, events, reads, projectors } = parts;
  const metrics = parts.metrics ?? new TownMetrics();
  const owner = (name: string) => projectors.find((p) => p.names.includes(name));
  const readiness = new Readiness(
    {
      head: () => events.headPosition(),
      checkpoints: () =>
        Promise.all(
          parts.projections.map(async (name): Promise<[string, bigint | undefined]> => {
            const p = owner(name);
            return [name, p ? p.checkpointOf(name) : await reads.checkpoint(name)];
          }),
        ),
      failure: () => {
        const low = parts.disk?.reason();
        if (low) return low;
        const failed = projectors.find((p) => p.error);
        return failed ? `projector ${failed.names.join(', ')} failed: ${failed.error!.message}` : undefined;
      },
    },
    settings.readyLagSeconds,
  );
  // One look at the stores serves every gauge of a scrape. Stores that do not answer leave the
  // journal's and the read models' gauges out of that scrape (town_ready 0), not the scrape.
  let scraped: Promise<ReadinessState | undefined> | undefined;
  const look = (): Promise<ReadinessState | undefined> => readiness.state().then((s) => (s.unanswered ? undefined : s));
  metrics.beforeScrape(() => {
    scraped = look();
  });
  const state = () => (scraped ??= look());
  metrics.gauge('town_journal_head_position', "The journal's head position in $all (events on the embedded journal, log bytes on EventStoreDB)", async () => {
    const s = await state();
    return s && (s.head === undefined ? 0 : Number(s.head));
  });
  metrics.labelledGauge('town_projection_checkpoint', "Each read model's checkpoint: the $all position it has folded (-1: none yet)", 'projection', async () =>
    ((await state())?.projections ?? []).map((p) => [p.name, p.checkpoint === undefined ? -1 : Number(p.checkpoint)]),
  );
  metrics.labelledGauge(
    'town_projection_lag_seconds',
    "How long ago the journal's head first stood past each read model's checkpoint (0: caught up)",
    'projection',
    async () => ((await state())?.projections ?? []).map((p) => [p.name, p.lagSeconds]),
  );
  metrics.gauge('town_ready', '1 when /ready answers 200, else 0', async () => ((await state())?.ready ? 1 : 0));
  const disk = parts.disk;
  if (disk) {
    metrics.gauge('town_disk_free_bytes', "Free bytes on the data directory's file system", () => (Number.isNaN(disk.look()) ? undefined : disk.free));
    metrics.gauge('town_disk_min_free_bytes', 'The free-space watermark (TOWN_MIN_FREE_MB): below it writes are refused', () => disk.minFreeBytes);
    metrics.gauge('town_disk_low', '1 while the disk is below the free-space watermark and writes are refused, else 0', () =>
      disk.minFreeBytes > 0 && disk.low ? 1 : 0,
    );
    metrics.counter(
      'town_disk_refused_writes_total',
      'Journal groups and read-store units refused because the disk was below the watermark',
      () => disk.refused,
    );
  }
  metrics.counter(
    'town_read_store_change_stream_restarts_total',
    'Times the read store opened its change stream again after it failed (MongoDB replica sets; else 0)',
    () => reads.changeStreamRestarts,
  );
  return { metrics, access: operatorAccess({ allow: settings.metricsAllow, token: settings.metricsToken }), readiness };
}

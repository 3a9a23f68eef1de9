/**
 * A projector worker: runs named projections in a process of their own (`npm run projector --
 * <name>`), resuming from their checkpoints, until it is stopped; a read model built by another
 * version of its fold is rebuilt first (versions.ts). The server runs the same projections in
 * its own process when they are not run as workers.
 */
import type { Programs } from '../cards/kernel/programs.js';
import type { EventStore } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import { isProjectionName, projectionNames, type ProjectionName } from '../projections/index.js';
import { allProjections } from './registry.js';
import { type GiveWay, Projector } from '../projections/projector.js';
import type { RepositoryProjectionOptions } from '../repository/projection.js';
import { rebuildStale, type RebuildStaleOptions } from '../projections/versions.js';
import { LeaseKeeper, type LeaseOptions } from '../projections/lease-keeper.js';

export function chooseProjections(names: string[]): ProjectionName[] {
  if (!names.length) return [...projectionNames];
  const unknown = names.filter((n) => !isProjectionName(n));
  if (unknown.length) throw new Error(`no projection named ${unknown.join(', ')}; projections: ${projectionNames.join(', ')}`);
  return names as ProjectionName[];
}

export interface WorkerOptions {
  events: EventStore;
  reads: ReadStore;
  programs: Programs;
  names: ProjectionName[];
  /** Follow the journal by polling every pollMs (for a store that cannot notify this process). */
  pollMs?: number;
  batch?: number;
  /** See ProjectorOptions.lingerMs. */
  lingerMs?: number;
  /** See ProjectorOptions.giveWay. */
  giveWay?: GiveWay;
  /** See ProjectorOptions.commitGapMs. */
  commitGapMs?: number;
  /** The repository's keys (none: it holds records and no tree). */
  repository?: RepositoryProjectionOptions;
  onError?(error: Error): void;
  /** Read models built by another version of their fold: rebuilt (default) or refused. */
  stale?: RebuildStaleOptions['stale'];
  /** Where a rebuild of stale read models is told and its progress drawn (stderr by default). */
  out?: RebuildStaleOptions['out'];
  /** The projections' leases (one worker per projection; a second waits and takes over). */
  lease?: LeaseOptions;
  /** Resolved when the worker gave up waiting for its leases (stop asked first). */
  stopWaiting?: Promise<void>;
}

/**
 * Starts a worker once it holds the leases of its projections (waiting while another worker
 * holds them); undefined when `stopWaiting` resolved first. A stale read model is rebuilt only
 * with the leases held, so two workers never rebuild, or fold into, one read model at once.
 */
export async function startWorker(o: WorkerOptions): Promise<Projector | undefined> {
  const all = allProjections(o.programs, o.repository);
  const projections = o.names.map((n) => all[n]);
  const leases = new LeaseKeeper(o.reads, o.names, o.lease);
  void o.stopWaiting?.then(() => {
    if (!leases.leases.length) leases.abandon();
  });
  if (!(await leases.take())) return undefined;
  await rebuildStale(o.events, o.reads, projections, { ...(o.stale ? { stale: o.stale } : {}), ...(o.out ? { out: o.out } : {}) });
  const projector = new Projector(o.events, o.reads, projections, {
    batch: o.batch ?? 1000,
    ...(o.lingerMs !== undefined ? { lingerMs: o.lingerMs } : {}),
    ...(o.giveWay ? { giveWay: o.giveWay } : {}),
    ...(o.commitGapMs !== undefined ? { commitGapMs: o.commitGapMs } : {}),
    ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
    ...(o.onError ? { onError: o.onError } : {}),
    leases,
  });
  await projector.start();
  return projector;
}

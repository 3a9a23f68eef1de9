/**
 * The firehose: a WebSocket listener beside the HTTP port (settings.firehosePort) that streams
 * the repository's commits as the repository projector makes them.
 */
import type { TownConfig } from '../contract/town-config.js';
import type { Settings } from '../config.js';
import type { TownMetrics } from '../operations/metrics.js';
import type { ProjectorHandle } from '../projections/projector.js';
import { Firehose, subscribeReposPath } from '../repository/firehose.js';
import type { ReadStore } from '../stores/read-store.js';
import type { Closers } from './shutdown.js';

export interface TownFirehose {
  /** Where it listens, for Town.firehose and the repository's description. */
  at: { port: number; url: string };
  server: Firehose;
}

/** Starts the firehose when a port is configured; undefined otherwise. */
export async function startFirehose(
  settings: Settings,
  reads: ReadStore,
  projectors: ProjectorHandle[],
  config: TownConfig,
  metrics: TownMetrics,
  closers: Closers,
): Promise<TownFirehose | undefined> {
  // The journal's owner serves the firehose; an extra front beside it does not.
  if (settings.firehosePort === undefined || settings.front) return undefined;
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
  closers.push(() => hose.close());
  const wsOrigin = new URL(config.origin);
  wsOrigin.protocol = wsOrigin.protocol === 'https:' ? 'wss:' : 'ws:';
  wsOrigin.port = String(port);
  return { at: { port, url: `${wsOrigin.origin}${subscribeReposPath}` }, server: hose };
}

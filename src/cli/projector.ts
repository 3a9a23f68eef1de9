/**
 * `npm run projector -- [<name> …] [--poll=<ms>] [--until-caught-up]`: runs projections (all
 * when none is named) as a worker against the configured stores (EVENTSTORE_URL and MONGO_URL,
 * or the embedded stores under TOWN_DATA), resuming from their checkpoints, until SIGTERM or
 * SIGINT; a read model built by another version of its fold is first rebuilt from the journal,
 * with `npm run rebuild`'s progress bar on stderr. `--until-caught-up` stops once the journal
 * as it stood at start is folded.
 *
 * On the embedded stores with `TOWN_PROJECTORS=workers`, workers run beside the town on the same
 * TOWN_DATA: each follows the journal the town owns (src/stores/embedded/journal-client.ts)
 * and folds into the shared read store, with the same leases and fences as on MongoDB
 * (docs/decisions/embedded-workers.md). Without it, a worker against the embedded stores owns
 * the journal and runs while the town does not (e.g. to bring a stopped town's read models up
 * to date).
 *
 * With TOWN_METRICS_PORT it serves /metrics, /health and /ready there (src/operations); it logs
 * JSON lines to stdout (LOG_LEVEL).
 */
import { settingsFromEnv } from '../config.js';
import { libraryPrograms } from '../cards/kernel/library.js';
import { openEventStore } from '../stores/open-event-store.js';
import { canFollow } from '../stores/embedded/journal-follower.js';
import { openJournalClient } from '../stores/embedded/journal-client.js';
import { openReadStore } from '../stores/open-read-store.js';
import { defaultMinFreeBytes } from '../stores/embedded/disk-guard.js';
import { chooseProjections, startWorker } from '../projectors/worker.js';
import { loadRepositoryKeys } from '../repository/keys.js';
import { townLog } from '../operations/log.js';
import { watch } from '../operations/watch.js';
import { serveOperations } from '../operations/worker-server.js';

async function main(argv: string[]): Promise<number> {
  const flags = argv.filter((a) => a.startsWith('--'));
  const names = chooseProjections(argv.filter((a) => !a.startsWith('--')));
  const poll = flags.find((f) => f.startsWith('--poll='));
  const pollMs = poll ? Number(poll.slice('--poll='.length)) : undefined;
  if (pollMs !== undefined && !(pollMs > 0)) throw new Error('--poll=<ms> takes a positive number');
  // Events folded and committed together (default 1,000): smaller units hold less in memory.
  const batchFlag = flags.find((f) => f.startsWith('--batch='));
  const batch = batchFlag ? Number(batchFlag.slice('--batch='.length)) : undefined;
  if (batch !== undefined && !(Number.isInteger(batch) && batch > 0)) throw new Error('--batch=<events> takes a positive whole number');
  const settings = settingsFromEnv();
  const log = townLog({ level: settings.logLevel, base: { worker: `projector ${names.join(',')}` } });
  // Workers beside a town on the embedded stores follow its journal and share its read store.
  const besideTown = !settings.eventStoreUrl && !settings.mongoUrl && !settings.inProcessProjectors && canFollow(settings.dataDir);
  const events = besideTown
    ? await openJournalClient({ dataDir: settings.dataDir })
    : await openEventStore({ url: settings.eventStoreUrl, dataDir: settings.dataDir, maxAppendSize: settings.maxAppendSize });
  // An embedded read store keeps the town's free-space watermark before its units (src/stores/embedded/disk-guard.ts).
  const reads = await openReadStore({
    url: settings.mongoUrl,
    dataDir: settings.dataDir,
    minFreeBytes: settings.minFreeBytes ?? defaultMinFreeBytes,
    ...(besideTown ? { shared: true } : {}),
  });
  let failed: Error | undefined;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const projector = await startWorker({
    events,
    reads,
    programs: libraryPrograms(),
    names,
    ...(settings.signing !== false ? { repository: { keys: () => loadRepositoryKeys(settings.dataDir) } } : {}),
    ...(pollMs !== undefined ? { pollMs } : {}),
    ...(batch !== undefined ? { batch } : {}),
    onError: (e) => (failed = e),
    // One worker per projection: a second one waits here and takes over when the first dies.
    lease: {
      ...(settings.leaseMs !== undefined ? { ttlMs: settings.leaseMs } : {}),
      onWaiting: (held) => log.info({ projections: held }, 'another worker holds the leases; waiting to take over'),
    },
    stopWaiting: stopped,
  });
  if (!projector) {
    log.info({ projections: names }, 'stopped while waiting for the leases');
    await reads.close();
    await events.close();
    return 0;
  }
  log.info({ projections: names, from: String(projector.checkpoint ?? 'the start') }, 'following the journal');
  const operations = watch({ settings, events, reads, projections: names, projectors: [projector] });
  operations.metrics.gauge('town_projector_events_folded', 'Events this worker has folded since it started', () => projector.folded);
  operations.readiness.start();
  const listener = settings.metricsPort !== undefined ? await serveOperations(operations, settings.metricsPort, settings.listenHost) : undefined;
  if (listener) log.info({ port: listener.port }, 'serving /metrics, /health and /ready');
  if (flags.includes('--until-caught-up')) void projector.whenCaughtUp().then(stop);
  const report = setInterval(() => {
    if (failed) stop();
  }, 200);
  await stopped;
  clearInterval(report);
  await projector.stop();
  operations.readiness.stop();
  await listener?.close();
  log.info({ at: String(projector.checkpoint ?? 'the start'), folded: projector.folded }, 'stopped');
  log.flush();
  await reads.close();
  await events.close();
  if (failed) {
    log.error({ error: failed.stack ?? failed.message }, 'projector failed');
    log.flush();
    return 1;
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);

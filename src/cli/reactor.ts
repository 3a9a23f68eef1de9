/**
 * `npm run reactor -- feed [--until-answered]`: the town's answers to its feed as a worker
 * process, beside the HTTP fronts and the projector workers (with EventStoreDB and MongoDB;
 * on the embedded stores the server runs it itself). It is a front without a listener: it keeps
 * the town's world current from the journal, casts each new top-level post to the town card and
 * posts the answer, resuming from its checkpoint. `--until-answered` stops once every post in the
 * journal at start is answered.
 *
 * With TOWN_METRICS_PORT it serves /metrics, /health and /ready there (src/operations); it logs
 * JSON lines to stdout (LOG_LEVEL).
 */
import { startFeedReactor } from '../commands/feed-reactor.js';
import { FeedService } from '../commands/feed-service.js';
import { settingsFromEnv } from '../config.js';
import { openTown } from '../town.js';
import { townLog } from '../operations/log.js';
import { serveOperations } from '../operations/worker-server.js';

async function main(argv: string[]): Promise<number> {
  const names = argv.filter((a) => !a.startsWith('--'));
  if (names.length !== 1 || names[0] !== 'feed') {
    console.error('usage: npm run reactor -- feed [--until-answered]   (the feed is the one reactor run as a worker)');
    return 2;
  }
  const settings = { ...settingsFromEnv(), inProcessProjectors: false };
  const log = townLog({ level: settings.logLevel, base: { worker: 'reactor feed' } });
  const town = await openTown({ settings, log });
  const feed = new FeedService(town.events, Date.now, town.config.host);
  let failed: Error | undefined;
  const reactor = await startFeedReactor({
    events: town.events,
    reads: town.reads,
    world: town.world,
    feed,
    host: town.config.host,
    onError: (e) => (failed = e),
  });
  log.info({ host: town.config.host }, 'answering posts');
  const listener = settings.metricsPort !== undefined ? await serveOperations(town.operations, settings.metricsPort, settings.listenHost) : undefined;
  if (listener) log.info({ port: listener.port }, 'serving /metrics, /health and /ready');
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (argv.includes('--until-answered')) void reactor.caughtUp.then(stop);
  await stopped;
  await reactor.close();
  await listener?.close();
  await town.close();
  if (failed) log.error({ error: failed.stack ?? failed.message }, 'reactor failed');
  else log.info('stopped');
  log.flush();
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);

/**
 * `npm run reactor -- feed [--until-answered]`: the town's answers to its feed as a worker
 * process, beside the HTTP fronts and the projector workers (with EventStoreDB and MongoDB;
 * on the embedded stores the server runs it itself). It is a front without a listener: it keeps
 * the town's world current from the journal, casts each new top-level post to the town card and
 * posts the answer, resuming from its checkpoint. `--until-answered` stops once every post in the
 * journal at start is answered.
 */
import { startFeedReactor } from '../commands/feed-reactor.js';
import { FeedService } from '../commands/feed-service.js';
import { settingsFromEnv } from '../config.js';
import { openTown } from '../town.js';

async function main(argv: string[]): Promise<number> {
  const names = argv.filter((a) => !a.startsWith('--'));
  if (names.length !== 1 || names[0] !== 'feed') {
    console.error('usage: npm run reactor -- feed [--until-answered]   (the feed is the one reactor run as a worker)');
    return 2;
  }
  const settings = { ...settingsFromEnv(), inProcessProjectors: false };
  const town = await openTown({ settings });
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
  console.log(`reactor feed: answering posts to ${town.config.host}`);
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (argv.includes('--until-answered')) void reactor.caughtUp.then(stop);
  await stopped;
  await reactor.close();
  await town.close();
  if (failed) {
    console.error(`reactor failed: ${failed.stack ?? failed.message}`);
    return 1;
  }
  console.log('reactor feed: stopped');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);

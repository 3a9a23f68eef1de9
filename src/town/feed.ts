/**
 * The feed: the guests' posts and the town's answers to them. The answers follow the
 * projectors: in the process that owns the embedded journal (also beside projector workers
 * and extra fronts, which leave it to that process), as a worker (`npm run reactor -- feed`)
 * beside EventStoreDB.
 */
import type { Clock } from '../contract/clock.js';
import type { TownConfig } from '../contract/town-config.js';
import type { Settings } from '../config.js';
import { FeedService } from '../commands/feed-service.js';
import { startFeedReactor } from '../commands/feed-reactor.js';
import type { WorldService } from '../commands/world-service.js';
import type { Logger } from '../http/app.js';
import type { Closers } from './shutdown.js';
import type { Stores } from './stores.js';

export async function openFeed(
  settings: Settings,
  { events, reads }: Stores,
  world: WorldService,
  clock: Clock,
  config: TownConfig,
  logger: Logger | undefined,
  closers: Closers,
): Promise<FeedService> {
  const feed = new FeedService(events, clock, config.host);
  if ((settings.inProcessProjectors || !settings.eventStoreUrl) && !settings.front) {
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
  return feed;
}

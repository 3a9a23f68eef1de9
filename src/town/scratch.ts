/**
 * The scratch worlds: private worlds forked from the town where a guest tries turns; their
 * turns are counted apart from the town's.
 */
import type { Clock } from '../contract/clock.js';
import type { TownConfig } from '../contract/town-config.js';
import type { Programs } from '../cards/kernel/programs.js';
import { defaultOptions } from '../cards/kernel/options.js';
import { ScratchWorlds } from '../commands/scratch-service.js';
import type { WorldService } from '../commands/world-service.js';
import type { TownMetrics } from '../operations/metrics.js';
import { turnCounter } from '../operations/watch.js';
import type { Closers } from './shutdown.js';
import type { Stores } from './stores.js';

export function openScratches(
  { events }: Stores,
  programs: Programs,
  clock: Clock,
  world: WorldService,
  config: TownConfig,
  metrics: TownMetrics,
  closers: Closers,
): ScratchWorlds {
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
  return scratches;
}

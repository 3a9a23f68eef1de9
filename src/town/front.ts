/**
 * The town's front: the koa app (src/http/app.ts) over the bound rooms, authenticating callers
 * against the journal, writing its request log and metrics, and following the town's mode.
 */
import type { Clock } from '../contract/clock.js';
import type { Limiters } from '../contract/rate-limit.js';
import type { TownConfig } from '../contract/town-config.js';
import { createApp, type Logger, type TownApp } from '../http/app.js';
import type { RoomTable } from '../http/route-types.js';
import { StoreAuthenticator } from '../identity/authenticator.js';
import { principalHasher } from '../operations/log.js';
import type { TownMetrics } from '../operations/metrics.js';
import type { TownMode } from './identity.js';
import type { TownOptions } from './options.js';
import type { Stores } from './stores.js';

export interface FrontParts {
  options: TownOptions;
  stores: Stores;
  config: TownConfig;
  mode: TownMode;
  handlers: RoomTable;
  clock: Clock;
  limiters: Limiters;
  logger: Logger | undefined;
  metrics: TownMetrics;
}

export function townFront({ options, stores, config, mode, handlers, clock, limiters, logger, metrics }: FrontParts): TownApp {
  return createApp({
    config,
    handlers,
    authenticator: new StoreAuthenticator(stores.events, config, clock),
    clock,
    limiters,
    logger,
    observation: { log: options.log, metrics, principalHash: principalHasher(config.secret) },
    // The operator may switch the mode while the town runs; the arrive routes follow at once.
    townOpen: () => mode.open,
  });
}

/**
 * Where the town's background work reports its failures: to the log when there is one, else
 * to stderr, as each part reports by default.
 */
import { errorText } from '../http/front/failure.js';
import type { Logger } from '../http/app.js';
import { frontLogger } from '../operations/log.js';
import type { TownOptions } from './options.js';

/** The options a background part takes to report a failure under `what` (none: its default). */
export type ReportTo = (what: string) => { onError?: (e: Error) => void };

/** The logger given, or one writing to the operational log, or none. */
export function townLogger({ logger, log }: TownOptions): Logger | undefined {
  return logger ?? (log ? frontLogger(log) : undefined);
}

export function reportTo(logger: Logger | undefined): ReportTo {
  return (what) => (logger ? { onError: (e: Error) => logger.error(what, { error: errorText(e) }) } : {});
}

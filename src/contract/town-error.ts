/**
 * The one failure type of the core: thrown anywhere below a handler (identity, commands,
 * queries), turned into the spec 2.10 envelope by the front. It names an error class of the
 * spec's table, so the core says what went wrong without knowing about HTTP.
 */
import type { ErrorClass } from './errors.js';

/** Thrown anywhere below a handler; the envelope middleware turns it into spec 2.10. */
export class TownError extends Error {
  constructor(
    readonly cls: ErrorClass,
    message: string,
    readonly extra: {
      hint?: string;
      /** Link relation for the hint, e.g. the route to read next. */
      hintHref?: string;
      headers?: Record<string, string>;
      /** Extra reply fields kept beside the envelope (reason, object, stage, span, …). */
      fields?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
    this.name = 'TownError';
  }
}

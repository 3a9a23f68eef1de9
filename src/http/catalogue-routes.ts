/**
 * The routes as the catalogue lists them (GET /AGENTS.md/api): one entry per route of the
 * table, with its body and query shapes and its scratch tail when scratch worlds serve. Both
 * catalogue shapes, the current one (catalogue.ts) and the earlier one (earlier-catalogue.ts),
 * list them from here.
 */
import { hrefTemplate, type Route } from './routes.js';
import { shapeOf, type Shape } from './shape.js';

export interface CatalogueRoute {
  name: string;
  method: string;
  href: string;
  auth: string;
  does: string;
  body?: Shape;
  query?: Shape;
  reasons?: readonly string[];
  scratch?: string;
  /** Present (false) only while no room has plugged a handler in. */
  built?: false;
}

export function catalogueRoutes(table: readonly Route[], built: (r: Route) => boolean): CatalogueRoute[] {
  const variants = new Map(table.filter((r) => r.base).map((r) => [r.base as string, r]));
  // The tails reach the town's handlers, but they serve only once scratch worlds can be opened.
  const opening = table.find((r) => r.name === 'scratch');
  const scratchServed = opening !== undefined && built(opening);
  return table
    .filter((r) => !r.base && !r.operator)
    .map((r) => {
      const scratch = variants.get(r.name);
      const entry: CatalogueRoute = { name: r.name, method: r.method, href: hrefTemplate(r), auth: r.auth, does: r.does };
      if (r.body) entry.body = shapeOf(r.body);
      if (r.query) entry.query = shapeOf(r.query);
      if (r.reasons) entry.reasons = r.reasons;
      // Only a tail that serves is advertised: while scratch worlds cannot be opened, none does.
      if (scratch && scratchServed) entry.scratch = hrefTemplate(scratch);
      if (!built(r)) entry.built = false;
      return entry;
    });
}

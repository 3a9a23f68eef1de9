/**
 * What the front answers when no route takes a request: a method no route takes is 501 whatever
 * the path (spec 7.1); a path whose routes take other methods is 405 naming them; anything else
 * is 404 `unknownRoute`. Every refusal points at the catalogue.
 */
import { TownError } from '../../contract/town-error.js';
import type { TownContext } from '../handler.js';
import type { Route } from '../routes.js';

/** The methods some route of the table takes (HEAD with GET), and the refusal of any other. */
export function methodGate(table: readonly Route[]): { taken: ReadonlySet<string>; notImplemented(method: string): TownError } {
  const taken = new Set(['HEAD', ...table.map((r) => r.method)]);
  const listed = [...taken].join(', ');
  return {
    taken,
    notImplemented: (method) => new TownError('notImplemented', `no route takes the method ${method}; routes take ${listed}`, { hintHref: '/AGENTS.md/api' }),
  };
}

/** Nothing matched: 405 when the path is a route's under another method, else 404. */
export function unmatched(ctx: TownContext, onPath: readonly { methods: string[] }[]): TownError {
  const matched = onPath.filter((layer) => layer.methods.length > 0);
  if (matched.length) {
    const allow = [...new Set(matched.flatMap((layer) => layer.methods))].join(', ');
    return new TownError('methodNotAllowed', `${ctx.path} takes ${allow}, not ${ctx.method}`, { headers: { Allow: allow }, hintHref: '/AGENTS.md/api' });
  }
  return new TownError('unknownRoute', `no route ${ctx.method} ${ctx.path}; the catalogue lists every route`, { hintHref: '/AGENTS.md/api' });
}

/**
 * Each row's handler as the front calls it: a room's (typed by its row in route-types.ts) or the
 * front's own (the catalogue, the guide: front/own-routes.ts); a row stated `notBuilt`, or left
 * out of a partial table, has none and answers 501.
 */
import type { TownConfig } from '../../contract/town-config.js';
import { frontHandlers } from '../front/own-routes.js';
import type { AnyHandler } from '../handler.js';
import { notBuilt, type SomeHandlers } from '../route-types.js';

/** A route name's handler, or undefined while the route is not built. */
export type HandlerOf = (name: string) => AnyHandler | undefined;

export function handlerTable(config: TownConfig, townOpen: () => boolean | Promise<boolean>, handlers: SomeHandlers): HandlerOf {
  // The cast forgets each handler's row type: the front calls a handler only for its own row,
  // after that row's codecs decoded the body and query.
  const given = {
    ...frontHandlers(config, townOpen, (name) => handlerOf(name) !== undefined),
    ...handlers,
  } as unknown as Record<string, AnyHandler | typeof notBuilt | undefined>;
  function handlerOf(name: string): AnyHandler | undefined {
    const h = given[name];
    return h === notBuilt ? undefined : h;
  }
  return handlerOf;
}

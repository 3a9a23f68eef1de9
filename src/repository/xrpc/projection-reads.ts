/**
 * What the town's two queries of live values share (town.world.getProjection and
 * listProjections): the world they read, the `kind` the town serves (the lexicon names the kinds
 * as known values only), and the town's refusals in spec 7.3's words.
 */
import { TownError } from '../../contract/town-error.js';
import { TOWN_WORLD } from '../../events/world.js';
import type { WorldReads } from '../../queries/world-reads.js';
import { NoValue, type ProjectionKind, projectionKinds } from '../live-values.js';
import type { XrpcDeps } from './method.js';
import { fail, type Params, required } from './params.js';

/** The town's world as anyone reads it. */
export function townWorld(deps: XrpcDeps): WorldReads {
  return {
    reads: deps.reads,
    events: deps.events,
    programs: deps.programs,
    world: TOWN_WORLD,
    clock: deps.clock,
    ...(deps.past ? { past: deps.past } : {}),
  };
}

export function kindParam(q: Params): ProjectionKind {
  const kind = required(q, 'kind');
  if (!(projectionKinds as readonly string[]).includes(kind)) fail('InvalidRequest', `kind is one of ${projectionKinds.join(', ')}`);
  if (kind === 'answer' && !q.view) fail('InvalidRequest', 'kind answer needs view: the name of the view whose answer to read');
  return kind as ProjectionKind;
}

/** A live read, its refusals as AT Protocol errors: no value, a denial, a name no one can spell. */
export async function live<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof NoValue) fail('RecordNotFound', error.message);
    if (error instanceof TownError && error.cls === 'denied') fail('Denied', error.message);
    if (error instanceof TownError && error.cls === 'unspellable') fail('InvalidRequest', error.message);
    throw error;
  }
}

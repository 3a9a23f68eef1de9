/** town.world.listProjections: live values of the public cards in id order, one per card, a page at a time. */
import { liveValues } from '../live-values.js';
import { townNamespace } from '../records.js';
import type { XrpcMethod } from './method.js';
import { lexiconParams, limitOf } from './params.js';
import { kindParam, live, townWorld } from './projection-reads.js';

export const listProjectionsNsid = `${townNamespace}.listProjections`;

export const listProjections: XrpcMethod = {
  nsid: listProjectionsNsid,
  handler: async (deps, q) => {
    await lexiconParams(listProjectionsNsid, q);
    const kind = kindParam(q);
    const limit = limitOf(q);
    const page = await live(() => liveValues(townWorld(deps), kind, { view: q.view, limit, ...(q.cursor !== undefined ? { cursor: q.cursor } : {}) }));
    return { projections: page.values, ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) };
  },
};

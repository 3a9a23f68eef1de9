/**
 * town.world.getProjection: a live value of the world as anyone sees it, a card, a card's page,
 * the index of cards, or a view's answer (live-values.ts).
 */
import { liveValue } from '../live-values.js';
import { townNamespace } from '../records.js';
import type { XrpcMethod } from './method.js';
import { lexiconParams, required } from './params.js';
import { kindParam, live, townWorld } from './projection-reads.js';

export const getProjectionNsid = `${townNamespace}.getProjection`;

export const getProjection: XrpcMethod = {
  nsid: getProjectionNsid,
  handler: async (deps, q) => {
    await lexiconParams(getProjectionNsid, q);
    const kind = kindParam(q);
    if (kind !== 'index') required(q, 'card');
    return live(() => liveValue(townWorld(deps), kind, { card: q.card, view: q.view, after: q.after, prefix: q.prefix }));
  },
};

/**
 * The operator's routes: `/ready`, the readiness probe load balancers and
 * orchestrators ask, and `/metrics`, the Prometheus text for the operator's addresses or token.
 *
 * A caller the operator does not allow is answered as if there were no such route
 * (`unknownRoute`, 404, word for word what the front answers a path no route has): the
 * agents' API has no metrics, and a scanner learns nothing from the answer.
 */
import { TownError } from '../../contract/town-error.js';
import type { OperatorAccess } from '../../operations/access.js';
import type { TownMetrics } from '../../operations/metrics.js';
import type { Readiness, ReadinessState } from '../../operations/readiness.js';
import type { RoomHandlers } from '../route-types.js';

export interface OperationsDeps {
  metrics: TownMetrics;
  readiness: Readiness;
  access: OperatorAccess;
}

/** A probe's answer is reused this long: probes from many balancers cost one look at the stores. */
const probeReuseMs = 500;

export function operationsHandlers(deps: OperationsDeps): RoomHandlers<'ready' | 'metrics'> {
  let last: { at: number; state: Promise<ReadinessState> } | undefined;
  const readiness = () => {
    const now = performance.now();
    if (!last || now - last.at > probeReuseMs) last = { at: now, state: deps.readiness.state() };
    return last.state;
  };
  return {
    async ready() {
      const state = await readiness();
      if (!state.ready) throw new TownError('hostUnavailable', `not ready: ${state.reason}`, { headers: { 'Retry-After': '5' } });
      return {
        status: 'ready',
        projections: state.projections.map((p) => ({ name: p.name, lagSeconds: p.lagSeconds })),
      };
    },

    async metrics(ctx) {
      if (!deps.access.allows(ctx.state.address, ctx.get('authorization') || undefined)) {
        throw new TownError('unknownRoute', `no route ${ctx.method} ${ctx.path}; the catalogue lists every route`, { hintHref: '/AGENTS.md/api' });
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.type = deps.metrics.contentType;
      ctx.body = await deps.metrics.text();
    },
  };
}

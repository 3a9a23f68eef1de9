/**
 * A live rebuild of the town's read models (src/projections/live-rebuild.ts): every read model
 * is rebuilt into a new generation while the town serves, then the town switches to it.
 */
import type { Settings } from '../config.js';
import type { Programs } from '../cards/kernel/programs.js';
import { rebuildLive, type LiveRebuildOptions, type LiveRebuildResult } from '../projections/live-rebuild.js';
import type { ProjectorHandle } from '../projections/projector.js';
import { townProjections } from './projectors.js';
import type { Stores } from './stores.js';

export type RebuildLive = (options?: Pick<LiveRebuildOptions, 'onProgress' | 'onStep' | 'batch' | 'switchLag'>) => Promise<LiveRebuildResult>;

/** Refused when the projectors run as workers: they are not this process's to suspend. */
export function liveRebuild(settings: Settings, { events, reads }: Stores, programs: Programs, projectors: ProjectorHandle[]): RebuildLive {
  return async (o = {}) => {
    if (!projectors.length)
      throw new Error('the read models are folded by workers: a live rebuild needs the town to fold them itself (TOWN_PROJECTORS=inline)');
    // Projections of their own: the running projectors' keep state between units.
    const all = townProjections(settings, programs);
    const names = new Set(projectors.flatMap((p) => p.names));
    return rebuildLive({ ...o, events, reads, projections: Object.values(all).filter((p) => names.has(p.name)), projectors });
  };
}

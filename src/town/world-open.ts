/**
 * The start's longest wait: the world replays its journal on this thread while the projectors
 * start on theirs. The start goes on once both are done, and fails with the world's failure
 * first, then the projectors'; whatever of them did start is stopped at close either way.
 */
import type { WorldService } from '../commands/world-service.js';
import type { ProjectorHandle } from '../projections/projector.js';
import type { Closers } from './shutdown.js';

export async function worldBesideProjectors(
  worldOpened: Promise<void>,
  projecting: { projectors: ProjectorHandle[]; started: Promise<void> },
  world: WorldService,
  closers: Closers,
): Promise<void> {
  const [opened, projected] = await Promise.allSettled([worldOpened, projecting.started]);
  // The projectors stop before the world (closers run newest first).
  if (opened.status === 'fulfilled') closers.push(() => world.close());
  for (const projector of projecting.projectors) closers.push(() => projector.stop());
  if (opened.status === 'rejected') throw opened.reason;
  if (projected.status === 'rejected') throw projected.reason;
}

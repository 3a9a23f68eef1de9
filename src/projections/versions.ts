/**
 * Read models and the version of the fold that built them. Each projection declares its fold's
 * version (Projection.version); a rebuild records it in the read store beside the checkpoint.
 * At start (the town's own projectors, a projector worker), a read model built by another
 * version is rebuilt from the journal before anything resumes or reads it, so no read is served
 * from documents of an old shape; one built by the same version resumes from its checkpoint.
 * A read model with no version recorded (built before versions were) counts as another version.
 * One that never folded anything (no version, no checkpoint: a new store) has nothing stale in
 * it: it is only stamped with the version, and its projector folds it from the start as ever.
 */
import type { EventStore } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import type { Projection } from './projection.js';
import { progressBar, rebuildProjections, type ProgressOut, type RebuildOptions } from './rebuild.js';

export interface StaleReadModel {
  projection: Projection;
  /** The version it was built with; undefined when none was recorded. */
  built: number | undefined;
  /** Its checkpoint: undefined when it never folded anything. */
  checkpoint: bigint | undefined;
}

/** The read models built by another version of their fold than the projection's own. */
export async function staleReadModels(reads: ReadStore, projections: readonly Projection[]): Promise<StaleReadModel[]> {
  const stale: StaleReadModel[] = [];
  for (const projection of projections) {
    const built = await reads.version(projection.name);
    if (built === projection.version) continue;
    stale.push({ projection, built, checkpoint: await reads.checkpoint(projection.name) });
  }
  return stale;
}

/** `read models built by another version of their fold: cards (version 1, now 2), guests (no version recorded, now 1)`. */
export function describeStale(stale: readonly StaleReadModel[]): string {
  const each = stale.map(({ projection: p, built }) => `${p.name} (${built === undefined ? 'no version recorded' : `version ${built}`}, now ${p.version})`);
  return `read models built by another version of their fold: ${each.join(', ')}`;
}

/** Never folded anything: nothing in it can be stale. */
const unbuilt = (s: StaleReadModel) => s.built === undefined && s.checkpoint === undefined;

export interface RebuildStaleOptions extends Pick<RebuildOptions, 'batch'> {
  /** Where to say what is rebuilt and draw the rebuild's progress bar (stderr by default). */
  out?: ProgressOut;
  /**
   * `refuse` throws instead of rebuilding (for a projector that cannot read the whole journal,
   * as the server's projector thread, whose town rebuilds before starting it).
   */
  stale?: 'rebuild' | 'refuse';
}

/**
 * Rebuilds, in one pass over the journal, the read models built by another version of their
 * fold; the others are left to resume from their checkpoints (new ones, from the start, once
 * stamped with their version). Returns the names rebuilt.
 */
export async function rebuildStale(
  events: EventStore,
  reads: ReadStore,
  projections: readonly Projection[],
  options: RebuildStaleOptions = {},
): Promise<string[]> {
  const stale = await staleReadModels(reads, projections);
  const fresh = stale.filter(unbuilt);
  if (fresh.length) {
    await reads.unit(async (unit) => {
      for (const { projection } of fresh) unit.setVersion(projection.name, projection.version);
    });
  }
  const built = stale.filter((s) => !unbuilt(s));
  if (!built.length) return [];
  if (options.stale === 'refuse') throw new Error(`${describeStale(built)}: rebuild them (npm run rebuild) before starting this projector`);
  const out = options.out ?? process.stderr;
  out.write(`${describeStale(built)}: rebuilding them from the journal\n`);
  const bar = progressBar(out);
  await rebuildProjections(
    events,
    reads,
    built.map((s) => s.projection),
    { ...(options.batch !== undefined ? { batch: options.batch } : {}), onProgress: bar.onProgress },
  );
  bar.end();
  return built.map((s) => s.projection.name);
}

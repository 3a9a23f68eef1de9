/**
 * The read side: the projectors that fold the journal into the read models every read is served
 * from, in this process (on threads of their own by default) or as workers
 * (`npm run projector -- <name>`) when TOWN_PROJECTORS=workers or MONGO_URL is set. The one
 * place the town reads the projection registry.
 */
import type { Settings } from '../config.js';
import type { Programs } from '../cards/kernel/programs.js';
import { allProjections, type ProjectionName, projectionNames } from '../projections/index.js';
import { ensureIndexes, Projector, type ProjectorHandle } from '../projections/projector.js';
import { ThreadProjector } from '../projections/thread.js';
import { rebuildStale } from '../projections/versions.js';
import { loadRepositoryKeys } from '../repository/keys.js';
import { EmbeddedEventStore } from '../stores/embedded/event-store.js';
import type { ReportTo } from './failures.js';
import type { TownOptions } from './options.js';
import { repositoryGiveWay, repositoryLingerMs, repositoryNice } from './repository-pace.js';
import type { Stores } from './stores.js';

/** Every projection, with the repository's signing keys unless signing is off. */
export function townProjections(settings: Settings, programs: Programs) {
  return allProjections(programs, settings.signing !== false ? { keys: () => loadRepositoryKeys(settings.dataDir) } : {});
}

/** The read models this process's readiness waits for: its own projectors', or every one when workers fold them. */
export function watchedProjections(settings: Settings, projectors: ProjectorHandle[]): readonly string[] {
  return settings.inProcessProjectors ? projectors.flatMap((p) => p.names) : projectionNames;
}

/**
 * The projectors start on threads of their own (loading their modules there, catching up from
 * their checkpoints) while this thread replays the world: a start waits for the longer of the
 * two, not for both one after the other. Resolves once their threads are spawned, to a promise
 * of their start; `projectors` holds each one that started (stopped at close, or when another fails).
 */
export async function startProjectors(
  options: TownOptions,
  { events, reads, diskGuard }: Stores,
  programs: Programs,
  report: ReportTo,
): Promise<{ projectors: ProjectorHandle[]; started: Promise<void> }> {
  const { settings } = options;
  const projectors: ProjectorHandle[] = [];
  if (!settings.inProcessProjectors) return { projectors, started: Promise.resolve() };
  const signing = settings.signing !== false;
  const all = townProjections(settings, programs);
  // Read models built by another version of their fold are rebuilt from the journal (with
  // the progress bar on stderr) before a projector resumes them or a read is served.
  await rebuildStale(events, reads, Object.values(all));
  // Indexes first, from this thread: its read store then knows them for its queries.
  await ensureIndexes(reads, Object.values(all));
  const modules = programs.libraryModules;
  const threaded = modules && options.projectorThread !== false;
  // The repository folds on a projector of its own: it signs commits, which must not hold up
  // the read models a caller's next read waits for (docs/decisions/repository-commits.md).
  const groups: { names: ProjectionName[]; repository: boolean }[] = [{ names: projectionNames.filter((n) => n !== 'repository'), repository: false }];
  if (options.repository !== false) groups.push({ names: ['repository'], repository: true });
  const made = groups.map((group) =>
    threaded
      ? new ThreadProjector({
          events,
          ...(events instanceof EmbeddedEventStore ? { journal: events.share() } : {}),
          // The thread keeps the same watermark before its units (a guard of its own: options cross as data).
          readStore: { url: settings.mongoUrl, dataDir: settings.dataDir, ...(diskGuard ? { minFreeBytes: diskGuard.minFreeBytes } : {}) },
          names: group.names,
          libraryModules: modules,
          batch: 1000,
          ...(group.repository
            ? { lingerMs: repositoryLingerMs, nice: repositoryNice, giveWay: repositoryGiveWay, ...(signing ? { signing: settings.dataDir } : {}) }
            : {}),
          ...report(`projector thread ${group.names.join(',')} failed (started again after a wait)`),
        })
      : new Projector(
          events,
          reads,
          group.names.map((n) => all[n]),
          {
            batch: 1000,
            ...(group.repository ? { lingerMs: repositoryLingerMs } : {}),
            ...report(`projector ${group.names.join(',')} stopped`),
          },
        ),
  );
  // Their threads start side by side; each one started is stopped at close (or when another fails).
  const starts = Promise.allSettled(made.map((projector) => projector.start()));
  return {
    projectors,
    started: starts.then((settled) => {
      settled.forEach((s, i) => s.status === 'fulfilled' && projectors.push(made[i]!));
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    }),
  };
}

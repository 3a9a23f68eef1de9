/**
 * What a running town answers on its control socket (control.ts): the operator's commands
 * (operator.ts) on its own journal, and the ones that need the running town itself: `export`
 * (cli/archive.ts) on its own stores, and `rebuild-live` (`npm run rebuild -- --live`),
 * which only the town can do, since it suspends the town's projectors for the switch.
 */
import type { Settings } from '../config.js';
import { digestProjection } from '../projections/digest.js';
import { allProjections } from '../projectors/registry.js';
import { progressBar, type ProgressOut } from '../projections/rebuild.js';
import type { Town } from '../town.js';
import type { OperatorRun } from './control.js';
import { runOperator } from './operator.js';
import { runExport } from './archive.js';
import { openerQuiet } from '../commands/opener.js';
import { archiveDirOf } from '../commands/carry.js';

/** The progress bar over the socket: a line a second, as into a log. */
function socketProgress(err: (line: string) => void): ProgressOut {
  return { write: (text) => err(text.trimEnd()), isTTY: false };
}

export function townControl(town: Town, settings: Settings): OperatorRun {
  return async (command, args, io) => {
    if (command === 'export') {
      return runExport(args, { events: town.events, reads: town.reads, settings }, { ...io, progress: socketProgress(io.err) });
    }
    if (command === 'rebuild-live') {
      const bar = progressBar(socketProgress(io.err));
      const result = await town.rebuildLive({ onProgress: bar.onProgress, onStep: io.err });
      bar.end();
      io.out(
        `rebuilt every read model live: ${result.events.toLocaleString('en')} events in ${result.seconds.toFixed(2)} s; serving generation ${result.generation} (was ${result.from}) since position ${result.switchedAt ?? 'none'}, projectors paused ${Math.round(result.pauseMs)} ms`,
      );
      // The live read models: they move on with the town, so they equal `npm run digest` once it is quiet.
      for (const p of Object.values(allProjections(town.programs))) {
        const d = await digestProjection(town.reads, p);
        io.out(`digest ${d.projection} ${d.documents} ${d.sha256}`);
      }
      return 0;
    }
    const archiveDir = archiveDirOf(settings.dataDir);
    return runOperator(command, args, {
      store: town.events,
      clock: Date.now,
      quiet: openerQuiet(town.world, Date.now),
      // the running world service carries itself: what arrives meanwhile waits for the new epoch
      carry: { carry: () => town.world.carry(archiveDir), archiveDir },
      ...io,
    });
  };
}

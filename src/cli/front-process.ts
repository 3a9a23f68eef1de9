/**
 * An extra HTTP front beside the town that owns the embedded journal, on the same TOWN_DATA
 * (docs/decisions/embedded-fronts.md): the whole town's front, rooms and reads, whose journal
 * appends go to the owner and whose reads come from the journal file and the read models the
 * projector workers fold. `npm run front` runs one on its own port; `TOWN_FRONTS=<n> npm start`
 * forks n of them on the town's port (src/main.ts).
 */
import type { Settings } from '../config.js';
import { startServer } from '../http/server.js';
import { townLog } from '../operations/log.js';
import { startingApp } from '../operations/starting.js';
import { openTown } from '../town.js';

/** Why a front cannot run on these settings, or undefined when it can. */
export function frontRefusal(settings: Settings): string | undefined {
  if (settings.eventStoreUrl || settings.mongoUrl || settings.inProcessProjectors) {
    return 'a front runs beside a town on the embedded stores with TOWN_PROJECTORS=workers (on EventStoreDB and MongoDB, start more towns instead)';
  }
  // Principals and links name the town's host: every front of a town must name the same one.
  if (!settings.origin) return 'a front needs TOWN_ORIGIN, the origin the town serves (every front names the same host)';
  return undefined;
}

/** Serves a front until SIGTERM or SIGINT; says where on stderr. */
export async function runFront(given: Settings): Promise<void> {
  const refused = frontRefusal(given);
  if (refused) throw new Error(refused);
  const log = townLog({ level: given.logLevel, inBlocks: true });
  const running = await startServer(startingApp(), { port: given.port, host: given.listenHost });
  const settings: Settings = { ...given, front: true, ...(given.port === 0 ? { port: running.address.port } : {}) };
  let town: Awaited<ReturnType<typeof openTown>>;
  try {
    town = await openTown({ settings, log });
  } catch (error) {
    await running.close();
    throw error;
  }
  running.use(town.app);
  process.stderr.write(`front ${process.pid} listening on http://${running.address.host}:${running.address.port} for ${town.config.origin}\n`);
  let closing = false;
  const shutdown = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await running.close();
    await town.close();
    log.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

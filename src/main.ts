/**
 * `npm start`: one process serving the town on the configured stores (embedded by default),
 * printing its address and, on a fresh town, a first invitation code. SIGTERM and SIGINT close
 * it cleanly: stop accepting, let requests being worked on finish, close the stores.
 *
 * It listens before the town is open: while the journal is opened and replayed the listener
 * answers /health 200 and everything else 503 (src/operations/starting.ts), then the town's app.
 * The operational log (JSON lines, src/operations/log.ts) goes to stdout; what this prints for
 * the person who started it (the address, the first invitation, which must never be in a log)
 * goes to stderr.
 */
import cluster from 'node:cluster';
import { type Settings, settingsFromEnv } from './config.js';
import { frontRefusal, runFront } from './cli/front-process.js';
import { startServer } from './http/server.js';
import { openTown } from './town.js';
import { serveControl } from './cli/control.js';
import { townControl } from './cli/town-control.js';
import { ThreadProjector } from './projectors/thread.js';
import { townLog } from './operations/log.js';
import { startingApp } from './operations/starting.js';

/** For the person at the terminal, not the log. */
const say = (line: string) => process.stderr.write(`${line}\n`);

/**
 * TOWN_FRONTS=<n>: this first process keeps the journal and the town's own work (the snapshots,
 * the feed's answers, the firehose, the control socket) without serving the port, and forks n
 * fronts that share the port (node:cluster hands connections round). A front that exits is
 * forked again after a second (docs/decisions/embedded-fronts.md).
 */
async function ownerOfFronts(given: Settings, fronts: number): Promise<void> {
  // The fronts name one origin: TOWN_ORIGIN, or the port they share.
  if (!given.origin && given.port === 0) throw new Error('TOWN_FRONTS needs a PORT (or TOWN_ORIGIN): the fronts share one port and name one origin');
  const origin = given.origin ?? `http://localhost:${given.port}`;
  const refused = frontRefusal({ ...given, origin });
  if (refused) throw new Error(refused);
  const log = townLog({ level: given.logLevel, inBlocks: true });
  const town = await openTown({ settings: { ...given, origin }, log });
  const control = await serveControl(given.dataDir, townControl(town, given));
  let closing = false;
  const fork = () => cluster.fork({ TOWN_ORIGIN: origin });
  cluster.on('exit', (worker, code, signal) => {
    if (closing) return;
    log.warn({ front: worker.process.pid, code, signal }, 'a front exited; forking another');
    setTimeout(() => {
      if (!closing) fork();
    }, 1000);
  });
  for (let i = 0; i < fronts; i++) fork();
  say(`town open at height ${town.world.height}: this process keeps the journal; ${fronts} fronts serve ${origin} on port ${given.port}`);
  if (town.firstInvitation) say(`first invitation (shown once): ${town.firstInvitation}`);
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    say(`${signal}: closing the fronts, then the town`);
    const exited = Object.values(cluster.workers ?? {}).map(
      (w) => new Promise<void>((resolve) => (w!.isDead() ? resolve() : w!.once('exit', () => resolve()))),
    );
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
    await Promise.all(exited);
    await control.close();
    await town.close();
    log.flush();
    say('closed');
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

async function main(): Promise<void> {
  const given = settingsFromEnv();
  if (given.fronts !== undefined) return cluster.isPrimary ? ownerOfFronts(given, given.fronts) : runFront(given);
  const log = townLog({ level: given.logLevel, inBlocks: true });
  const running = await startServer(startingApp(), { port: given.port, host: given.listenHost });
  // PORT=0 picks a free port; the default origin, and with it the host in every principal and
  // did, names the port listened on rather than port 0.
  const settings = given.port === 0 ? { ...given, port: running.address.port } : given;
  log.info({ port: running.address.port }, 'listening; opening the town (/health 200, /ready 503 until it is open and caught up)');
  let town: Awaited<ReturnType<typeof openTown>>;
  try {
    town = await openTown({ settings, log });
  } catch (error) {
    await running.close();
    throw error;
  }
  running.use(town.app);
  log.info({ height: town.world.height, startMs: Math.round(town.startMs) }, 'town open');
  const shown = settings.listenHost === '0.0.0.0' || settings.listenHost === '::' ? 'localhost' : running.address.host;
  say(
    `town listening on http://${shown}:${running.address.port} (${town.config.open ? 'open' : 'invited'} town, data in ${settings.eventStoreUrl ? 'EventStoreDB' : settings.dataDir})`,
  );
  say(`agents start at http://${shown}:${running.address.port}/AGENTS.md`);
  say(
    `the town's journal stands at height ${town.world.height} (ready in ${Math.round(town.startMs)} ms); read models ${!town.projectors.length ? 'are folded by workers: npm run projector' : town.projectors[0] instanceof ThreadProjector ? 'are folded in this process, on a thread of their own' : 'are folded in this process'}`,
  );
  if (town.firstInvitation) {
    say(`first invitation (shown once): ${town.firstInvitation}`);
    say(
      `  accept it: curl -s -X POST http://${shown}:${running.address.port}/AGENTS.md/accept -H 'content-type: application/json' -d '{"code":"${town.firstInvitation}","name":"ann"}'`,
    );
  } else {
    say('this town was founded before; issue an invitation with: npm run town -- invite');
  }

  // The embedded journal is this process's alone: the operator's commands come in over a socket.
  const control = settings.eventStoreUrl ? undefined : await serveControl(settings.dataDir, townControl(town, settings));

  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    say(`${signal}: closing (finishing requests in flight)`);
    await control?.close();
    await running.close();
    await town.close();
    log.flush();
    say('closed');
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

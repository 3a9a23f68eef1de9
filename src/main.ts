/**
 * `npm start`: one process serving the town on the configured stores (embedded by default),
 * printing its address and, on a fresh town, a first invitation code. SIGTERM and SIGINT close
 * it cleanly: stop accepting, let requests being worked on finish, close the stores.
 */
import net from 'node:net';
import { settingsFromEnv } from './config.js';
import { startServer } from './http/server.js';
import { openTown } from './town.js';
import { serveControl } from './cli/control.js';
import { townControl } from './cli/town-control.js';
import { ThreadProjector } from './projections/thread.js';

/** A port free now on `host` (for PORT=0: the town's origin must name the port it serves on). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  const given = settingsFromEnv();
  // PORT=0 picks a free port; the default origin, and with it the host in every principal and
  // did, names that port rather than port 0.
  const settings = given.port === 0 && !given.origin ? { ...given, port: await freePort(given.listenHost) } : given;
  const town = await openTown({ settings });
  const running = await startServer(town.app, { port: settings.port, host: settings.listenHost });
  const shown = settings.listenHost === '0.0.0.0' || settings.listenHost === '::' ? 'localhost' : running.address.host;
  console.log(
    `town listening on http://${shown}:${running.address.port} (${town.config.open ? 'open' : 'invited'} town, data in ${settings.eventStoreUrl ? 'EventStoreDB' : settings.dataDir})`,
  );
  console.log(`agents start at http://${shown}:${running.address.port}/AGENTS.md`);
  console.log(
    `the town's journal stands at height ${town.world.height} (ready in ${Math.round(town.startMs)} ms); read models ${!town.projectors.length ? 'are folded by workers: npm run projector' : town.projectors[0] instanceof ThreadProjector ? 'are folded in this process, on a thread of their own' : 'are folded in this process'}`,
  );
  if (town.firstInvitation) {
    console.log(`first invitation (shown once): ${town.firstInvitation}`);
    console.log(
      `  accept it: curl -s -X POST http://${shown}:${running.address.port}/AGENTS.md/accept -H 'content-type: application/json' -d '{"code":"${town.firstInvitation}","name":"ann"}'`,
    );
  } else {
    console.log('this town was founded before; issue an invitation with: npm run town -- invite');
  }

  // The embedded journal is this process's alone: the operator's commands come in over a socket.
  const control = settings.eventStoreUrl ? undefined : await serveControl(settings.dataDir, townControl(town, settings));

  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    console.log(`${signal}: closing (finishing requests in flight)`);
    await control?.close();
    await running.close();
    await town.close();
    console.log('closed');
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/**
 * One process of the fronts bench (bench/fronts.ts): `owner` opens the town that keeps the
 * embedded journal (TOWN_PROJECTORS=workers), `front` opens an extra front beside it
 * (settings.front), each with the rate limits lifted as the other benches lift them, listening on
 * a port it sends to the parent; asked, it sends its CPU time so far (user + system, µs).
 */
import { settingsFromEnv } from '../src/config.js';
import { createLimiters } from '../src/contract/rate-limit.js';
import { startServer } from '../src/http/server.js';
import { openTown } from '../src/town.js';
import { cpuUs } from './turns-figures.js';

async function main(): Promise<void> {
  const [role, dir] = process.argv.slice(2);
  const clock = Date.now;
  const base = settingsFromEnv({ TOWN_PROJECTORS: 'workers' });
  const town = await openTown({
    settings: { ...base, port: 0, dataDir: dir!, origin: 'http://bench.test', ...(role === 'front' ? { front: true } : {}) },
    origin: 'http://bench.test',
    clock,
    limiters: createLimiters(clock, { credential: [1e9, 1], identity: [1e9, 1], page: [1e9, 1], xrpc: [1e9, 1] }),
  });
  const server = await startServer(town.app, { port: 0, host: '127.0.0.1' });
  process.on('message', (m: { ask: string }) => {
    if (m.ask === 'cpu') process.send!({ cpuUs: cpuUs() });
    else if (m.ask === 'close')
      void server
        .close()
        .then(() => town.close())
        .then(() => process.exit(0));
  });
  process.send!({ port: server.address.port });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/**
 * One process of the fronts bench (bench/fronts.ts): `owner` opens the town that keeps the
 * embedded journal (TOWN_PROJECTORS=workers), `front` opens an extra front beside it
 * (settings.front), each with the rate limits lifted as the other benches lift them (but kept in
 * the fronts' shared store, as a box with several fronts keeps them, with windows of 0.2 s so
 * that a key's log holds about as many calls as spec 8's 32 a minute: that cost is measured),
 * listening on a port it sends to the parent; asked, it sends its CPU time so far (user +
 * system, µs).
 */
import { settingsFromEnv } from '../src/config.js';
import { createLimiters } from '../src/contract/rate-limit.js';
import { startServer } from '../src/http/server.js';
import { openTown } from '../src/town.js';
import { SharedFronts } from '../src/stores/embedded/shared-fronts.js';
import { cpuUs } from './turns-figures.js';

async function main(): Promise<void> {
  const [role, dir] = process.argv.slice(2);
  const clock = Date.now;
  const shared = SharedFronts.open(dir!);
  const base = settingsFromEnv({ TOWN_PROJECTORS: 'workers' });
  const town = await openTown({
    settings: { ...base, port: 0, dataDir: dir!, origin: 'http://bench.test', ...(role === 'front' ? { front: true } : {}) },
    origin: 'http://bench.test',
    clock,
    limiters: createLimiters(clock, { credential: [1e9, 0.2], identity: [1e9, 0.2], page: [1e9, 0.2], xrpc: [1e9, 0.2] }, (name, budget, clk) =>
      shared.limiter(name, budget, clk),
    ),
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

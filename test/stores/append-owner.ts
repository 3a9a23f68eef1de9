/**
 * The journal's owner as a process of its own, for test/stores/journal-client-process.test.ts:
 * opens the embedded store on the data directory it is given, serves appends on its socket and
 * keeps appending to a stream of its own meanwhile (so its index always lags the journal). On
 * SIGTERM it stops, closes the server and the store, prints `owner <n>` and exits.
 */
import { randomUUID } from 'node:crypto';
import { openEmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { serveAppends } from '../../src/stores/embedded/append-server.js';
import { appendSocketPath } from '../../src/stores/embedded/append-protocol.js';

const dataDir = process.argv[2]!;
const store = await openEmbeddedEventStore({ dataDir });
const server = await serveAppends(store, appendSocketPath(dataDir));
let stopped = false;
let appended = 0;
const own = (async () => {
  while (!stopped) {
    await store.append('owner', [{ id: randomUUID(), type: 'Tick', data: { n: appended } }], 'any');
    appended++;
  }
})();
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  stopped = true;
  void own
    .then(() => server.close())
    .then(() => store.close())
    .then(() => {
      process.stdout.write(`owner ${appended}\n`);
      process.exit(0);
    });
});

/**
 * The ReadStore contract (read-store.contract.ts, read-store-units.contract.ts) run against the
 * embedded store always, and against MongoDB, with and without transactions, when MONGO_URL is
 * set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ReadStore } from '../../src/stores/read-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import { openMongoReadStore } from '../../src/stores/mongo/read-store.js';
import { readStoreContract, type ReadStoreUnderTest } from './read-store.contract.js';
import { readStoreUnitsContract } from './read-store-units.contract.js';
import { readStoreGenerationsContract } from './read-store-generations.contract.js';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
}

/** `shared`: opened as beside projector workers (TOWN_PROJECTORS=workers): fences in the write transaction. */
function embeddedStore(shared: boolean) {
  return async (): Promise<ReadStoreUnderTest> => {
    const dataDir = tempDir();
    let current: ReadStore = await openEmbeddedReadStore({ dataDir, shared });
    return {
      store: current,
      async reopen() {
        current = await openEmbeddedReadStore({ dataDir, shared });
        return current;
      },
      async limited(unitLimits) {
        const dir = tempDir();
        const store = await openEmbeddedReadStore({ dataDir: dir, unitLimits, shared });
        return {
          store,
          async close() {
            await store.close();
            fs.rmSync(dir, { recursive: true, force: true });
          },
        };
      },
      async cleanup() {
        await current.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  };
}
const embedded = embeddedStore(false);
const embeddedShared = embeddedStore(true);

readStoreContract('embedded', embedded).run();
readStoreUnitsContract('embedded', embedded).run();
readStoreGenerationsContract('embedded', embedded).run();
readStoreContract('embedded, shared', embeddedShared).run();
readStoreUnitsContract('embedded, shared', embeddedShared).run();
readStoreGenerationsContract('embedded, shared', embeddedShared).run();

const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) {
  for (const transactions of ['auto', 'never'] as const) {
    const mongo = async (): Promise<ReadStoreUnderTest> => {
      const database = `town_contract_${randomUUID().slice(0, 8)}`;
      let current = await openMongoReadStore({ url: mongoUrl, database, transactions });
      return {
        store: current,
        async reopen() {
          current = await openMongoReadStore({ url: mongoUrl, database, transactions });
          return current;
        },
        async limited(unitLimits) {
          const store = await openMongoReadStore({ url: mongoUrl, database: `${database}_limited`, transactions, unitLimits });
          return {
            store,
            async close() {
              await store.dropDatabase();
              await store.close();
            },
          };
        },
        async cleanup() {
          await current.dropDatabase();
          await current.close();
        },
      };
    };
    readStoreContract(`mongo (transactions: ${transactions})`, mongo).run();
    readStoreUnitsContract(`mongo (transactions: ${transactions})`, mongo).run();
    readStoreGenerationsContract(`mongo (transactions: ${transactions})`, mongo).run();
  }
} else {
  console.log('read store contract: skipped mongo adapter (MONGO_URL not set)');
}

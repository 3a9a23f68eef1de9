/**
 * The EventStore of a front beside the town (src/stores/embedded/journal-client.ts): it reads
 * the journal locally and sends appends to the owner's socket (append-server.ts). It must pass
 * the event store contract unchanged, so a front cannot tell it from the embedded store; and
 * beside it: racing fronts, the owner's own appends, a connection dropped mid-append and bad
 * request lines. Owner, server and clients are in one process here.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WrongExpectedVersion, type EventData } from '../../src/stores/event-store.js';
import { openEmbeddedEventStore, type EmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { serveAppends, type AppendServer } from '../../src/stores/embedded/append-server.js';
import { appendSocketPath } from '../../src/stores/embedded/append-protocol.js';
import { openJournalClient, type JournalClient } from '../../src/stores/embedded/journal-client.js';
import { fileIo, type JournalIo } from '../../src/stores/embedded/journal.js';
import { eventStoreContract, type StoreUnderTest } from './event-store.contract.js';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'town-client-'));
const ev = (i: number): EventData => ({ id: randomUUID(), type: 'E', data: { i } });

eventStoreContract('journal client', async () => {
  const dataDir = tempDir();
  const owner = await openEmbeddedEventStore({ dataDir });
  const server = await serveAppends(owner, appendSocketPath(dataDir));
  const sut: StoreUnderTest = {
    store: await openJournalClient({ dataDir }),
    reopen: () => openJournalClient({ dataDir }),
    async cleanup() {
      await sut.store.close();
      await server.close();
      await owner.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return sut;
}).run();

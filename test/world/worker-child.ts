/**
 * A projector worker in a process of its own, for worker.test.ts: the real worker
 * (src/projectors/worker.ts) folding into the embedded read store it shares with the front
 * (LMDB: one writer process, any number of readers), reading the journal from the front's
 * event store over IPC.
 *
 * Why IPC for the journal: the embedded event store belongs to the process that opened it (its
 * journal file is written and recovered by that process alone), so a second process cannot open
 * it beside a running front. In a deployment the worker reads EventStoreDB, which any number of
 * processes share; here the front lends its store's `readAll` over the IPC channel, and the
 * worker follows it by polling, as it would follow any store that cannot notify it.
 */
import { DEFAULT_MAX_APPEND_SIZE, type EventStore, type ReadAllOptions, type RecordedEvent } from '../../src/stores/event-store.js';
import { openEmbeddedReadStore } from '../../src/stores/embedded/read-store.js';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { chooseProjections, startWorker } from '../../src/projectors/worker.js';
import type { Projector } from '../../src/projections/projector.js';

export type ToWorker = { start: { dataDir: string; pollMs: number } } | { stop: true } | { page: { id: number; events: RecordedEvent[] } };
export type FromWorker =
  | { ready: true }
  | { started: { checkpoint: string | undefined } }
  | { stopped: { folded: number; checkpoint: string | undefined } }
  | { read: { id: number; after?: bigint; maxCount?: number } }
  | { failed: string };

/** The event store of the front, read over IPC. Only what a polling projector uses is here. */
function ipcEvents(): EventStore {
  let n = 0;
  const waiting = new Map<number, (events: RecordedEvent[]) => void>();
  process.on('message', (m: ToWorker) => {
    if ('page' in m) {
      waiting.get(m.page.id)?.(m.page.events);
      waiting.delete(m.page.id);
    }
  });
  const page = (options: ReadAllOptions) =>
    new Promise<RecordedEvent[]>((resolve) => {
      const id = ++n;
      waiting.set(id, resolve);
      process.send!({
        read: {
          id,
          ...(options.after !== undefined ? { after: options.after } : {}),
          ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
        },
      } satisfies FromWorker);
    });
  const no = (what: string) => () => {
    throw new Error(`the worker's journal is read-only (${what})`);
  };
  return {
    maxAppendSize: DEFAULT_MAX_APPEND_SIZE,
    readAll(options: ReadAllOptions = {}) {
      return {
        async *[Symbol.asyncIterator]() {
          for (const e of await page(options)) yield e;
        },
      };
    },
    append: no('append'),
    deleteStream: no('deleteStream'),
    readStream: no('readStream'),
    streamRevision: no('streamRevision'),
    headPosition: no('headPosition'),
    subscribeToAll: no('subscribeToAll'),
    close: async () => {},
  };
}

if (process.send) {
  let projector: Projector | undefined;
  let close: (() => Promise<void>) | undefined;
  const events = ipcEvents();
  process.on('message', async (m: ToWorker) => {
    try {
      if ('start' in m) {
        const reads = await openEmbeddedReadStore({ dataDir: m.start.dataDir });
        projector = await startWorker({
          events,
          reads,
          programs: libraryPrograms(),
          names: chooseProjections([]),
          pollMs: m.start.pollMs,
          onError: (e) => process.send!({ failed: e.stack ?? e.message }),
        });
        if (!projector) throw new Error('the worker never got its leases');
        close = () => reads.close();
        await projector.whenCaughtUp();
        process.send!({ started: { checkpoint: projector.checkpoint?.toString() } } satisfies FromWorker);
      } else if ('stop' in m && projector) {
        await projector.stop();
        await close?.();
        process.send!({ stopped: { folded: projector.folded, checkpoint: projector.checkpoint?.toString() } } satisfies FromWorker);
      }
    } catch (e) {
      process.send!({ failed: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies FromWorker);
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true } satisfies FromWorker);
}

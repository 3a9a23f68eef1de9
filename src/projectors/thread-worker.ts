/**
 * The projector thread's own side (see thread.ts): the same Projector a worker process runs,
 * fed with the events the server's thread forwards, folding into its own connection to the
 * read store, reporting each committed checkpoint.
 */
import { readlinkSync, statSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { libraryPrograms } from '../cards/kernel/library.js';
import { JournalReader } from '../stores/embedded/journal-reader.js';
import { DEFAULT_MAX_APPEND_SIZE, type EventStore, type SubscribeHandlers } from '../stores/event-store.js';
import { openReadStore } from '../stores/open-read-store.js';
import type { FromThread, ThreadData, ToThread } from './thread-messages.js';
import { startWorker } from './worker.js';
import type { GiveWay, Projector } from '../projections/projector.js';
import type { ReadStore } from '../stores/read-store.js';
import { loadRepositoryCode } from '../repository/projection.js';

const port = parentPort;
if (!port) throw new Error('thread-worker.ts runs as a worker thread (thread.ts starts it)');
const data = workerData as ThreadData;
const post = (m: FromThread) => port.postMessage(m);
const failed = (error: unknown) => post({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) });

/** Events read from the journal file per step (the projector batches them further). */
const readMax = 1000;

/**
 * The journal as the projector's feed: the projector subscribes; the server's thread answers
 * with the journal's file and durable end (then each new end), or forwards events itself.
 */
function forwardedEvents(): { events: EventStore; deliver(m: ToThread): void; drained(): Promise<void>; close(): void; journalBytes(): number } {
  let handlers: SubscribeHandlers | undefined;
  // Everything is folded in arrival order, one step after another.
  let chain: Promise<void> = Promise.resolve();
  let reader: JournalReader | undefined;
  let cursor = 0;
  let target = 0;
  let caughtUp = false;
  let pumping = false;
  const pump = () => {
    if (pumping) return;
    pumping = true;
    chain = chain
      .then(async () => {
        try {
          reading: while (reader && handlers && cursor < target) {
            const h = handlers;
            const { events, next } = reader.read(cursor, target, readMax);
            for (const event of events) {
              // Suspended (a live rebuild) or stopped while folding: the rest is read again, from
              // the checkpoint, by the projector that resumes.
              if (handlers !== h) break reading;
              await h.onEvent(event);
            }
            cursor = next;
          }
        } finally {
          pumping = false;
        }
        if (reader) post({ read: cursor });
        if (!caughtUp && handlers) {
          caughtUp = true;
          handlers.onCaughtUp?.(undefined);
        }
      })
      .catch(failed);
  };
  const no = (what: string) => () => {
    throw new Error(`the projector thread only follows the journal (${what})`);
  };
  const events: EventStore = {
    maxAppendSize: DEFAULT_MAX_APPEND_SIZE,
    subscribeToAll(after, h) {
      // A projector started again (after a suspend) reads from where it says, told anew.
      handlers = h;
      caughtUp = false;
      reader?.close();
      reader = undefined;
      post({ subscribe: { after } });
      return {
        close: async () => {
          handlers = undefined;
        },
      };
    },
    append: no('append'),
    deleteStream: no('deleteStream'),
    readStream: no('readStream'),
    streamRevision: no('streamRevision'),
    readAll: no('readAll'),
    headPosition: no('headPosition'),
    close: async () => {},
  };
  const deliver = (m: ToThread) => {
    if ('journal' in m) {
      reader = new JournalReader(m.journal.file, m.journal.deleted);
      cursor = m.journal.from;
      target = m.journal.to;
      return pump();
    }
    if ('durable' in m) {
      target = Math.max(target, m.durable);
      return pump();
    }
    chain = chain
      .then(async () => {
        const h = handlers;
        if (!h) return;
        if ('events' in m) {
          for (const event of m.events) await h.onEvent(event);
          post({ took: m.events.length });
        } else if ('caughtUp' in m) h.onCaughtUp?.(undefined);
        else if ('feedFailed' in m) h.onError?.(new Error(m.feedFailed));
      })
      .catch(failed);
  };
  const close = () => {
    reader?.close();
    reader = undefined;
  };
  // How far the journal's file reaches now (written, not necessarily durable: only its growth is
  // used, to tell how busy turns are). Forwarded events have no file: never busy.
  const journalBytes = () => {
    try {
      return reader ? statSync(reader.file).size : 0;
    } catch {
      return 0;
    }
  };
  return { events, deliver, drained: () => chain, close, journalBytes };
}

/**
 * Linux keeps a nice value per thread: this thread's own id (from /proc/thread-self) lowers its
 * priority and nothing else's. Elsewhere the thread keeps the process's priority.
 */
function niceThread(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // Not Linux, or not allowed: the thread runs at the process's priority.
  }
}

/**
 * The meters this thread gives way to: the journal's growth (turns) and the process's CPU
 * (turns, reads, the other projector: `process.cpuUsage` counts every thread, this one too, which
 * is asleep while it looks).
 */
function giveWayTo(o: NonNullable<ThreadData['giveWay']>, journalBytes: () => number): GiveWay {
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  return {
    maxLagMs: o.maxLagMs,
    meters: [
      { read: journalBytes, busyPerSecond: o.journalBytesPerSecond },
      { read: cpu, busyPerSecond: o.cpuPerSecond },
    ],
  };
}

async function run(): Promise<void> {
  if (data.nice !== undefined) niceThread(data.nice);
  const feed = forwardedEvents();
  const programs = libraryPrograms({ modules: new Map(data.libraryModules.map((m) => [m.name, m])) });
  const signing = data.signing;
  /**
   * Opens the read store as it stands (at its current generation) and folds from its
   * checkpoints: at start, and again on `resume` after a live rebuild switched generations.
   */
  const fold = async () => {
    // (a thread without the repository never loads its AT Protocol code: repository/projection.ts)
    if (data.names.includes('repository')) await loadRepositoryCode();
    const reads = await openReadStore(data.readStore);
    try {
      // The thread follows the journal, it cannot read it whole: the town rebuilt stale read models before starting it.
      const projector = await startWorker({
        events: feed.events,
        reads,
        programs,
        names: data.names,
        batch: data.batch,
        ...(data.lingerMs !== undefined ? { lingerMs: data.lingerMs } : {}),
        ...(data.giveWay ? { giveWay: giveWayTo(data.giveWay, feed.journalBytes) } : {}),
        commitGapMs: data.commitGapMs,
        // (keys.ts loads the AT Protocol's curves: only a thread that signs needs them)
        ...(signing !== undefined ? { repository: { keys: async () => (await import('../repository/keys.js')).loadRepositoryKeys(signing) } } : {}),
        onError: failed,
        stale: 'refuse',
        lease: { holder: data.leaseHolder },
      });
      if (!projector) {
        await reads.close();
        return undefined;
      }
      projector.onAdvance((position) => post({ advanced: { position, folded: projector.folded } }));
      void projector.whenCaughtUp().then(() => post({ caughtUp: true }));
      post({ started: { checkpoints: data.names.map((n) => [n, projector.checkpointOf(n)]) } });
      return { projector, reads };
    } catch (error) {
      await reads.close();
      throw error;
    }
  };
  let folding: Promise<{ projector: Projector; reads: ReadStore } | undefined> | undefined;
  /**
   * Closes the read store after the projector commits: at a stop, everything it was given
   * (`drain`); at a suspend, only what it holds, so the pause does not wait for a backlog (the
   * resumed projector reads it from its checkpoint).
   */
  const halt = async (drain: boolean) => {
    const running = await folding?.catch(() => undefined);
    folding = undefined;
    if (drain) await feed.drained();
    await running?.projector.stop();
    await feed.drained();
    feed.close();
    await running?.reads.close();
  };
  let stopping = false;
  // Listening before the projector subscribes: the first events may come before it has started.
  port!.on('message', (m: ToThread) => {
    if ('suspend' in m) {
      // Suspended either way: a failure to close is told, and resume opens the store anew.
      halt(false).then(
        () => post({ suspended: true }),
        (error) => {
          failed(error);
          post({ suspended: true });
        },
      );
      return;
    }
    if ('resume' in m) {
      folding = fold();
      folding.catch(failed);
      return;
    }
    if ('nudge' in m) {
      void folding?.then((running) => running?.projector.nudge(), nothing);
      return;
    }
    if (!('stop' in m)) return feed.deliver(m);
    if (stopping) return;
    stopping = true;
    void halt(true)
      .then(() => {
        post({ stopped: true });
        port!.close();
      })
      .catch((error) => {
        failed(error);
        port!.close();
      });
  });
  folding = fold();
  await folding;
}

function nothing(): void {}

run().catch((error) => {
  failed(error);
  port.close();
});

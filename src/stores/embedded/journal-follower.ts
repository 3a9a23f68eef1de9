/**
 * The embedded journal as another process on the same machine reads it: a projector worker
 * beside the town (`TOWN_PROJECTORS=workers`, docs/decisions/embedded-workers.md). The journal
 * keeps one owner, which alone appends and keeps the stream heads; a follower reads `$all` from
 * the file, below the durable end the owner publishes after every group (durable-mark.ts), so it
 * sees exactly the acknowledged events, in order, and never writes. It starts reading at the
 * offset the owner's index gives for the position (LMDB, opened read-only: many readers across
 * processes are what LMDB allows), or from the journal's start when there is no index yet.
 *
 * What a follower cannot do, it refuses: appends, deletions and per-stream reads belong to the
 * owner, whose in-memory heads are the truth of every stream. Alone, it learns deleted streams
 * from the tombstones it reads; the projector workers and the HTTP fronts beside the town read
 * `$all` through journal-client.ts, which gives it the streams deleted before where it starts,
 * as the owner's own reads leave them out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import {
  DEFAULT_MAX_APPEND_SIZE,
  streamFilter,
  type EventStore,
  type ReadAllOptions,
  type RecordedEvent,
  type SubscribeHandlers,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.js';
import { checkReadAll } from '../event-store-checks.js';
import { JOURNAL_MAGIC } from './frames.js';
import { JournalReader } from './journal-reader.js';
import { CHECKPOINT } from './journal-index.js';
import { type Durable, DurableMarkReader, durableMarkFile } from './durable-mark.js';
import { eventsOwner } from './lock.js';

/** Events read from the file per step. */
const PAGE = 256;
/** How often a caught-up subscription looks at the durable mark. */
const DEFAULT_POLL_MS = 10;

export interface JournalFollowerOptions {
  /** The town's data directory: the journal is `<dataDir>/events/journal`. */
  dataDir: string;
  /** How often a caught-up subscription looks for new durable groups (default 10 ms). */
  pollMs?: number;
}

/**
 * Whether there is a journal to follow under `dataDir`: a town owns it now, or one left its
 * durable mark (a journal written before marks existed is folded by owning it, with the town stopped).
 */
export function canFollow(dataDir: string): boolean {
  const dir = path.join(dataDir, 'events');
  return fs.existsSync(path.join(dir, 'journal')) && (fs.existsSync(durableMarkFile(dir)) || eventsOwner(dir) !== undefined);
}

export async function openJournalFollower(options: JournalFollowerOptions): Promise<JournalFollower> {
  const dir = path.join(options.dataDir, 'events');
  const file = path.join(dir, 'journal');
  if (!fs.existsSync(file)) throw new Error(`no journal to follow in ${dir}: start the town first`);
  return new JournalFollower(dir, file, options.pollMs ?? DEFAULT_POLL_MS);
}

export class JournalFollower implements EventStore {
  readonly maxAppendSize = DEFAULT_MAX_APPEND_SIZE;
  private readonly mark: DurableMarkReader;
  private last: Durable = { position: 0, offset: JOURNAL_MAGIC.length };
  private index: RootDatabase | undefined;
  private readonly subscriptions = new Set<FollowerSubscription>();
  private closed = false;

  constructor(
    readonly dir: string,
    readonly file: string,
    readonly pollMs: number,
    /** Streams known to be deleted, left out of what is read (a reader learns later deletions from the journal). */
    private readonly deleted?: () => Iterable<string>,
  ) {
    this.mark = new DurableMarkReader(dir);
  }

  /** The durable end as the owner last published it (never going back within a session). */
  durable(): Durable {
    const now = this.mark.read();
    if (now && now.position >= this.last.position) this.last = now;
    return this.last;
  }

  /** A reader placed at the first frame after position `after`. */
  readerAfter(after: number): { reader: JournalReader; offset: number } {
    const reader = new JournalReader(this.file, this.deleted?.());
    try {
      const end = this.durable();
      if (after >= end.position) return { reader, offset: end.offset };
      const from = this.locate(after + 1) ?? { position: 1, offset: JOURNAL_MAGIC.length };
      // From the index's entry (every CHECKPOINT-th position) up to the first wanted frame, frame
      // by frame: tombstones and deleted streams' frames count as positions too.
      const offset = reader.skip(from.offset, after + 1 - from.position, end.offset);
      return { reader, offset };
    } catch (error) {
      reader.close();
      throw error;
    }
  }

  async headPosition(): Promise<bigint | undefined> {
    this.assertOpen();
    const { position } = this.durable();
    return position === 0 ? undefined : BigInt(position);
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    const { after, maxCount } = checkReadAll(options);
    const follower = this;
    return {
      async *[Symbol.asyncIterator]() {
        const placed = follower.readerAfter(after);
        const { reader } = placed;
        let { offset } = placed;
        const end = follower.durable().offset;
        let remaining = maxCount;
        try {
          while (remaining > 0 && offset < end) {
            const { events, next } = reader.read(offset, end, Math.min(PAGE, remaining));
            offset = next;
            for (const event of events) yield event;
            remaining -= events.length;
            if (events.length === 0 && next >= end) return;
          }
        } finally {
          reader.close();
        }
      },
    };
  }

  subscribeToAll(after: bigint | undefined, handlers: SubscribeHandlers, options?: SubscribeOptions): Subscription {
    this.assertOpen();
    const start = after === undefined ? 0 : checkReadAll({ after }).after;
    const subscription = new FollowerSubscription(this, start, handlers, streamFilter(options), () => this.subscriptions.delete(subscription));
    this.subscriptions.add(subscription);
    subscription.start();
    return subscription;
  }

  append(): never {
    return this.refuse('append');
  }

  deleteStream(): never {
    return this.refuse('deleteStream');
  }

  readStream(): never {
    return this.refuse('readStream');
  }

  streamRevision(): never {
    return this.refuse('streamRevision');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.mark.close();
    await this.index?.close();
  }

  private refuse(what: string): never {
    throw new Error(`this process follows the journal in ${this.dir} and does not own it: ${what} belongs to the town that does`);
  }

  /** The index's entry at or below `position` (undefined: no index, or none there yet). */
  private locate(position: number): { position: number; offset: number } | undefined {
    try {
      if (!this.index) {
        if (!fs.existsSync(path.join(this.dir, 'data.mdb'))) return undefined;
        this.index = open({ path: this.dir, maxDbs: 4, readOnly: true });
      }
      const offsets = this.index.openDB<number, number>({ name: 'offsets' });
      // Entries are at positions 1, 1 + CHECKPOINT, …: the one at or below `position`.
      for (const { key, value } of offsets.getRange({ start: position, reverse: true, limit: 1 })) {
        if ((key - 1) % CHECKPOINT === 0) return { position: key, offset: value };
      }
    } catch {
      // An index being rebuilt by its owner, or none yet: read from the journal's start.
    }
    return undefined;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

/** A catch-up subscription of a follower: the file to its durable end, then each new end. */
class FollowerSubscription implements Subscription {
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private wakeUp: (() => void) | undefined;
  private done: Promise<void> = Promise.resolve();
  private delivering = false;

  constructor(
    private readonly follower: JournalFollower,
    private readonly after: number,
    private readonly handlers: SubscribeHandlers,
    private readonly wanted: ((stream: string) => boolean) | undefined,
    private readonly forget: () => void,
  ) {}

  start(): void {
    // Deferred so that no handler runs before subscribeToAll has returned the subscription.
    this.done = Promise.resolve()
      .then(() => this.run())
      .catch((error: unknown) => {
        if (this.stopped) return;
        this.stopped = true;
        this.forget();
        this.handlers.onError?.(error instanceof Error ? error : new Error(String(error)));
      });
  }

  private async run(): Promise<void> {
    const { reader, offset: first } = this.follower.readerAfter(this.after);
    let offset = first;
    let caughtUp = false;
    try {
      while (!this.stopped) {
        const end = this.follower.durable();
        if (offset < end.offset) {
          const { events, next } = reader.read(offset, end.offset, PAGE);
          offset = next;
          for (const event of events) {
            if (this.stopped) return;
            if (!this.wanted || this.wanted(event.stream)) {
              this.delivering = true;
              try {
                await this.handlers.onEvent(event);
              } finally {
                this.delivering = false;
              }
            } else this.handlers.onPassed?.(event.position);
          }
          continue;
        }
        if (!caughtUp) {
          caughtUp = true;
          this.handlers.onCaughtUp?.(end.position === 0 ? undefined : BigInt(end.position));
        }
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          this.timer = setTimeout(resolve, this.follower.pollMs);
        });
      }
    } finally {
      reader.close();
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wakeUp?.();
    this.forget();
    // Called from inside onEvent, waiting for the loop would wait for itself.
    if (!this.delivering) await this.done;
  }
}

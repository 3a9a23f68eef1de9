/**
 * The EventStore of an HTTP front beside the town on one TOWN_DATA: it reads the embedded journal
 * locally and sends its appends to the journal's owner. `$all` (readAll, subscriptions, the head)
 * is read as a projector worker reads it (journal-follower.ts); per-stream reads come from the
 * owner's index and the journal's newest frames (journal-streams.ts); appends and deletions go
 * over the owner's socket (append-client.ts), which the owner serves with serveAppends
 * (append-server.ts). Each read looks at the durable mark first, and the owner publishes the mark
 * before it answers an append, so a front reads its own appends at once.
 *
 * Arguments are checked here as the embedded store checks them, and the owner's refusals come
 * back as the same classes, so a caller cannot tell this store from the embedded one.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_MAX_APPEND_SIZE,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeHandlers,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.js';
import { checkAppend, checkExpected, checkMaxAppendSize, checkStreamName } from '../event-store-checks.js';
import { AppendClient } from './append-client.js';
import { appendLine, appendSocketPath, decodeResult, deleteLine } from './append-protocol.js';
import { JournalFollower } from './journal-follower.js';
import { JournalStreams } from './journal-streams.js';

const DEFAULT_POLL_MS = 10;

export interface JournalClientOptions {
  /** The town's data directory: the journal is `<dataDir>/events/journal`, the owner's socket `<dataDir>/events/append.sock`. */
  dataDir: string;
  /** As the owner's store was opened with (default EventStoreDB's 1 MiB); the owner checks it again. */
  maxAppendSize?: number;
  /** How often a caught-up subscription looks for new durable groups (default 10 ms). */
  pollMs?: number;
}

export async function openJournalClient(options: JournalClientOptions): Promise<JournalClient> {
  const maxAppendSize = checkMaxAppendSize(options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE);
  const dir = path.join(options.dataDir, 'events');
  const file = path.join(dir, 'journal');
  if (!fs.existsSync(file)) throw new Error(`no journal in ${dir}: start the town first`);
  let streams: JournalStreams | undefined;
  const follower = new JournalFollower(dir, file, options.pollMs ?? DEFAULT_POLL_MS, () => streams!.deletedStreams());
  streams = new JournalStreams(dir, file, () => follower.durable());
  return new JournalClient(follower, streams, new AppendClient(appendSocketPath(options.dataDir)), maxAppendSize);
}

export class JournalClient implements EventStore {
  private closed = false;

  constructor(
    private readonly follower: JournalFollower,
    private readonly streams: JournalStreams,
    private readonly owner: AppendClient,
    readonly maxAppendSize: number,
  ) {}

  async append(stream: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    const checked = checkAppend(stream, events, expected, this.maxAppendSize);
    return decodeResult(await this.owner.request((id) => appendLine(id, stream, checked, expected)));
  }

  async deleteStream(stream: string, expected: ExpectedRevision = 'any'): Promise<void> {
    this.assertOpen();
    checkStreamName(stream);
    checkExpected(expected);
    await this.owner.request((id) => deleteLine(id, stream, expected));
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    return this.streams.readStream(stream, options);
  }

  async streamRevision(stream: string): Promise<bigint | undefined> {
    this.assertOpen();
    return this.streams.streamRevision(stream);
  }

  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    return this.follower.readAll(options);
  }

  headPosition(): Promise<bigint | undefined> {
    this.assertOpen();
    return this.follower.headPosition();
  }

  subscribeToAll(after: bigint | undefined, handlers: SubscribeHandlers, options?: SubscribeOptions): Subscription {
    this.assertOpen();
    return this.follower.subscribeToAll(after, handlers, options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.owner.close();
    await this.follower.close();
    await this.streams.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

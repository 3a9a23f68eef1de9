/**
 * The host's reactions to identity events: when a guest is admitted (its invitation or arrival
 * proof is spent: InvitationSpent / ProofSpent, the commit point of an admission), the host
 * makes the guest's avatar in the town's entrance (likewise for a verified handle challenge of
 * the earlier catalogue shape: HandleVerified); and the town's open/invited mode (which turns
 * the hourly turn quota on and off) is followed as TownModeSet events land.
 *
 * It follows `$all` from a checkpoint kept in the read store (`arrivals`). Arriving is
 * idempotent in the kernel (a guest with an avatar is not made another), so replaying events
 * after a crash, or several fronts reacting to the same admission, makes one avatar.
 */
import { streams } from '../events/identity.js';
import { identityOf } from '../contract/names.js';
import type { EventStore, RecordedEvent, SubscribeHandlers, Subscription } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import { pollAll } from '../projections/projector.js';
import { reactorCheckpoint } from './reactor-checkpoint.js';
import type { WorldService } from './world-service.js';

export const arrivalsCheckpoint = 'arrivals';

export interface ArrivalReactor {
  close(): Promise<void>;
  /** Resolves once the admissions already in the journal at start were acted on. */
  caughtUp: Promise<void>;
}

/** The streams whose events this reactor acts on; the world's own entries pass it by. */
const reactedStreams = ['invitation-', 'proof-', 'handle-challenge-', streams.townConfig];

function admittedName(event: RecordedEvent): string | undefined {
  if (
    (event.type === 'InvitationSpent' && event.stream.startsWith('invitation-')) ||
    (event.type === 'ProofSpent' && event.stream.startsWith('proof-')) ||
    // The earlier catalogue shape's admission: a handle challenge verified (spec 9).
    (event.type === 'HandleVerified' && event.stream.startsWith('handle-challenge-'))
  ) {
    const name = (event.data as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? name : undefined;
  }
  return undefined;
}

export async function startArrivals(opts: {
  events: EventStore;
  reads: ReadStore;
  service: WorldService;
  host: string;
  /** Told of every TownModeSet: whether the town is open now. */
  onMode?(open: boolean): void;
  pollMs?: number;
  onError?(error: Error): void;
}): Promise<ArrivalReactor> {
  const { events, reads, service, host } = opts;
  const checkpoint = await reactorCheckpoint(reads, arrivalsCheckpoint);
  let caughtUp!: () => void;
  const caught = new Promise<void>((r) => (caughtUp = r));
  const handlers: SubscribeHandlers = {
    onEvent: async (event: RecordedEvent) => {
      const name = admittedName(event);
      if (name !== undefined) {
        const { principal } = identityOf(host, name);
        if (!service.current.avatars.has(principal)) await service.submit({ kind: 'arrive', principal, name });
      } else if (event.type === 'TownModeSet') {
        const open = (event.data as { open?: unknown } | null)?.open;
        if (typeof open === 'boolean') opts.onMode?.(open);
      }
      checkpoint.reached(event.position);
    },
    // World entries are passed over unread; the checkpoint moves past them all the same.
    onPassed: (position) => checkpoint.reached(position),
    onCaughtUp: () => caughtUp(),
    onError: (error: Error) => {
      caughtUp();
      (opts.onError ?? ((e: Error) => console.error('arrivals stopped:', e)))(error);
    },
  };
  const subscription: Subscription =
    opts.pollMs !== undefined
      ? pollAll(events, checkpoint.from, handlers, opts.pollMs)
      : events.subscribeToAll(checkpoint.from, handlers, { streamPrefixes: reactedStreams });
  return {
    caughtUp: caught,
    async close() {
      await subscription.close();
      await checkpoint.close();
    },
  };
}

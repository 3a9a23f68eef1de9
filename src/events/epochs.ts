/**
 * Which epoch of a world's journal is current: the stream `epoch-<world>`, one `EpochBegun`
 * event a carry (src/commands/carry.ts). No stream: epoch 0, the journal `world-<world>` from
 * height 0. The pointer moves only once the new epoch's carry entry is durable, and with the
 * expected revision of the pointer it replaces, so a kill or a second carrier at any moment
 * leaves it naming one whole epoch.
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { EventData, EventStore } from '../stores/event-store.js';
import { epochStream, uuidOf } from './world.js';

export const epochBegunType = 'EpochBegun';

export const EpochBegunC = t.type({
  epoch: t.number,
  /** Height of the epoch's carry entry (its stream is `world-<world>@<start>`). */
  start: t.number,
  /** The archive of the epoch before, and its SHA-256. */
  archive: t.string,
  sha256: t.string,
});
export type EpochBegun = t.TypeOf<typeof EpochBegunC>;

export const epochPointerStream = (world: string) => `epoch-${world}`;

export interface CurrentEpoch {
  epoch: number;
  start: number;
  /** The journal stream of the epoch. */
  stream: string;
  /** Revision of the pointer stream (undefined: none yet), the expectation of the next carry. */
  revision: bigint | undefined;
}

/** The current epoch of `world`'s journal. */
export async function currentEpoch(events: EventStore, world: string): Promise<CurrentEpoch> {
  const [last] = await events.readStream(epochPointerStream(world), { direction: 'backwards', maxCount: 1 });
  if (!last) return { epoch: 0, start: 0, stream: epochStream(world, 0), revision: undefined };
  const begun = EpochBegunC.decode(last.data);
  if (last.type !== epochBegunType || isLeft(begun)) throw new Error(`event ${last.revision} of ${last.stream} is not an EpochBegun`);
  const { epoch, start } = begun.right;
  return { epoch, start, stream: epochStream(world, start), revision: last.revision };
}

export function epochBegunEvent(world: string, begun: EpochBegun): EventData {
  return { id: uuidOf(`${world}\nepoch\n${begun.epoch}\n${begun.start}`), type: epochBegunType, data: begun };
}

/**
 * The epoch whose journal holds the entries just before `height` (a world replayed to `height`
 * reads that stream): the latest begun at a height under `height`, else epoch 0.
 */
export async function epochBefore(events: EventStore, world: string, height: number): Promise<{ epoch: number; start: number; stream: string }> {
  let found = { epoch: 0, start: 0, stream: epochStream(world, 0) };
  for (const recorded of await events.readStream(epochPointerStream(world))) {
    const begun = EpochBegunC.decode(recorded.data);
    if (isLeft(begun)) continue;
    const { epoch, start } = begun.right;
    if (start < height && start >= found.start) found = { epoch, start, stream: epochStream(world, start) };
  }
  return found;
}

/**
 * Events of a guest's scratch worlds, as io-ts codecs, one stream per guest:
 * `scratch-<guest name>`. Which worlds are open, and which have expired, is decided against it at
 * its expected revision, so the limit of two open worlds holds across fronts, and an expiry,
 * once journaled, is the same for every front and every replay.
 *
 * A world ends when it expires or when its guest closes it (ScratchClosed).
 *
 * A scratch world's journal is its own stream, `world-<world id>`, the world id being
 * `scratch.<guest>.<name>.<n>`: the n-th world the guest opened under that name, so a name can
 * be opened again after its world expired without meeting the old journal.
 */
import * as t from 'io-ts';
import type { RecordedEvent } from '../stores/event-store.js';
import { decodeEvent } from './identity.js';

export const scratchStream = (guest: string) => `scratch-${guest}`;

export const scratchWorldId = (guest: string, name: string, n: number) => `scratch.${guest}.${name}.${n}`;

const Source = t.type({ world: t.string, height: t.number });

export const ScratchOpened = t.type({
  type: t.literal('ScratchOpened'),
  data: t.intersection([
    t.type({ name: t.string, world: t.string, at: t.number }),
    /** The world forked and the height it was forked at (absent: an empty world). */
    t.partial({ from: Source }),
  ]),
});
export type ScratchOpened = t.TypeOf<typeof ScratchOpened>;

export const ScratchExpired = t.type({
  type: t.literal('ScratchExpired'),
  data: t.type({ name: t.string, world: t.string, at: t.number, lastTurn: t.number }),
});
export type ScratchExpired = t.TypeOf<typeof ScratchExpired>;

/**
 * The guest closed the world itself (DELETE /AGENTS.md/scratch/{name}): it ends as an expiry
 * does, at once. Streams written before worlds could be closed hold no such event and replay as
 * they did.
 */
export const ScratchClosed = t.type({
  type: t.literal('ScratchClosed'),
  data: t.type({ name: t.string, world: t.string, at: t.number }),
});
export type ScratchClosed = t.TypeOf<typeof ScratchClosed>;

/** The events that end a world: its read models and journal are reclaimed on either. */
export const scratchEndTypes: ReadonlySet<string> = new Set(['ScratchExpired', 'ScratchClosed']);

export const ScratchEvent = t.union([ScratchOpened, ScratchExpired, ScratchClosed]);
export type ScratchEvent = t.TypeOf<typeof ScratchEvent>;

export const decodeScratchEvent = (recorded: RecordedEvent): ScratchEvent => decodeEvent(ScratchEvent, recorded);

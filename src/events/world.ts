/**
 * The event of a world's journal: one stored event per journal entry, on the stream
 * `world-<world>` (the town is `world-town`). The stream revision of an entry IS its height, so
 * the journal height a receipt names is where the entry lies in the stream.
 *
 * Every stored event is decoded through `WorldEntryEvent` before the world service or a
 * projector uses it: an event that does not fit fails loudly (CorruptWorldEvent) instead of
 * folding into a wrong world.
 */
import { hash } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { EntryC, type Entry } from '../cards/kernel/entry.js';
import type { EventData, RecordedEvent } from '../stores/event-store.js';
import { compiledGuard } from '../contract/fast-guard.js';

/** The one event type of a world stream. */
export const worldEntryType = 'WorldEntry';

export const WorldEntryEvent = t.type({ type: t.literal(worldEntryType), data: EntryC });
export type WorldEntryEvent = t.TypeOf<typeof WorldEntryEvent>;

export const worldStreamPrefix = 'world-';
export const TOWN_WORLD = 'town';

export const worldStream = (world: string) => `${worldStreamPrefix}${world}`;

/**
 * The journal stream of a world's epoch beginning at height `start`: `world-<world>` for the
 * first (from 0), `world-<world>@<start>` for one a carry began (its first event the carry
 * entry). Named by its start, so each entry's height is `start` + its revision, and a carry
 * begun again after a kill at the same height lands on the same stream (test/faults/carry-kill.test.ts).
 */
export const epochStream = (world: string, start: number) => (start === 0 ? worldStream(world) : `${worldStream(world)}@${start}`);

/** The height the first event of a world stream stands at (0, or the `@<start>` of an epoch). */
export function streamStart(stream: string): number {
  const at = stream.lastIndexOf('@');
  return at < 0 ? 0 : Number(stream.slice(at + 1));
}

/** The world a stream belongs to (any epoch of it), or undefined for a stream of another category. */
export function worldOfStream(stream: string): string | undefined {
  if (!stream.startsWith(worldStreamPrefix)) return undefined;
  const at = stream.lastIndexOf('@');
  return stream.slice(worldStreamPrefix.length, at < 0 ? undefined : at);
}

export class CorruptWorldEvent extends Error {
  constructor(
    readonly stream: string,
    readonly revision: bigint,
    detail: string,
  ) {
    super(`event ${revision} of ${stream} is not a journal entry: ${detail}`);
    this.name = 'CorruptWorldEvent';
  }
}

/** A decoded entry with where it lies: its world and its `$all` position. */
export interface StoredEntry {
  world: string;
  entry: Entry;
  position: bigint;
}

/**
 * Decodes a stored world event. Its height must be its stream revision (plus the epoch's start):
 * an entry filed at the wrong place would make every later receipt's height lie.
 */
const isEntry = compiledGuard(EntryC);

export function decodeWorldEntry(recorded: RecordedEvent): Entry {
  let entry: Entry;
  // `WorldEntryEvent` transforms nothing (every part decodes to its input), so its `is` accepts
  // exactly what `decode` accepts and the entry is the stored object itself; compiled
  // (fast-guard.ts), at a tenth of the cost (a start replays every entry through here). `decode`
  // only says why one does not fit.
  if (recorded.type === worldEntryType && isEntry(recorded.data)) entry = recorded.data as Entry;
  else {
    const result = WorldEntryEvent.decode({ type: recorded.type, data: recorded.data });
    if (isLeft(result)) throw new CorruptWorldEvent(recorded.stream, recorded.revision, PathReporter.report(result).slice(0, 3).join('; '));
    entry = result.right.data;
  }
  if (BigInt(entry.height) !== BigInt(streamStart(recorded.stream)) + recorded.revision) {
    throw new CorruptWorldEvent(recorded.stream, recorded.revision, `it says height ${entry.height}`);
  }
  return entry;
}

/** The stored entry when `recorded` is a world event, else undefined (other categories). */
export function storedEntryOf(recorded: RecordedEvent): StoredEntry | undefined {
  if (recorded.type !== worldEntryType) return undefined;
  const world = worldOfStream(recorded.stream);
  if (world === undefined) return undefined;
  return { world, entry: decodeWorldEntry(recorded), position: recorded.position };
}

/**
 * The event to append for an entry. Its id is derived from the entry's content id and world,
 * so an append retried after a lost reply is recognised by the store instead of written twice.
 */
export function entryEvent(world: string, entry: Entry): EventData {
  return { id: uuidOf(`${world}\n${entry.height}\n${entry.cid}`), type: worldEntryType, data: entry };
}

/**
 * The event for an entry with its data already encoded (`json`): the world service measures
 * what it will store (`eventSize`) and the store writes that very text instead of encoding the
 * entry again.
 */
export function encodedEntryEvent(world: string, entry: Entry): EventData & { json: string } {
  return { id: uuidOf(`${world}\n${entry.height}\n${entry.cid}`), type: worldEntryType, data: entry, json: JSON.stringify(entry) };
}

const variantDigit = '89ab';

/**
 * A name-based UUID (version 5 layout over sha-1 would need a namespace; sha-256 is enough): the
 * first 16 bytes of the digest with the version nibble 5 and the variant bits 10. Read off the
 * one-shot hash's hex text (no Hash object or Buffer per entry); the same text as setting the
 * bits in the bytes and writing them as hex.
 */
export function uuidOf(text: string): string {
  const x = hash('sha256', text, 'hex');
  const variant = variantDigit[Number.parseInt(x[16]!, 16) & 3]!;
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-5${x.slice(13, 16)}-${variant}${x.slice(17, 20)}-${x.slice(20, 32)}`;
}

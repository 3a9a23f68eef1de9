/**
 * Running identity deciders against the EventStore: fold a stream through its codec and evolve,
 * decide, append at the revision that was folded. A lost race (WrongExpectedVersion) is not an
 * error here: the caller folds again and decides again on what won.
 */
import { randomUUID } from 'node:crypto';
import type * as t from 'io-ts';
import { decodeEvent } from '../events/identity.js';
import { WrongExpectedVersion, type EventStore, type ExpectedRevision } from '../stores/event-store.js';

export interface StreamKind<S, E> {
  codec: t.Decoder<unknown, E>;
  evolve(state: S, event: E): S;
  initial: S;
}

export interface Folded<S> {
  state: S;
  /** The revision to expect when appending what was decided on `state`. */
  expected: ExpectedRevision;
}

export async function fold<S, E>(store: EventStore, stream: string, kind: StreamKind<S, E>): Promise<Folded<S>> {
  const recorded = await store.readStream(stream);
  let state = kind.initial;
  for (const event of recorded) state = kind.evolve(state, decodeEvent(kind.codec, event));
  const last = recorded.at(-1);
  return { state, expected: last === undefined ? 'noStream' : last.revision };
}

/** Append decided events; nothing decided, nothing written. */
export async function appendDecided(
  store: EventStore,
  stream: string,
  events: readonly { type: string; data: unknown }[],
  expected: ExpectedRevision,
): Promise<void> {
  if (events.length === 0) return;
  await store.append(
    stream,
    events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data })),
    expected,
  );
}

/** Whether an append lost its race. */
export function lostRace(error: unknown): error is WrongExpectedVersion {
  return error instanceof WrongExpectedVersion || (error instanceof Error && error.name === 'WrongExpectedVersion');
}

/** Enough for any real contention on one stream: every lost race means another writer moved on. */
export const maxAttempts = 16;

export class TooMuchContention extends Error {
  constructor(stream: string) {
    super(`gave up on ${stream} after ${maxAttempts} lost races`);
    this.name = 'TooMuchContention';
  }
}

export type Decision<E, X> = { ok: true; events: E[] } | { ok: false; reason: X };

/** Fold, decide, append; again on a lost race. A refusal is returned as it is. */
export async function runCommand<S, E, X>(
  store: EventStore,
  stream: string,
  kind: StreamKind<S, E>,
  decide: (state: S) => Decision<E, X>,
): Promise<{ ok: true; events: E[]; state: S } | { ok: false; reason: X }> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const { state, expected } = await fold(store, stream, kind);
    const decision = decide(state);
    if (!decision.ok) return decision;
    try {
      await appendDecided(store, stream, decision.events as { type: string; data: unknown }[], expected);
    } catch (error) {
      if (lostRace(error)) continue;
      throw error;
    }
    return { ok: true, events: decision.events, state: decision.events.reduce(kind.evolve, state) };
  }
  throw new TooMuchContention(stream);
}

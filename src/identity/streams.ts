/**
 * Running identity deciders against the EventStore. A stream category is its event codec and
 * its decider (kinds.ts). `handleCommand` is the one command handler every single-stream
 * identity command goes through: read the stream, fold it with the decider, decide, append at
 * the revision that was folded. A lost race (WrongExpectedVersion) is not an error here: it
 * reads again and decides again on what won, up to `maxAttempts` times, then gives up with
 * `TooMuchContention`. Admissions, which decide over several streams at once, run their own
 * attempt through the same bounded `retrying` loop (service.ts).
 */
import { randomUUID } from 'node:crypto';
import type * as t from 'io-ts';
import type { Decider, Decision } from '../contract/decider.js';
import { decodeEvent } from '../events/identity.js';
import { WrongExpectedVersion, type EventStore, type ExpectedRevision } from '../stores/event-store.js';

/** A stream category: its events decoded through `codec` before `decider` sees them. */
export interface StreamKind<State, Command, Event, Reason> {
  codec: t.Decoder<unknown, Event>;
  decider: Decider<State, Command, Event, Decision<Event, Reason>>;
}

/** What folding needs of a kind (any command, any reason). */
export type Foldable<State, Event> = { codec: t.Decoder<unknown, Event>; decider: Pick<Decider<State, never, Event, unknown>, 'evolve' | 'initialState'> };

export interface Folded<S> {
  state: S;
  /** The revision to expect when appending what was decided on `state`. */
  expected: ExpectedRevision;
}

export async function fold<S, E>(store: EventStore, stream: string, kind: Foldable<S, E>): Promise<Folded<S>> {
  const recorded = await store.readStream(stream);
  const { decider } = kind;
  let state = decider.initialState();
  for (const event of recorded) state = decider.evolve(state, decodeEvent(kind.codec, event));
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

/** What an attempt answers when it lost a race and should be made again on what won. */
export const lost: unique symbol = Symbol('lost race');

/**
 * Runs `attempt` until it answers something other than `lost`, at most `maxAttempts` times;
 * then `TooMuchContention` names `stream`. An attempt that throws ends the loop with its error.
 */
export async function retrying<T>(stream: string, attempt: () => Promise<T | typeof lost>): Promise<T> {
  for (let n = 0; n < maxAttempts; n++) {
    const result = await attempt();
    if (result !== lost) return result;
  }
  throw new TooMuchContention(stream);
}

export type Handled<S, E, R> = { ok: true; events: E[]; state: S } | { ok: false; reason: R };

/**
 * The command handler: fold `stream`, decide `command` on it, append what was decided at the
 * folded revision; again on a lost race. A refusal is answered as it is (nothing appended);
 * otherwise the events appended (none: nothing to record) and the state they lead to.
 */
export function handleCommand<S, C, E, R>(store: EventStore, stream: string, kind: StreamKind<S, C, E, R>, command: C): Promise<Handled<S, E, R>> {
  const { decider } = kind;
  return retrying(stream, async () => {
    const { state, expected } = await fold(store, stream, kind);
    const decision = decider.decide(state, command);
    if (!decision.ok) return decision;
    try {
      await appendDecided(store, stream, decision.events as { type: string; data: unknown }[], expected);
    } catch (error) {
      if (lostRace(error)) return lost;
      throw error;
    }
    return { ok: true as const, events: decision.events, state: decision.events.reduce(decider.evolve, state) };
  });
}

/**
 * Running identity and scratch deciders against the EventStore. A stream category is its event
 * codec and its decider (src/identity/kinds.ts names identity's). `handleCommand` folds the
 * stream from its start and runs the command through the one command runner (command-runner.ts:
 * decide, append at the folded revision, again on a lost race). It sits with the command
 * runner, below identity, because scratch worlds run their streams through it too. Admissions,
 * which decide over several streams at once, run their own attempt through the same bounded
 * `retrying` loop (src/identity/service.ts).
 */
import { randomUUID } from 'node:crypto';
import type * as t from 'io-ts';
import type { Decider, Decision } from '../contract/decider.js';
import { decodeEvent } from '../events/identity.js';
import type { EventStore, ExpectedRevision } from '../stores/event-store.js';
import { runCommand } from './command-runner.js';

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

export type Handled<S, E, R> = { ok: true; events: E[]; state: S } | { ok: false; reason: R };

/**
 * The command handler: fold `stream`, decide `command` on it, append what was decided at the
 * folded revision; again on a lost race. A refusal is answered as it is (nothing appended);
 * otherwise the events appended (none: nothing to record) and the state they lead to.
 */
export function handleCommand<S, C, E, R>(store: EventStore, stream: string, kind: StreamKind<S, C, E, R>, command: C): Promise<Handled<S, E, R>> {
  const { decider } = kind;
  return runCommand<S, E & { type: string; data: unknown }, Handled<S, E, R>>(store, {
    stream,
    read: () => fold(store, stream, kind),
    decide: (state) => {
      const decision = decider.decide(state, command);
      if (!decision.ok) return { events: [], answer: () => decision };
      const events = decision.events as (E & { type: string; data: unknown })[];
      return { events, answer: () => ({ ok: true as const, events: decision.events, state: decision.events.reduce(decider.evolve, state) }) };
    },
  });
}

/**
 * The one shape of every decider in Town: the identity streams (src/commands) and the world
 * (src/cards/kernel) alike. `decide` answers what a command makes of a state, without changing
 * it; `evolve` applies one stored event; `initialState` is a stream before its first event.
 * Replaying a stream is `events.reduce(evolve, initialState())`.
 *
 * Two parameters let the world fit without pretending to be an identity stream:
 * - `Outcome`: what `decide` answers. An identity stream answers a `Decision` (the events to
 *   append, or the reason it refuses); the world answers its richer `Outcome` (entries to
 *   journal, a repeat, a refusal journaled as data or not, a `try` report, a REPL value…).
 * - `Context`: what deciding depends on beside the state and the command, as further
 *   arguments. Identity commands carry their clock (`now`) and need none; the world is decided
 *   at a clock, with the compiled programs and the kernel's options. Further arguments, not an
 *   object holding them, so the world's hot path builds nothing per turn to call its decider.
 */

/** An identity decider's answer: the events to append (none: nothing to record), or why not. */
export type Decision<Event, Reason> = { ok: true; events: Event[] } | { ok: false; reason: Reason };

export interface Decider<State, Command, Event, Outcome = Decision<Event, never>, Context extends readonly unknown[] = []> {
  decide(state: State, command: Command, ...context: Context): Outcome;
  evolve(state: State, event: Event): State;
  /** A fresh state before any event (a function: the world's state is a set of Maps evolve fills in place). */
  initialState(): State;
}

/** The state a stream's events add up to. */
export function foldEvents<State, Event>(decider: Pick<Decider<State, never, Event, unknown>, 'evolve' | 'initialState'>, events: Iterable<Event>): State {
  let state = decider.initialState();
  for (const event of events) state = decider.evolve(state, event);
  return state;
}

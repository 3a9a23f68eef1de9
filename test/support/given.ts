/**
 * Specifications of deciders, given/when/then, typed by the Decider (src/contract/decider.ts):
 *
 *     const given = specification(credentialDecider);
 *     given([issued]).when({ type: 'revoke', why: 'guest', now }).then([revoked]);
 *     given([]).when({ type: 'revoke', why: 'guest', now }).then(refused('credential_unknown'));
 *
 * `given(events)` folds the events with the decider's evolve from its initial state; `when`
 * decides the command on that state; `then` compares what the decider would append with the
 * events expected (exactly), or its refusal with the one expected. `thenMatches` compares
 * events with shapes instead (each listed key, at any depth; arrays in full), for events too
 * large to write out, such as the world's entries with their content ids.
 *
 * An identity decider answers a Decision and needs no context. A decider that answers more (the
 * world's Outcome) or needs context (a clock, programs, options) says how to read its outcome
 * and what context to decide with (test/cards/kernel/harness.ts does so for the world).
 */
import * as assert from 'uvu/assert';
import type { Decider, Decision } from '../../src/contract/decider.js';

/** An outcome as a specification reads it: the events it appends, a refusal, or something else (named). */
export type Read<Event, Refusal> = { events: readonly Event[] } | { refused: Refusal } | { other: string };

/** A value, or for an object any of its keys (at any depth) to compare; arrays are compared in full. */
export type Shape<T> = T extends readonly (infer U)[] ? readonly Shape<U>[] : T extends object ? { [K in keyof T]?: Shape<T[K]> } : T;

const refusedMark: unique symbol = Symbol('refused');

export interface Refused<R> {
  readonly [refusedMark]: true;
  readonly refusal: R;
}

/** The refusal `then` expects (for a world receipt, a shape of it). */
export const refused = <R>(refusal: R): Refused<R> => ({ [refusedMark]: true, refusal });

const isRefused = (x: unknown): x is Refused<unknown> => typeof x === 'object' && x !== null && refusedMark in x;

export interface Then<State, Event, Outcome, Refusal> {
  /** The state the given events fold to. */
  readonly state: State;
  /** The decider's outcome, for what `then` does not say. */
  readonly outcome: Outcome;
  /** Exactly these events would be appended (`[]`: nothing to record), or this refusal (a shape of it). */
  then(expected: readonly Event[] | Refused<Shape<Refusal>>): Outcome;
  /** Events of these shapes would be appended, one shape per event. */
  thenMatches(expected: readonly Shape<Event>[]): Outcome;
}

export interface Given<State, Command, Event, Outcome, Refusal> {
  readonly state: State;
  when(command: Command): Then<State, Event, Outcome, Refusal>;
}

export type GivenFn<State, Command, Event, Outcome, Refusal> = (events?: readonly Event[]) => Given<State, Command, Event, Outcome, Refusal>;

export interface How<State, Event, Outcome, Context extends readonly unknown[], Refusal> {
  read(outcome: Outcome): Read<Event, Refusal>;
  /** The context each decision is made with, from the state it is made on. */
  context(state: State): Context;
}

const decisionRead = <E, R>(d: Decision<E, R>): Read<E, R> => (d.ok ? { events: d.events } : { refused: d.reason });

/** A specification of a decider answering a Decision (the identity streams). */
export function specification<S, C, E, R>(decider: Decider<S, C, E, Decision<E, R>>): GivenFn<S, C, E, Decision<E, R>, R>;
/** A specification of any decider: how to read its outcome, and what context to decide with. */
export function specification<S, C, E, O, X extends readonly unknown[], R>(decider: Decider<S, C, E, O, X>, how: How<S, E, O, X, R>): GivenFn<S, C, E, O, R>;
export function specification<S, C, E, O, X extends readonly unknown[], R>(
  decider: Decider<S, C, E, O, X>,
  how: How<S, E, O, X, R> = { read: decisionRead as never, context: () => [] as unknown as X },
): GivenFn<S, C, E, O, R> {
  return (events = []) => {
    const fold = (): S => events.reduce(decider.evolve, decider.initialState());
    return {
      get state() {
        return fold();
      },
      when(command) {
        const state = fold();
        const outcome = decider.decide(state, command, ...how.context(state));
        const read = how.read(outcome);
        const shown = () => JSON.stringify(outcome, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)).slice(0, 600);
        return {
          state,
          outcome,
          // biome-ignore lint/suspicious/noThenProperty: given/when/then is the reading wanted; a Then is never awaited
          then(expected) {
            if (isRefused(expected)) {
              assert.ok('refused' in read, `expected a refusal, the decider answered ${shown()}`);
              assertShape((read as { refused: R }).refused, expected.refusal, 'refusal');
            } else {
              assert.ok('events' in read, `expected events, the decider answered ${shown()}`);
              assert.equal((read as { events: readonly E[] }).events, expected);
            }
            return outcome;
          },
          thenMatches(expected) {
            assert.ok('events' in read, `expected events, the decider answered ${shown()}`);
            assertShape((read as { events: readonly E[] }).events, expected, 'events');
            return outcome;
          },
        };
      },
    };
  };
}

/** Fails naming the first path at which `actual` does not have the shape `expected`. */
export function assertShape(actual: unknown, expected: unknown, path = '$'): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected a list, got ${JSON.stringify(actual)?.slice(0, 200)}`);
    const list = actual as unknown[];
    assert.is(list.length, expected.length, `${path}: expected ${expected.length} items, got ${list.length}`);
    expected.forEach((e, i) => assertShape(list[i], e, `${path}[${i}]`));
    return;
  }
  if (typeof expected === 'object' && expected !== null) {
    assert.ok(typeof actual === 'object' && actual !== null, `${path}: expected an object, got ${JSON.stringify(actual)?.slice(0, 200)}`);
    for (const [key, value] of Object.entries(expected)) assertShape((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    return;
  }
  assert.equal(actual, expected, `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)?.slice(0, 200)}`);
}

/**
 * The one command runner: read a stream's state and the revision to append at, decide on it,
 * append what was decided at that revision, and on a lost race (WrongExpectedVersion: another
 * writer moved the stream on) read again and decide again on what won, at most `maxAttempts`
 * times, then `TooMuchContention`. Identity and scratch commands (`handleCommand`), the feed's
 * posts and answers (feed-service.ts) and hosted repository writes (src/repository/hosted/writes.ts)
 * all run through it; the world service pipelines turns from the same parts (a folded state,
 * a pure decide, an append at the expected height) because it decides many turns per append.
 *
 * How a site reads its state is its own (fold from the start, or read on from a state it keeps),
 * and so is what it answers: `decide` returns the events and how to answer once they are
 * appended, or throws a refusal, which ends the run with nothing appended.
 */
import { randomUUID } from 'node:crypto';
import { WrongExpectedVersion, type AppendResult, type EventStore, type ExpectedRevision } from '../stores/event-store.js';

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

/** What a decision asks the runner to append, and how to answer once it is (or was not: no events). */
export interface Decided<E, A> {
  events: readonly E[];
  /** Called once: with the append's result, or undefined when there was nothing to append. */
  answer(appended: AppendResult | undefined): A;
}

export interface CommandRun<S, E extends { type: string; data: unknown }, A> {
  stream: string;
  /** The stream's state and the revision an append on it expects; read again after a lost race. */
  read(): Promise<{ state: S; expected: ExpectedRevision }>;
  /** Decides on the state read: events and an answer, or throws a refusal. */
  decide(state: S): Decided<E, A> | Promise<Decided<E, A>>;
}

export function runCommand<S, E extends { type: string; data: unknown }, A>(store: EventStore, run: CommandRun<S, E, A>): Promise<A> {
  return retrying(run.stream, async () => {
    const { state, expected } = await run.read();
    const decided = await run.decide(state);
    if (decided.events.length === 0) return decided.answer(undefined);
    let appended: AppendResult;
    try {
      appended = await store.append(
        run.stream,
        decided.events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data })),
        expected,
      );
    } catch (error) {
      if (lostRace(error)) return lost;
      throw error;
    }
    return decided.answer(appended);
  });
}

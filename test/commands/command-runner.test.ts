/**
 * The one command runner (src/commands/command-runner.ts): given a stream, when a command is
 * decided, then it is appended at the revision read, decided again on what won after a lost
 * race, never appended when refused or when nothing was decided, and given up after
 * `maxAttempts` lost races.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { maxAttempts, runCommand, TooMuchContention } from '../../src/commands/command-runner.js';
import { type EventData, type EventStore, type ExpectedRevision, WrongExpectedVersion } from '../../src/stores/event-store.js';

/** A stream of numbers in memory; `others` appends land first, as another writer's would. */
function stream(others: number[] = []) {
  const events: number[] = [];
  const appends: { expected: ExpectedRevision; data: unknown[] }[] = [];
  const store = {
    async append(name: string, batch: EventData[], expected: ExpectedRevision) {
      const actual = events.length === 0 ? 'noStream' : BigInt(events.length - 1);
      if (others.length) events.push(others.shift()!);
      if (expected !== actual || events.length - 1 !== (actual === 'noStream' ? -1 : Number(actual)))
        throw new WrongExpectedVersion(name, expected, events.length ? BigInt(events.length - 1) : 'noStream');
      appends.push({ expected, data: batch.map((e) => e.data) });
      for (const e of batch) events.push(e.data as number);
      return { nextRevision: BigInt(events.length - 1), position: BigInt(events.length) };
    },
  } as unknown as EventStore;
  const read = async () => ({ state: [...events], expected: (events.length ? BigInt(events.length - 1) : 'noStream') as ExpectedRevision });
  return { store, events, appends, read };
}

test('appends what was decided at the revision read, and answers with the append', async () => {
  const s = stream();
  const answer = await runCommand(s.store, {
    stream: 'n',
    read: s.read,
    decide: (st) => ({ events: [{ type: 'N', data: st.length + 1 }], answer: (a) => a?.nextRevision }),
  });
  assert.is(answer, 0n);
  assert.equal(s.appends, [{ expected: 'noStream', data: [1] }]);
});

test('a lost race is read and decided again on what won', async () => {
  const s = stream([7, 8]);
  let decided = 0;
  const answer = await runCommand(s.store, {
    stream: 'n',
    read: s.read,
    decide: (st) => {
      decided++;
      return { events: [{ type: 'N', data: st.reduce((a, b) => a + b, 0) }], answer: () => st };
    },
  });
  assert.is(decided, 3, 'two writers won first');
  assert.equal(answer, [7, 8]);
  assert.equal(s.events, [7, 8, 15], 'decided on what won');
});

test('nothing decided, nothing appended; a refusal throws and appends nothing', async () => {
  const s = stream();
  assert.is(
    await runCommand(s.store, { stream: 'n', read: s.read, decide: () => ({ events: [], answer: (a) => (a === undefined ? 'none' : 'some') }) }),
    'none',
  );
  try {
    await runCommand(s.store, {
      stream: 'n',
      read: s.read,
      decide: () => {
        throw new Error('refused');
      },
    });
    assert.unreachable();
  } catch (e) {
    assert.is((e as Error).message, 'refused');
  }
  assert.equal(s.appends, []);
});

test(`gives up after ${maxAttempts} lost races`, async () => {
  const s = stream(Array.from({ length: maxAttempts + 1 }, (_, i) => i));
  try {
    await runCommand(s.store, { stream: 'n', read: s.read, decide: () => ({ events: [{ type: 'N', data: 0 }], answer: () => 0 }) });
    assert.unreachable();
  } catch (e) {
    assert.instance(e, TooMuchContention);
  }
});

test.run();

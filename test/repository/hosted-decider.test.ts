/** A hosted account's repository decider: given its commits, when a write, then a commit or a refusal (spec 7.3, 8). */
import { TID } from '@atproto/common-web';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type HostedSignedCommand, type HostedWrite, hostedDecider, planWrites } from '../../src/commands/hosted-repo.js';
import { limits } from '../../src/contract/limits.js';
import type { HostedEvent } from '../../src/events/hosted.js';
import { refused, specification } from '../support/given.js';

const given = specification(hostedDecider);
const did = 'did:web:t:guest:ann';
const collection = 'town.guest.request';
const now = Date.UTC(2026, 10, 26, 12, 0, 0);
const value = (text: string) => ({ $type: collection, object: 'lamp', text, createdAt: '2026-11-26T12:00:00.000Z' });
const cidOf = (n: number) => `bafy-stand-in-${n}`;

/** The command with a stand-in commit at the rev it plans (the decider checks the rev, not the signature). */
function write(writes: HostedWrite[], o: { swapCommit?: string; at?: number; state?: readonly HostedEvent[] } = {}): HostedSignedCommand {
  const state = given(o.state ?? []).state;
  const command = { type: 'write' as const, did, writes, now: o.at ?? now, ...(o.swapCommit !== undefined ? { swapCommit: o.swapCommit } : {}) };
  const planned = planWrites(state, command);
  const rev = planned.ok ? planned.plan.rev : TID.fromTime(now * 1000 - 1, 0).toString();
  return { ...command, commit: { cid: `commit-${rev}`, data: `data-${rev}`, rev, sig: 'c2ln' } };
}

/** The events a run of writes appends, each decided on what the ones before made. */
function history(...runs: HostedWrite[][]): HostedEvent[] {
  const events: HostedEvent[] = [];
  for (const [i, writes] of runs.entries()) {
    const d = given(events).when(write(writes, { state: events, at: now + i })).outcome;
    if (!d.ok) throw new Error(`refused: ${d.reason.message}`);
    events.push(...d.events);
  }
  return events;
}

const create = (rkey: string, n = 1): HostedWrite => ({ action: 'create', collection, rkey, value: value(rkey), cid: cidOf(n) });
const put = (rkey: string, n: number, swapRecord?: string | null): HostedWrite => ({
  action: 'put',
  collection,
  rkey,
  value: value(rkey),
  cid: cidOf(n),
  ...(swapRecord !== undefined ? { swapRecord } : {}),
});

test('a create is one commit at the clock, the record and its CID in the event', () => {
  const rev = TID.fromTime(now * 1000, 0).toString();
  given([])
    .when(write([create('a')]))
    .then([
      {
        type: 'HostedRecordsWritten',
        data: {
          did,
          ops: [{ action: 'create', collection, rkey: 'a', cid: cidOf(1), value: value('a') }],
          commit: { cid: `commit-${rev}`, data: `data-${rev}`, rev, sig: 'c2ln' },
          at: now,
        },
      },
    ]);
});

test('a create without a key is keyed by a TID of its commit; revs grow within one millisecond', () => {
  const events = history(
    [{ action: 'create', collection, value: value('x'), cid: cidOf(1) }],
    [{ action: 'create', collection, value: value('y'), cid: cidOf(2) }],
  );
  const [first, second] = events.map((e) => e.data);
  assert.ok(TID.is(first!.ops[0]!.rkey), 'a TID key');
  assert.ok(first!.commit.rev < second!.commit.rev, 'revs sort in commit order');
  // At a clock that went back, the rev still moves on.
  const late = given(events).when(write([create('b')], { state: events, at: now - 60_000 })).outcome;
  assert.ok(late.ok && late.events[0]!.data.commit.rev > second!.commit.rev);
});

test('RecordAlreadyExists: a create on a held key', () => {
  given(history([create('a')]))
    .when(write([create('a', 2)], { state: history([create('a')]) }))
    .then(refused({ error: 'RecordAlreadyExists' }));
});

test('put: makes or replaces; swapRecord is the CID held, null for a free key', () => {
  const events = history([create('a')]);
  given(events)
    .when(write([put('a', 2)], { state: events }))
    .thenMatches([{ data: { ops: [{ action: 'update', rkey: 'a', cid: cidOf(2) }] } }]);
  given(events)
    .when(write([put('b', 2, null)], { state: events }))
    .thenMatches([{ data: { ops: [{ action: 'create', rkey: 'b' }] } }]);
  given(events)
    .when(write([put('a', 2, cidOf(1))], { state: events }))
    .thenMatches([{ data: { ops: [{ action: 'update' }] } }]);
  given(events)
    .when(write([put('a', 2, cidOf(9))], { state: events }))
    .then(refused({ error: 'InvalidSwap' }));
  given(events)
    .when(write([put('a', 2, null)], { state: events }))
    .then(refused({ error: 'InvalidSwap' }));
});

test('delete: of a held key a commit; of a free key nothing to record, unless a swap says otherwise', () => {
  const events = history([create('a')]);
  given(events)
    .when(write([{ action: 'delete', collection, rkey: 'a' }], { state: events }))
    .thenMatches([{ data: { ops: [{ action: 'delete', rkey: 'a' }] } }]);
  given(events)
    .when(write([{ action: 'delete', collection, rkey: 'gone' }], { state: events }))
    .then([]);
  given(events)
    .when(write([{ action: 'delete', collection, rkey: 'gone', swapRecord: cidOf(1) }], { state: events }))
    .then(refused({ error: 'InvalidSwap' }));
  const state = given([...events, ...history([create('a')], [{ action: 'delete', collection, rkey: 'a' }]).slice(1)]).state;
  assert.is(state.records.size, 0, 'the delete folds away the record');
});

test('swapCommit: the head, or refused', () => {
  const events = history([create('a')]);
  const head = events[0]!.data.commit.cid;
  given(events)
    .when(write([create('b')], { state: events, swapCommit: head }))
    .thenMatches([{ data: { ops: [{ rkey: 'b' }] } }]);
  given(events)
    .when(write([create('b')], { state: events, swapCommit: 'bafyother' }))
    .then(refused({ error: 'InvalidSwap' }));
  given([])
    .when(write([create('b')], { swapCommit: head }))
    .then(refused({ error: 'InvalidSwap' }));
});

test(`RepoFull past ${limits.hostedAccountRequests} records; a put to a held key, or one out and one in, still fits`, () => {
  const full = history(Array.from({ length: limits.hostedAccountRequests }, (_, i) => create(`r-${i}`, i)));
  given(full)
    .when(write([create('one-more')], { state: full }))
    .then(refused({ error: 'RepoFull' }));
  given(full)
    .when(write([put('one-more', 1)], { state: full }))
    .then(refused({ error: 'RepoFull' }));
  given(full)
    .when(write([put('r-3', 999)], { state: full }))
    .thenMatches([{ data: { ops: [{ action: 'update', rkey: 'r-3' }] } }]);
  given(full)
    .when(write([{ action: 'delete', collection, rkey: 'r-0' }, create('in')], { state: full }))
    .thenMatches([{ data: { ops: [{ action: 'delete' }, { action: 'create', rkey: 'in' }] } }]);
});

test('one key twice in a call is refused; a commit signed at another rev is refused', () => {
  given([])
    .when(write([create('a'), { action: 'delete', collection, rkey: 'a' }]))
    .then(refused({ error: 'InvalidRequest' }));
  const command = write([create('a')]);
  given([])
    .when({ ...command, commit: { ...command.commit, rev: TID.fromTime(now * 1000 + 5, 0).toString() } })
    .then(refused({ error: 'InvalidRequest' }));
});

test('evolve: the records, the head and its rev', () => {
  const events = history([create('a'), create('b', 2)], [put('a', 3)]);
  const state = given(events).state;
  assert.equal([...state.records.entries()].sort(), [
    [`${collection}/a`, cidOf(3)],
    [`${collection}/b`, cidOf(2)],
  ]);
  assert.is(state.commit, events[1]!.data.commit.cid);
  assert.is(state.tick, TID.fromStr(events[1]!.data.commit.rev).timestamp());
});

test.run();

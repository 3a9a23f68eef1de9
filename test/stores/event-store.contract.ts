/**
 * The EventStore contract: what every adapter must do. Run against the embedded store always
 * and against EventStoreDB when EVENTSTORE_URL is set (test/stores/event-store.test.ts).
 *
 * Every test uses fresh stream names and positions relative to the head it found, so the suite
 * also runs against a server that already holds other data.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  StreamDeleted,
  DEFAULT_MAX_APPEND_SIZE,
  MaxAppendSizeExceeded,
  WrongExpectedVersion,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
} from '../../src/stores/event-store.js';

export interface StoreUnderTest {
  store: EventStore;
  /** Drop every resource (and on disk data) the store used. */
  cleanup(): Promise<void>;
  /** Open the same data again after `store.close()`. */
  reopen?(): Promise<EventStore>;
}

export function eventStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>) {
  const test = suite<{ sut: StoreUnderTest; store: EventStore }>(`event store contract: ${name}`);
  test.before.each(async (ctx) => {
    ctx.sut = await makeStore();
    ctx.store = ctx.sut.store;
  });
  test.after.each(async (ctx) => {
    await ctx.sut.cleanup();
  });

  test('an absent stream reads as empty and has no revision', async ({ store }) => {
    const s = stream('absent');
    assert.equal(await store.readStream(s), []);
    assert.equal(await store.readStream(s, { direction: 'backwards' }), []);
    assert.is(await store.streamRevision(s), undefined);
  });

  test('noStream: creates a stream, then refuses with the actual revision', async ({ store }) => {
    const s = stream('nostream');
    const first = await store.append(s, [ev('Opened')], 'noStream');
    assert.is(first.nextRevision, 0n);
    const err = await refusal(store.append(s, [ev('Opened')], 'noStream'));
    assert.is(err.stream, s);
    assert.is(err.expected, 'noStream');
    assert.is(err.actual, 0n);
    assert.is((await store.readStream(s)).length, 1);
  });

  test('streamExists: refuses an absent stream, accepts an existing one', async ({ store }) => {
    const s = stream('exists');
    const err = await refusal(store.append(s, [ev('Touched')], 'streamExists'));
    assert.is(err.actual, 'noStream');
    assert.is(await store.streamRevision(s), undefined);
    await store.append(s, [ev('Opened')], 'noStream');
    const r = await store.append(s, [ev('Touched')], 'streamExists');
    assert.is(r.nextRevision, 1n);
  });

  test('exact revision: accepts the current revision only', async ({ store }) => {
    const s = stream('exact');
    const missing = await refusal(store.append(s, [ev('A')], 0n));
    assert.is(missing.actual, 'noStream');
    await store.append(s, [ev('A')], 'noStream');
    const r = await store.append(s, [ev('B')], 0n);
    assert.is(r.nextRevision, 1n);
    const stale = await refusal(store.append(s, [ev('C')], 0n));
    assert.is(stale.expected, 0n);
    assert.is(stale.actual, 1n);
    const ahead = await refusal(store.append(s, [ev('C')], 7n));
    assert.is(ahead.actual, 1n);
    assert.equal(
      (await store.readStream(s)).map((e) => e.type),
      ['A', 'B'],
    );
  });

  test('any: appends to absent and existing streams alike', async ({ store }) => {
    const s = stream('any');
    assert.is((await store.append(s, [ev('A')], 'any')).nextRevision, 0n);
    assert.is((await store.append(s, [ev('B'), ev('C')], 'any')).nextRevision, 2n);
    assert.is(await store.streamRevision(s), 2n);
  });

  test('a multi-event append is contiguous and reports its last event', async ({ store }) => {
    const s = stream('multi');
    const r = await store.append(s, [ev('A', { n: 1 }), ev('B', { n: 2 }), ev('C', { n: 3 })], 'noStream');
    const events = await store.readStream(s);
    assert.equal(
      events.map((e) => e.revision),
      [0n, 1n, 2n],
    );
    assert.is(r.nextRevision, 2n);
    assert.is(r.position, events[2]!.position);
    assert.ok(events[0]!.position < events[1]!.position && events[1]!.position < events[2]!.position);
  });

  test('a refused append writes nothing', async ({ store }) => {
    const s = stream('refused');
    await store.append(s, [ev('A')], 'noStream');
    const head = await store.headPosition();
    await refusal(store.append(s, [ev('B'), ev('C')], 5n));
    assert.is(await store.headPosition(), head);
    assert.is(await store.streamRevision(s), 0n);
  });

  test('a retry of the same events at the same expectation is recognised, not duplicated', async ({ store }) => {
    const s = stream('retry');
    const events = [ev('A'), ev('B')];
    const first = await store.append(s, events, 'noStream');
    const again = await store.append(s, events, 'noStream');
    assert.is(again.nextRevision, first.nextRevision);
    const more = [ev('C')];
    await store.append(s, more, 1n);
    assert.is((await store.append(s, more, 1n)).nextRevision, 2n);
    assert.equal(
      (await store.readStream(s)).map((e) => e.type),
      ['A', 'B', 'C'],
    );
    // Same expectation, different event: a real conflict.
    await refusal(store.append(s, [ev('D')], 1n));
  });

  test('20 racing appends at the same revision: exactly one wins', async ({ store }) => {
    const s = stream('race');
    await store.append(s, [ev('Opened')], 'noStream');
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => store.append(s, [ev('Claimed', { i })], 0n)));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o) => o.status === 'rejected');
    assert.is(won.length, 1);
    assert.is(lost.length, 19);
    for (const o of lost) assert.instance((o as PromiseRejectedResult).reason, WrongExpectedVersion);
    assert.is(await store.streamRevision(s), 1n);
  });

  test('a refusal is decided on what a re-read then shows (no lost race on unseen writes)', async ({ store }) => {
    const s = stream('reread');
    // Not awaited: the first append may still be on its way to disk when the second is checked.
    const first = store.append(s, [ev('First')], 'noStream');
    const seen = await store.readStream(s);
    const expected: ExpectedRevision = seen.length ? seen[seen.length - 1]!.revision : 'noStream';
    const second = await store.append(s, [ev('Second')], expected).then(
      () => 'written',
      (error: unknown) => error,
    );
    const reread = (await store.readStream(s)).map((e) => e.type);
    await first;
    if (second !== 'written') {
      assert.instance(second, WrongExpectedVersion);
      // What refused it is visible at once, so a caller that folds again decides on it.
      assert.equal(reread, ['First']);
      assert.is((second as WrongExpectedVersion).actual, 0n);
    } else {
      assert.equal(reread, ['First', 'Second']);
    }
  });

  test('20 racing creations of one stream: exactly one wins', async ({ store }) => {
    const s = stream('claim');
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => store.append(s, [ev('Claimed')], 'noStream')));
    assert.is(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    assert.is((await store.readStream(s)).length, 1);
  });

  test('$all keeps append order across streams with increasing positions', async ({ store }) => {
    const before = await store.headPosition();
    const [a, b, c] = [stream('a'), stream('b'), stream('c')];
    const written: Array<[string, bigint]> = [];
    for (const [s, type] of [
      [a, 'A1'],
      [b, 'B1'],
      [a, 'A2'],
      [c, 'C1'],
      [b, 'B2'],
    ] as const) {
      written.push([type, (await store.append(s, [ev(type)], 'any')).position]);
    }
    const all = (await collect(store.readAll({ after: before }))).filter((e) => [a, b, c].includes(e.stream));
    assert.equal(
      all.map((e) => e.type),
      ['A1', 'B1', 'A2', 'C1', 'B2'],
    );
    assert.equal(
      all.map((e) => e.position),
      written.map(([, p]) => p),
    );
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.position < all[i]!.position);
    assert.equal(
      all.map((e) => e.revision),
      [0n, 0n, 1n, 0n, 1n],
    );
    assert.is(await store.headPosition(), written[written.length - 1]![1]);
  });

  test('readAll starts after a position and honours maxCount', async ({ store }) => {
    const s = stream('readall');
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await store.append(s, [ev('E', { i })], 'any'));
    const after2 = await collect(store.readAll({ after: results[2]!.position }));
    assert.equal(
      after2.filter((e) => e.stream === s).map((e) => (e.data as { i: number }).i),
      [3, 4, 5],
    );
    const two = await collect(store.readAll({ after: results[0]!.position, maxCount: 2 }));
    assert.equal(
      two.map((e) => e.position),
      [results[1]!.position, results[2]!.position],
    );
    assert.equal(await collect(store.readAll({ after: results[5]!.position })), []);
    assert.equal(await collect(store.readAll({ after: results[0]!.position, maxCount: 0 })), []);
  });

  test('readStream forwards, backwards, fromRevision and maxCount', async ({ store }) => {
    const s = stream('read');
    await store.append(
      s,
      [0, 1, 2, 3, 4].map((i) => ev('E', { i })),
      'noStream',
    );
    const ns = (events: RecordedEvent[]) => events.map((e) => (e.data as { i: number }).i);
    assert.equal(ns(await store.readStream(s)), [0, 1, 2, 3, 4]);
    assert.equal(ns(await store.readStream(s, { direction: 'backwards' })), [4, 3, 2, 1, 0]);
    assert.equal(ns(await store.readStream(s, { fromRevision: 2n })), [2, 3, 4]);
    assert.equal(ns(await store.readStream(s, { fromRevision: 2n, maxCount: 2 })), [2, 3]);
    assert.equal(ns(await store.readStream(s, { direction: 'backwards', fromRevision: 2n })), [2, 1, 0]);
    assert.equal(ns(await store.readStream(s, { direction: 'backwards', maxCount: 1 })), [4]);
    assert.equal(ns(await store.readStream(s, { fromRevision: 9n })), []);
    assert.equal(ns(await store.readStream(s, { maxCount: 0 })), []);
  });

  test('data, metadata, ids and types round-trip as JSON', async ({ store }) => {
    const s = stream('json');
    const id = randomUUID();
    const data = { text: 'héllo ✓ "quoted"', list: [1, 2.5, null, true], nested: { deep: { x: 'y' } } };
    await store.append(s, [{ id, type: 'Noted', data, metadata: { by: 'test', n: 1 } }, ev('Plain', 'just text')], 'noStream');
    const [first, second] = await store.readStream(s);
    assert.is(first!.id, id);
    assert.is(first!.stream, s);
    assert.is(first!.type, 'Noted');
    assert.equal(first!.data, data);
    assert.equal(first!.metadata, { by: 'test', n: 1 });
    assert.is(second!.data, 'just text');
    assert.is(second!.metadata, undefined);
    assert.type(first!.created, 'number');
    assert.ok(Math.abs(first!.created - Date.now()) < 60_000);
  });

  test('bad calls are refused before anything is written', async ({ store }) => {
    const s = stream('bad');
    const head = await store.headPosition();
    const bad: Array<() => Promise<unknown>> = [
      () => store.append('', [ev('A')], 'any'),
      () => store.append('$system', [ev('A')], 'any'),
      () => store.append(s, [], 'any'),
      () => store.append(s, [{ id: 'not-a-uuid', type: 'A', data: {} }], 'any'),
      () => store.append(s, [{ id: randomUUID(), type: '', data: {} }], 'any'),
      () => store.append(s, [{ id: randomUUID(), type: '$A', data: {} }], 'any'),
      () => store.append(s, [{ id: randomUUID(), type: 'A', data: { n: 1n } }], 'any'),
      () => store.append(s, [{ id: randomUUID(), type: 'A', data: undefined }], 'any'),
      () => store.append(s, [{ id: randomUUID(), type: 'A', data: {}, metadata: 'text' }], 'any'),
      () => store.append(s, [ev('A')], -1n as ExpectedRevision),
      () => store.append(s, [ev('A')], 'sometimes' as ExpectedRevision),
      () => store.readStream(s, { maxCount: -1 }),
      () => store.readStream(s, { fromRevision: -1n }),
      () => collect(store.readAll({ after: -5n })),
    ];
    for (const call of bad) {
      let threw: unknown;
      try {
        await call();
      } catch (error) {
        threw = error;
      }
      assert.ok(threw instanceof TypeError || threw instanceof RangeError, `refused with ${String(threw)}`);
    }
    assert.is(await store.streamRevision(s), undefined);
    assert.is(await store.headPosition(), head);
  });

  test('an append over the maximum append size is refused whole, as EventStoreDB refuses it; one at the maximum is taken', async ({ store }) => {
    const max = store.maxAppendSize;
    // Both adapters run the contract at their defaults: EventStoreDB's own MaxAppendSize, 1 MiB.
    assert.is(max, DEFAULT_MAX_APPEND_SIZE, `maxAppendSize ${max}`);
    const s = stream('size');
    const head = await store.headPosition();
    // EventStoreDB counts data bytes + metadata bytes + twice the type's length ("Big": 6).
    const exact = { id: randomUUID(), type: 'Big', data: 'x'.repeat(max - 2 - 6) };
    const over = { ...exact, id: randomUUID(), data: 'é'.repeat((max - 2 - 6) / 2 + 1) };
    const error = await rejects(store.append(s, [over], 'any'));
    assert.instance(error, MaxAppendSizeExceeded, `${error.name}: ${error.message}`);
    assert.is((error as MaxAppendSizeExceeded).maxAppendSize, max);
    // Several events that fit one by one do not fit together.
    const half = (n: number) => ({ id: randomUUID(), type: 'Half', data: 'y'.repeat(Math.floor(max / 2) - n) });
    assert.instance(await rejects(store.append(s, [half(4), half(4), half(4)], 'any')), MaxAppendSizeExceeded);
    assert.is(await store.streamRevision(s), undefined, 'nothing of the refused appends was written');
    assert.is(await store.headPosition(), head);
    await store.append(s, [half(4)], 'noStream'); // one alone fits
    const r = await store.append(s, [exact], 0n);
    assert.is(r.nextRevision, 1n);
    const [back] = await store.readStream(s, { fromRevision: 1n });
    assert.is((back!.data as string).length, max - 8);
  });

  test('subscription: catch-up, caughtUp once, then live; no gaps or duplicates', async ({ store }) => {
    const s = stream('sub');
    const before = await store.headPosition();
    for (let i = 0; i < 5; i++) await store.append(s, [ev('E', { i })], 'any');
    const seen: RecordedEvent[] = [];
    const caughtUp: Array<bigint | undefined> = [];
    let appendedDuringCatchUp = false;
    const sub = store.subscribeToAll(before, {
      async onEvent(e) {
        if (e.stream !== s) return;
        seen.push(e);
        if (!appendedDuringCatchUp) {
          appendedDuringCatchUp = true;
          // Appends while the subscriber is still catching up must arrive too, once each.
          for (let i = 5; i < 10; i++) await store.append(s, [ev('E', { i })], 'any');
        }
        await delay(2);
      },
      onCaughtUp(position) {
        caughtUp.push(position);
      },
    });
    try {
      await waitFor(() => caughtUp.length > 0 && seen.length >= 10, 'catch-up');
      for (let i = 10; i < 15; i++) await store.append(s, [ev('E', { i })], 'any');
      await waitFor(() => seen.length >= 15, 'live events');
      await delay(50);
      assert.equal(
        seen.map((e) => (e.data as { i: number }).i),
        range(15),
      );
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]!.position < seen[i]!.position);
      assert.is(caughtUp.length, 1);
      assert.ok(caughtUp[0] !== undefined && caughtUp[0] >= seen[4]!.position);
    } finally {
      await sub.close();
    }
  });

  test('subscription: a slow async handler keeps order under a burst of concurrent appends', async ({ store }) => {
    const s = stream('burst');
    const before = await store.headPosition();
    const seen: number[] = [];
    let caught = false;
    const sub = store.subscribeToAll(before, {
      async onEvent(e) {
        if (e.stream !== s) return;
        await delay((e.data as { i: number }).i % 3);
        seen.push((e.data as { i: number }).i);
      },
      onCaughtUp: () => (caught = true),
    });
    try {
      await waitFor(() => caught, 'caught up');
      const positions = await Promise.all(range(40).map((i) => store.append(s, [ev('E', { i })], 'any')));
      await waitFor(() => seen.length >= 40, 'burst delivered');
      const byPosition = range(40).sort((a, b) => (positions[a]!.position < positions[b]!.position ? -1 : 1));
      assert.equal(seen, byPosition);
    } finally {
      await sub.close();
    }
  });

  test('subscription from a position skips what came before it', async ({ store }) => {
    const s = stream('from');
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await store.append(s, [ev('E', { i })], 'any'));
    const seen: number[] = [];
    let caughtAt: bigint | undefined;
    const sub = store.subscribeToAll(results[1]!.position, {
      onEvent(e) {
        if (e.stream === s) seen.push((e.data as { i: number }).i);
      },
      onCaughtUp: (p) => (caughtAt = p),
    });
    try {
      await waitFor(() => caughtAt !== undefined, 'caught up');
      assert.equal(seen, [2, 3]);
      assert.ok(caughtAt! >= results[3]!.position);
    } finally {
      await sub.close();
    }
  });

  test('a subscription to some streams hears only them, in order, from catch-up into live', async ({ store }) => {
    const wanted = stream('wanted');
    const also = stream('also');
    const other = stream('other');
    const before = await store.headPosition();
    // Many passed-over events between the wanted ones: more than a page of them.
    await store.append(wanted, [ev('E', { i: 0 })], 'any');
    let lastOther = 0n;
    for (let i = 0; i < 1100; i += 100)
      lastOther = (
        await store.append(
          other,
          range(100).map((j) => ev('O', { j: i + j })),
          'any',
        )
      ).position;
    await store.append(also, [ev('E', { i: 1 })], 'any');
    const seen: RecordedEvent[] = [];
    const caughtUp: Array<bigint | undefined> = [];
    const passed: bigint[] = [];
    const sub = store.subscribeToAll(
      before,
      {
        onEvent(e) {
          seen.push(e);
        },
        onCaughtUp: (p) => caughtUp.push(p),
        onPassed: (p) => passed.push(p),
      },
      { streamPrefixes: [wanted, also] },
    );
    try {
      await waitFor(() => caughtUp.length > 0, 'catch-up');
      await store.append(other, [ev('O', { j: -1 })], 'any');
      await store.append(wanted, [ev('E', { i: 2 })], 'any');
      await waitFor(() => seen.length >= 3, 'a live wanted event');
      await delay(30);
      assert.equal(
        seen.map((e) => [e.stream, (e.data as { i: number }).i]),
        [
          [wanted, 0],
          [also, 1],
          [wanted, 2],
        ],
      );
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]!.position < seen[i]!.position);
      assert.is(caughtUp.length, 1);
      // What was passed over is reported, so a checkpoint can move past it.
      assert.ok(passed.length > 0, 'passed-over events reported');
      for (let i = 1; i < passed.length; i++) assert.ok(passed[i - 1]! < passed[i]!, 'passed positions increase');
      assert.ok(
        passed.some((p) => p >= lastOther),
        `passed reaches the last other event (${lastOther}): ${passed.join(',')}`,
      );
      assert.ok(
        passed.every((p) => p <= seen[seen.length - 1]!.position),
        'nothing passed beyond what was appended',
      );
    } finally {
      await sub.close();
    }
  });

  test('close() stops delivery', async ({ store }) => {
    const s = stream('close');
    const before = await store.headPosition();
    const seen: RecordedEvent[] = [];
    let caught = false;
    const sub = store.subscribeToAll(before, {
      onEvent: (e) => {
        if (e.stream === s) seen.push(e);
      },
      onCaughtUp: () => (caught = true),
    });
    await waitFor(() => caught, 'caught up');
    await store.append(s, [ev('Before')], 'any');
    await waitFor(() => seen.length === 1, 'first event');
    await sub.close();
    await store.append(s, [ev('After')], 'any');
    await delay(100);
    assert.equal(
      seen.map((e) => e.type),
      ['Before'],
    );
  });

  test('a handler may close its own subscription', async ({ store }) => {
    const s = stream('selfclose');
    const before = await store.headPosition();
    await store.append(s, [ev('A'), ev('B'), ev('C')], 'noStream');
    const seen: string[] = [];
    let closed = false;
    const sub = store.subscribeToAll(before, {
      async onEvent(e) {
        if (e.stream !== s) return;
        seen.push(e.type);
        await sub.close();
        closed = true;
      },
    });
    await waitFor(() => closed, 'self-close');
    await store.append(s, [ev('D')], 'any');
    await delay(50);
    assert.equal(seen, ['A']);
  });

  test('deleteStream: the stream reads as absent for good, appends to it are refused, other streams are untouched', async ({ store }) => {
    const [gone, kept] = [stream('gone'), stream('kept')];
    await store.append(gone, [ev('A'), ev('B')], 'noStream');
    await store.append(kept, [ev('K')], 'noStream');
    await store.deleteStream(gone, 1n);
    assert.equal(await store.readStream(gone), []);
    assert.equal(await store.readStream(gone, { direction: 'backwards' }), []);
    assert.is(await store.streamRevision(gone), undefined);
    for (const expected of ['any', 'noStream', 1n] as ExpectedRevision[]) {
      const error = await store.append(gone, [ev('C')], expected).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.instance(error, StreamDeleted, `append at ${String(expected)} after the delete`);
    }
    await store.deleteStream(gone);
    assert.equal(
      (await store.readStream(kept)).map((e) => e.type),
      ['K'],
    );
    assert.is(await store.streamRevision(kept), 0n);
    // A stream that never was can be deleted too: it can never be made.
    const never = stream('never');
    await store.deleteStream(never, 'noStream');
    assert.instance(await store.append(never, [ev('X')], 'noStream').catch((e: unknown) => e), StreamDeleted);
  });

  test('deleteStream holds its expectation as append does', async ({ store }) => {
    const s = stream('expect');
    await store.append(s, [ev('A')], 'noStream');
    const err = await refusal(store.deleteStream(s, 5n));
    assert.is(err.actual, 0n);
    assert.is((await refusal(store.deleteStream(stream('absent'), 'streamExists'))).actual, 'noStream');
    assert.is((await refusal(store.deleteStream(s, 'noStream'))).actual, 0n);
    assert.is((await store.readStream(s)).length, 1, 'a refused delete deletes nothing');
    await store.deleteStream(s, 'streamExists');
    assert.equal(await store.readStream(s), []);
    const bad = await store.deleteStream('$system', 'any').catch((e: unknown) => e);
    assert.instance(bad, TypeError);
  });

  test('after a deleteStream, $all still holds every other stream in order', async ({ store }) => {
    const before = await store.headPosition();
    const [gone, kept] = [stream('gone'), stream('kept')];
    await store.append(kept, [ev('K1')], 'any');
    await store.append(gone, [ev('G1')], 'any');
    await store.append(kept, [ev('K2')], 'any');
    await store.deleteStream(gone);
    await store.append(kept, [ev('K3')], 'any');
    const all = await collect(store.readAll({ after: before }));
    assert.equal(
      all.filter((e) => e.stream === kept).map((e) => e.type),
      ['K1', 'K2', 'K3'],
    );
    assert.not.ok(
      all.some((e) => e.type.startsWith('$') || e.stream.startsWith('$')),
      'the store’s own events stay its own',
    );
  });

  test('reopening after close keeps every event', async ({ sut, store }) => {
    if (!sut.reopen) return;
    const s = stream('reopen');
    const r = await store.append(s, [ev('A'), ev('B')], 'noStream');
    await store.close();
    const again = await sut.reopen();
    sut.store = again;
    assert.equal(
      (await again.readStream(s)).map((e) => e.type),
      ['A', 'B'],
    );
    assert.is(await again.streamRevision(s), 1n);
    const next = await again.append(s, [ev('C')], 1n);
    assert.ok(next.position > r.position);
  });

  return test;
}

export function ev(type: string, data: unknown = {}): EventData {
  return { id: randomUUID(), type, data };
}

function stream(label: string): string {
  return `test${label}-${randomUUID().slice(0, 8)}`;
}

async function rejects(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new assert.Assertion({ message: 'expected a refusal, but it succeeded', operator: 'rejects', expects: 'a refusal', actual: 'success' });
}

async function refusal(promise: Promise<unknown>): Promise<WrongExpectedVersion> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, WrongExpectedVersion);
    return error as WrongExpectedVersion;
  }
  assert.unreachable('append should have been refused');
  throw new Error('unreachable');
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}

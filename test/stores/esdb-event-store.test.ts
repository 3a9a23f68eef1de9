/**
 * The EventStoreDB adapter against a stand-in for the db-client: what the contract cannot show
 * without a server (mapping of revisions and errors, system events kept out, resubscription
 * after a dropped connection). The contract itself runs on a real server when EVENTSTORE_URL
 * is set.
 */
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ANY,
  AccessDeniedError,
  MaxAppendSizeExceededError,
  UnavailableError,
  NO_STREAM,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
} from '@eventstore/db-client';
import { EsdbEventStore, isEsdbUrl, openEsdbEventStore, READ_PAGE, toEsdbExpected, type EsdbClient } from '../../src/stores/esdb/event-store.js';
import { MaxAppendSizeExceeded, StreamDeleted, WrongExpectedVersion, type RecordedEvent } from '../../src/stores/event-store.js';
import { pollAll } from '../../src/projections/projector.js';
import { collect, ev, waitFor } from './event-store.contract.js';

function resolved(position: number, stream = 'world-town', type = 'TurnTaken'): AllStreamResolvedEvent {
  return {
    event: {
      streamId: stream,
      id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
      isJson: true,
      revision: BigInt(position),
      type,
      created: new Date(1_700_000_000_000),
      data: { n: position },
      metadata: undefined,
      position: { commit: BigInt(position), prepare: BigInt(position) },
    },
  } as AllStreamResolvedEvent;
}

class FakeSubscription extends PassThrough {
  constructor(readonly options: { fromPosition?: unknown }) {
    super({ objectMode: true });
  }
  async unsubscribe() {
    this.destroy();
  }
}

/**
 * A read call as the db-client gives it: a stream of events with `cancel()`. The call stays open
 * until the server has sent its last event (the stream ended), the call failed, or `cancel()`
 * was called; `destroy()` alone leaves it open, as it does on the real client.
 */
class FakeRead extends PassThrough {
  static open = new Set<FakeRead>();
  constructor(items: unknown[], error?: Error) {
    super({ objectMode: true });
    FakeRead.open.add(this);
    this.once('end', () => FakeRead.open.delete(this));
    for (const item of items) this.write(item);
    if (error)
      setImmediate(() => {
        FakeRead.open.delete(this);
        this.destroy(error);
      });
    else this.end();
  }
  async cancel() {
    FakeRead.open.delete(this);
    this.destroy();
  }
}

function readable(items: unknown[], error?: Error) {
  return new FakeRead(items, error);
}

/** A server's $all of `n` events (positions 1…n), answering reads as the server does. */
function fakeServer(n: number, asked: number[]) {
  const all = Array.from({ length: n }, (_, i) => resolved(i + 1));
  const from = (p: unknown) => (typeof p === 'object' && p !== null ? (p as { commit: bigint }).commit : undefined);
  return {
    readAll: (options: { fromPosition: unknown; maxCount: number; direction: string }) => {
      asked.push(options.maxCount);
      const at = from(options.fromPosition);
      const backwards = options.direction === 'backwards';
      const list = backwards
        ? all.filter((e) => at === undefined || e.event!.position!.commit <= at).reverse()
        : all.filter((e) => at === undefined || e.event!.position!.commit >= at);
      return readable(list.slice(0, options.maxCount));
    },
    readStream: (_stream: string, options: { fromRevision: unknown; maxCount: number; direction: string }) => {
      asked.push(options.maxCount);
      const at = typeof options.fromRevision === 'bigint' ? options.fromRevision : undefined;
      const backwards = options.direction === 'backwards';
      const list = backwards
        ? all.filter((e) => at === undefined || e.event!.revision <= at).reverse()
        : all.filter((e) => at === undefined || e.event!.revision >= at);
      return readable(list.slice(0, options.maxCount));
    },
  };
}

/** A client's subscribeToAll that keeps every subscription it makes in `subs`. */
function subscribingInto(subs: FakeSubscription[]) {
  return (options: { fromPosition?: unknown }) => {
    const sub = new FakeSubscription(options);
    subs.push(sub);
    return sub;
  };
}

function fakeClient(overrides: Partial<Record<keyof EsdbClient, unknown>>): EsdbClient {
  return {
    appendToStream: async () => ({ success: true, nextExpectedRevision: 0n, position: { commit: 1n, prepare: 1n } }),
    readStream: () => readable([]),
    readAll: () => readable([]),
    subscribeToAll: () => new FakeSubscription({}),
    dispose: async () => undefined,
    ...overrides,
  } as unknown as EsdbClient;
}

test('expected revisions map onto the db-client constants', () => {
  assert.is(toEsdbExpected('any'), ANY);
  assert.is(toEsdbExpected('noStream'), NO_STREAM);
  assert.is(toEsdbExpected('streamExists'), STREAM_EXISTS);
  assert.is(toEsdbExpected(41n), 41n);
});

test('append sends JSON events with the mapped revision and reports the commit position', async () => {
  let sent: { stream: string; events: Array<{ id: string; contentType: string; type: string; data: unknown }>; options: unknown } | undefined;
  const store = new EsdbEventStore(
    fakeClient({
      appendToStream: async (stream: string, events: never, options: unknown) => {
        sent = { stream, events, options };
        return { success: true, nextExpectedRevision: 4n, position: { commit: 900n, prepare: 900n } };
      },
    }),
  );
  const e = ev('Claimed', { name: 'ada' });
  const result = await store.append('guest-ada', [e], 3n);
  assert.equal(result, { nextRevision: 4n, position: 900n });
  assert.is(sent!.stream, 'guest-ada');
  assert.equal(sent!.options, { expectedRevision: 3n });
  assert.is(sent!.events[0]!.id, e.id);
  assert.is(sent!.events[0]!.contentType, 'application/json');
  assert.equal(sent!.events[0]!.data, { name: 'ada' });
});

test('WrongExpectedVersionError becomes WrongExpectedVersion, both ways of no stream', async () => {
  for (const [current, actual] of [
    [NO_STREAM, 'noStream'],
    [7n, 7n],
  ] as const) {
    const store = new EsdbEventStore(
      fakeClient({
        appendToStream: async () => {
          throw new WrongExpectedVersionError(undefined, { streamName: 's', expected: NO_STREAM, current });
        },
      }),
    );
    try {
      await store.append('s', [ev('A')], 'noStream');
      assert.unreachable('should refuse');
    } catch (error) {
      assert.instance(error, WrongExpectedVersion);
      assert.is((error as WrongExpectedVersion).actual, actual);
      assert.is((error as WrongExpectedVersion).expected, 'noStream');
    }
  }
});

test('reading a stream the server does not know gives []', async () => {
  const store = new EsdbEventStore(fakeClient({ readStream: () => readable([], new StreamNotFoundError(undefined, 'nope')) }));
  assert.equal(await store.readStream('nope'), []);
  assert.is(await store.streamRevision('nope'), undefined);
});

test('deleteStream tombstones the stream at the mapped revision; a deleted stream reads as [] and refuses appends', async () => {
  const asked: Array<{ stream: string; options: unknown }> = [];
  let deleted = false;
  const store = new EsdbEventStore(
    fakeClient({
      tombstoneStream: async (stream: string, options: unknown) => {
        asked.push({ stream, options });
        if (deleted) throw StreamDeletedError.fromStreamName(stream);
        deleted = true;
        return { position: { commit: 10n, prepare: 10n } };
      },
      readStream: () => readable([], StreamDeletedError.fromStreamName('world-scratch.ann.a.1')),
      appendToStream: async () => {
        throw StreamDeletedError.fromStreamName('world-scratch.ann.a.1');
      },
    }),
  );
  await store.deleteStream('world-scratch.ann.a.1', 4n);
  assert.equal(asked, [{ stream: 'world-scratch.ann.a.1', options: { expectedRevision: 4n } }]);
  await store.deleteStream('world-scratch.ann.a.1');
  assert.equal(asked[1]!.options, { expectedRevision: ANY }, 'deleting a deleted stream does nothing');
  assert.equal(await store.readStream('world-scratch.ann.a.1'), []);
  assert.is(await store.streamRevision('world-scratch.ann.a.1'), undefined);
  assert.instance(await store.append('world-scratch.ann.a.1', [ev('A')], 'any').catch((e: unknown) => e), StreamDeleted);
  assert.instance(await store.deleteStream('$x').catch((e: unknown) => e), TypeError);
});

test('deleteStream: a wrong expectation is WrongExpectedVersion; streamExists is checked first', async () => {
  const store = new EsdbEventStore(
    fakeClient({
      tombstoneStream: async () => {
        throw new WrongExpectedVersionError(undefined, { streamName: 's', expected: 3n, current: 7n });
      },
      readStream: () => readable([], new StreamNotFoundError(undefined, 's')),
    }),
  );
  const wrong = await store.deleteStream('s', 3n).catch((e: unknown) => e);
  assert.instance(wrong, WrongExpectedVersion);
  assert.is((wrong as WrongExpectedVersion).actual, 7n);
  const absent = await store.deleteStream('s', 'streamExists').catch((e: unknown) => e);
  assert.instance(absent, WrongExpectedVersion);
  assert.is((absent as WrongExpectedVersion).actual, 'noStream');
});

test('readAll drops system events and starts strictly after the position', async () => {
  let from: unknown;
  const store = new EsdbEventStore(
    fakeClient({
      readAll: (options: { fromPosition: unknown }) => {
        from = options.fromPosition;
        return readable([resolved(5), resolved(6, '$stats-1'), resolved(7, 'world-town', '$metadata'), resolved(8)]);
      },
    }),
  );
  const events = await collect(store.readAll({ after: 5n }));
  assert.equal(from, { commit: 5n, prepare: 5n });
  assert.equal(
    events.map((e) => e.position),
    [8n],
  );
  assert.equal(events[0]!.data, { n: 8 });
});

test('a dropped subscription resubscribes after the last event, without gaps or duplicates', async () => {
  const subs: FakeSubscription[] = [];
  const store = new EsdbEventStore(
    fakeClient({
      subscribeToAll: subscribingInto(subs),
      readAll: () => readable([resolved(3)]),
    }),
    { initialMs: 5, maxMs: 20 },
  );
  const seen: RecordedEvent[] = [];
  const caught: Array<bigint | undefined> = [];
  const sub = store.subscribeToAll(undefined, {
    async onEvent(e) {
      await new Promise((r) => setTimeout(r, 1));
      seen.push(e);
    },
    onCaughtUp: (p) => caught.push(p),
  });
  await waitFor(() => subs.length === 1, 'first subscription');
  subs[0]!.write(resolved(1));
  subs[0]!.write(resolved(2));
  subs[0]!.write(resolved(3));
  subs[0]!.emit('caughtUp');
  await waitFor(() => caught.length === 1, 'caught up');
  subs[0]!.destroy(new UnavailableError());
  await waitFor(() => subs.length === 2, 'resubscription');
  assert.equal(subs[1]!.options.fromPosition, { commit: 3n, prepare: 3n });
  subs[1]!.write(resolved(3)); // the server may repeat the boundary: it must not be delivered twice
  subs[1]!.write(resolved(4));
  subs[1]!.write(resolved(5, '$et-x'));
  subs[1]!.write(resolved(6));
  await waitFor(() => seen.length === 5 || seen.length > 5, 'live events');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(
    seen.map((e) => e.position),
    [1n, 2n, 3n, 4n, 6n],
  );
  assert.equal(caught, [3n]);
  await sub.close();
  subs[1]!.write(resolved(7));
  await new Promise((r) => setTimeout(r, 20));
  assert.is(seen.length, 5);
  await store.close();
});

test('without the server signal, reaching the head found at subscribe time counts as caught up', async () => {
  const subs: FakeSubscription[] = [];
  const store = new EsdbEventStore(
    fakeClient({
      subscribeToAll: subscribingInto(subs),
      readAll: () => readable([resolved(9, '$stats'), resolved(2)]),
    }),
  );
  const caught: Array<bigint | undefined> = [];
  const sub = store.subscribeToAll(undefined, { onEvent() {}, onCaughtUp: (p) => caught.push(p) });
  await waitFor(() => subs.length === 1, 'subscription');
  subs[0]!.write(resolved(1));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(caught, []);
  subs[0]!.write(resolved(2));
  await waitFor(() => caught.length === 1, 'caught up');
  assert.equal(caught, [2n]);
  await sub.close();
  await store.close();
});

test('a refused subscription (access denied) ends with onError', async () => {
  const subs: FakeSubscription[] = [];
  const store = new EsdbEventStore(
    fakeClient({
      subscribeToAll: () => {
        const sub = new FakeSubscription({});
        subs.push(sub);
        return sub;
      },
    }),
    { initialMs: 5, maxMs: 20 },
  );
  let failed: Error | undefined;
  store.subscribeToAll(undefined, { onEvent() {}, onError: (e) => (failed = e) });
  await waitFor(() => subs.length === 1, 'subscription');
  subs[0]!.destroy(new AccessDeniedError());
  await waitFor(() => failed !== undefined, 'onError');
  await new Promise((r) => setTimeout(r, 30));
  assert.is(subs.length, 1);
  await store.close();
});

test('reads ask for a page at a time and cancel the call they stop reading early', async () => {
  const asked: number[] = [];
  const store = new EsdbEventStore(fakeClient(fakeServer(2500, asked)));
  const everything = await collect(store.readAll());
  assert.is(everything.length, 2500);
  assert.equal(
    everything.slice(0, 3).map((e) => e.position),
    [1n, 2n, 3n],
  );
  assert.is(new Set(everything.map((e) => e.position)).size, 2500, 'no duplicates across pages');
  assert.is(FakeRead.open.size, 0, 'reads to the end leave no call open');
  assert.equal(
    (await collect(store.readAll({ after: 10n, maxCount: 2 }))).map((e) => e.position),
    [11n, 12n],
  );
  assert.is(FakeRead.open.size, 0, 'a read stopped at maxCount cancels its call');
  for await (const e of store.readAll({ after: 100n })) if (e.position >= 103n) break;
  assert.is(FakeRead.open.size, 0, 'a reader that breaks off cancels the call');
  assert.is(await store.headPosition(), 2500n);
  assert.is(FakeRead.open.size, 0, 'finding the head cancels its read');
  assert.is((await store.readStream('world-town')).length, 2500);
  assert.equal(
    (await store.readStream('world-town', { direction: 'backwards', maxCount: 1 })).map((e) => e.revision),
    [2500n],
  );
  assert.is(FakeRead.open.size, 0);
  assert.ok(
    asked.every((n) => n <= READ_PAGE),
    `every call asked for at most ${READ_PAGE}: ${asked.join(',')}`,
  );
  await store.close();
});

test('a subscription started and closed, and a poller of pages, leave no read call open', async () => {
  const asked: number[] = [];
  const subs: FakeSubscription[] = [];
  const store = new EsdbEventStore(fakeClient({ ...fakeServer(3000, asked), subscribeToAll: subscribingInto(subs) }));
  for (let i = 0; i < 5; i++) {
    const sub = store.subscribeToAll(undefined, { onEvent() {} });
    await waitFor(() => subs.length === i + 1, 'subscription');
    await new Promise((r) => setTimeout(r, 5));
    await sub.close();
  }
  assert.is(FakeRead.open.size, 0, 'each start looked for the head and let its call go');
  const delivered: bigint[] = [];
  const poller = pollAll(store, undefined, { onEvent: (e) => void delivered.push(e.position) }, 5);
  await waitFor(() => delivered.length === 3000, 'polled everything');
  await poller.close();
  assert.is(FakeRead.open.size, 0, 'every poll page ended or was cancelled');
  assert.ok(asked.every((n) => n <= READ_PAGE));
  await store.close();
});

test('an append over the maximum append size is refused before it is sent; the server saying so maps the same', async () => {
  let sent = 0;
  const store = new EsdbEventStore(
    fakeClient({
      appendToStream: async () => {
        sent++;
        throw new MaxAppendSizeExceededError(undefined, 2048);
      },
    }),
    undefined,
    4096,
  );
  const big = { ...ev('Big'), data: 'x'.repeat(5000) };
  const error = await store.append('s', [big], 'any').catch((e: unknown) => e);
  assert.instance(error, MaxAppendSizeExceeded);
  assert.is((error as MaxAppendSizeExceeded).size, 5008);
  assert.is(sent, 0, 'nothing was sent');
  const server = await store.append('s', [ev('Small')], 'any').catch((e: unknown) => e);
  assert.instance(server, MaxAppendSizeExceeded, 'a server configured lower refuses it: the same error');
  assert.is((server as MaxAppendSizeExceeded).maxAppendSize, 2048);
});

test('only esdb:// urls open the EventStoreDB adapter', async () => {
  assert.ok(isEsdbUrl('esdb://localhost:2113?tls=false'));
  assert.ok(isEsdbUrl('esdb+discover://cluster.example:2113'));
  assert.not.ok(isEsdbUrl('mongodb://localhost'));
  let threw = false;
  try {
    await openEsdbEventStore({ url: 'http://localhost:2113' });
  } catch {
    threw = true;
  }
  assert.ok(threw);
});

test.run();

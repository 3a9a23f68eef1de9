/**
 * The world service and the journal's maximum append size (EventStoreDB's MaxAppendSize): a batch
 * is cut to what one append may carry, so two turns on one large card never fail together; an
 * entry that no append could carry is refused `capacity` before it is journaled. Run on the
 * embedded store configured with a small maximum, as EVENTSTORE_MAX_APPEND_SIZE may set it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../src/cards/compile.js';
import { compileInput, libraryKinds } from '../../src/cards/kernel/library.js';
import { defaultOptions } from '../../src/cards/kernel/options.js';
import { programCache } from '../../src/cards/kernel/programs.js';
import { sealedLibrary } from '../../src/cards/library/index.js';
import type { Library, Module } from '../../src/cards/program.js';
import { WorldService } from '../../src/commands/world-service.js';
import { decodeWorldEntry, worldStream } from '../../src/events/world.js';
import { openEmbeddedEventStore, type EmbeddedEventStore } from '../../src/stores/embedded/event-store.js';
import { eventSize } from '../../src/stores/event-store-checks.js';
import { startTestTown, testClock } from './support.js';
import { settingsFromEnv } from '../../src/config.js';
import { genesisTown } from '../../src/cards/kernel/genesis.js';

const pile = `type Pile:
  words: List Text

def initial() -> Pile:
  return Pile { words: [] }

spell add(self: Pile, word: Text 1..60000) -> Pile:
  return self { words: append(self.words, word) }
`;

function programs() {
  const modules = new Map<string, Module>(sealedLibrary().modules);
  modules.set('pile', { name: 'pile', source: pile });
  const library: Library = { modules };
  return programCache({ compile: (pkg) => compile(compileInput(pkg), library), kinds: libraryKinds(library), libraryModules: [...modules.values()] });
}

const ann = 'guest:town.test:ann';
const MAX = 40_000;

const test = suite<{ dir: string; events: EmbeddedEventStore; service: WorldService; sizes: number[] }>('world service: maximum append size');
test.before.each(async (ctx) => {
  ctx.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-'));
  // Genesis (every library package) is founded under the default maximum, then the store is
  // reopened with a small one, as a server configured so would hold it.
  const first = await openEmbeddedEventStore({ dataDir: ctx.dir });
  const founding = service(first);
  await founding.open();
  await founding.submit({ kind: 'arrive', principal: ann, name: 'ann' });
  await founding.close();
  await first.close();
  ctx.events = await openEmbeddedEventStore({ dataDir: ctx.dir, maxAppendSize: MAX });
  ctx.sizes = [];
  const append = ctx.events.append.bind(ctx.events);
  ctx.events.append = (stream, events, expected) => {
    ctx.sizes.push(events.reduce((n, e) => n + eventSize(e.type, JSON.stringify(e.data)), 0));
    return append(stream, events, expected);
  };
  ctx.service = service(ctx.events);
  await ctx.service.open();
});
test.after.each(async (ctx) => {
  await ctx.service.close();
  await ctx.events.close();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
});

function service(events: EmbeddedEventStore) {
  return new WorldService({
    events,
    programs: programs(),
    clock: testClock(),
    options: () => defaultOptions,
    genesis: {
      host: 'town.test',
      opener: 'town',
      layout: {
        entrance: 'square',
        cards: [
          { id: 'square', kind: 'room', place: '' },
          { id: 'pile', kind: 'pile', place: 'square' },
        ],
      },
    },
  });
}

const add = (intent: string, word: string) => ({ kind: 'turn' as const, principal: ann, intent, object: 'pile', method: 'add', fields: { word } });

test('turns on one large card decided together go out in appends that each fit', async ({ service, events, sizes }) => {
  const before = service.height;
  // Each entry holds the word asked and the card's whole state: ~12, 18, 24, 30 KB; together far over 40 KB.
  const replies = await Promise.all(['a', 'b', 'c', 'd'].map((x) => service.submit(add(x, x.repeat(6000)))));
  for (const r of replies) assert.is(r.outcome.kind, 'journal', JSON.stringify(r.outcome).slice(0, 300));
  assert.is(service.height, before + 4);
  assert.ok(sizes.length >= 3, `cut into several appends: ${sizes.join(', ')}`);
  for (const size of sizes) assert.ok(size <= MAX, `an append of ${size} bytes went out`);
  const stored = await events.readStream(worldStream('town'), { fromRevision: BigInt(before) });
  assert.equal(
    stored.map((e) => decodeWorldEntry(e).height),
    [0, 1, 2, 3].map((i) => before + i),
  );
});

test('an entry larger than one append is refused `capacity`, naming the limit, and nothing is journaled', async ({ service, events, sizes }) => {
  await service.submit(add('small', 'x'.repeat(30_000)));
  const before = service.height;
  const appends = sizes.length;
  const d = await service.submit(add('big', 'y'.repeat(20_000)));
  assert.is(d.outcome.kind, 'refused');
  const receipt = d.outcome.kind === 'refused' ? d.outcome.receipt : undefined;
  assert.is(receipt?.class, 'capacity');
  assert.match(receipt?.reason ?? '', /maxAppendSize/);
  assert.match(receipt?.reason ?? '', /40000/);
  assert.is(receipt?.height, undefined, 'no entry holds it');
  assert.is(service.height, before);
  assert.is(sizes.length, appends, 'no append was tried');
  assert.is(await events.streamRevision(worldStream('town')), BigInt(before - 1));
  // The world goes on: a small turn still lands.
  const next = await service.submit({ kind: 'turn', principal: ann, intent: 'look', object: 'pile', method: 'add', fields: { word: 'z' } });
  assert.is(next.outcome.kind, 'journal');
});

test.run();

// Over HTTP: the refusal is a receipt like any other, and the town goes on.
const http = suite('a turn whose entry no append can carry, over HTTP');
http('is refused `capacity` with the limit named, and journals nothing', async () => {
  const t = await startTestTown({
    programs: programs(),
    layout: { entrance: genesisTown.entrance, cards: [...genesisTown.cards, { id: 'pile', kind: 'pile', place: 'square' }] },
  });
  try {
    const ann = await t.guest('ann');
    // The genesis town is founded; the journal is then configured with a small maximum.
    await t.restart({ settings: { ...settingsFromEnv({}), port: 0, dataDir: t.dir, inProcessProjectors: true, maxAppendSize: MAX } });
    // An entry holds the request's fields and the card's new state: about twice the word.
    const fits = await t.post('/AGENTS.md/world/pile/add', ann.token, { intent: 'fits', fields: { word: 'x'.repeat(15_000) } });
    assert.is(fits.json.status, 'done', fits.text.slice(0, 300));
    const height = t.town.world.height;
    const big = await t.post('/AGENTS.md/world/pile/add', ann.token, { intent: 'big', fields: { word: 'y'.repeat(15_000) } });
    assert.is(big.status, 200, big.text.slice(0, 300));
    assert.is(big.json.status, 'refused');
    assert.is(big.json.class, 'capacity');
    assert.match(big.json.reason, /^maxAppendSize: the entry would take \d+ bytes of the journal, and one append carries at most 40000$/);
    assert.is(t.town.world.height, height, 'nothing journaled');
    const again = await t.post('/AGENTS.md/world/pile/add', ann.token, { intent: 'small', fields: { word: 'z' } });
    assert.is(again.json.status, 'done');
  } finally {
    await t.close();
  }
});
http.run();

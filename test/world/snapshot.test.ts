/**
 * World snapshots: a snapshot read back is the same World (every field, every Map entry), keeps
 * evolving exactly as the World it was taken of, and its lazily decoded Maps answer every Map
 * question as a plain Map would.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide } from '../../src/cards/kernel/decide.js';
import { evolve } from '../../src/cards/kernel/evolve.js';
import { libraryPrograms } from '../../src/cards/kernel/library.js';
import { defaultOptions } from '../../src/cards/kernel/options.js';
import { blankWorld, layered, type World } from '../../src/cards/kernel/world.js';
import type { Entry } from '../../src/cards/kernel/entry.js';
import { LazyMap } from '../../src/commands/snapshot/lazy-map.js';
import { decodeSnapshot, encodeSnapshot, fileSnapshots, frozenSnapshot, snapshotFormat } from '../../src/commands/snapshot/world-snapshot.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const programs = libraryPrograms();
const ann = 'guest:town.test:ann';

function run(world: World, command: Parameters<typeof decide>[1], clock: number): Entry[] {
  const o = decide(world, command, clock, programs, defaultOptions);
  if (o.kind !== 'journal') return [];
  for (const e of o.entries) evolve(world, e);
  return o.entries;
}

function town(): World {
  const w = blankWorld();
  run(w, { kind: 'genesis', name: 'town', host: 'town.test', opener: 'town' }, 1000);
  run(w, { kind: 'arrive', principal: ann, name: 'ann' }, 2000);
  for (let i = 0; i < 20; i++) {
    run(
      w,
      {
        kind: 'turn',
        principal: ann,
        intent: `i\n${i}`,
        object: i % 3 ? 'lamp' : 'notice-board',
        method: 'receive',
        spell: i % 3 ? 'fill measures=0' : 'make kind=note',
      },
      3000 + i,
    );
  }
  run(w, { kind: 'turn', principal: ann, intent: 'give', object: 'lamp', method: 'give', fields: { to: 'notice-board', note: 'tab\there' } }, 9000);
  return w;
}

const plain = (w: World) =>
  JSON.parse(
    JSON.stringify(
      Object.fromEntries(Object.entries(w).map(([k, v]) => [k, v instanceof Map ? [...v].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)) : v])),
    ),
  );

const roundTrip = (w: World) => decodeSnapshot(Buffer.from(`${[...encodeSnapshot({ format: snapshotFormat, world: w, lastCid: 'c' })].join('\n')}\n`))!;

test('a snapshot read back is the same World, and evolves as it does', () => {
  const w = town();
  const s = roundTrip(w);
  assert.is(s.format, snapshotFormat);
  assert.is(s.lastCid, 'c');
  assert.ok(s.world.receipts instanceof LazyMap, 'receipts stay text until read');
  assert.equal(plain(s.world), plain(w));
  // The same next turn on both gives the same entry (decide reads through the lazy Maps).
  const a = run(w, { kind: 'turn', principal: ann, intent: 'next', object: 'lamp', method: 'fill', fields: { measures: 1 } }, 10_000);
  const b = run(s.world, { kind: 'turn', principal: ann, intent: 'next', object: 'lamp', method: 'fill', fields: { measures: 1 } }, 10_000);
  assert.equal(b, a);
  // A repeat of an intent read from the snapshot answers the first receipt.
  const again = decide(
    layered(s.world),
    { kind: 'turn', principal: ann, intent: 'i\n1', object: 'lamp', method: 'receive', spell: 'fill measures=0' },
    11_000,
    programs,
    defaultOptions,
  );
  assert.is(again.kind, 'repeat');
  // A snapshot of a snapshot (values partly decoded, partly text) is the same again.
  assert.equal(plain(roundTrip(s.world).world), plain(s.world));
});

test('keys of every spelling come back as they were', () => {
  const w = blankWorld();
  const keys = ['plain', 'quote"d', 'back\\slash', 'new\nline', 'tab\there', 'é and 🦊', '', '"', 'guest:town.test:ann\ni1'];
  for (const k of keys) w.intents.set(k, { fingerprint: 'f', cid: k });
  const s = roundTrip(w);
  assert.equal([...s.world.intents.keys()].sort(), [...keys].sort());
  for (const k of keys) assert.equal(s.world.intents.get(k), { fingerprint: 'f', cid: k });
});

test('a frozen snapshot written in steps is the world as it was frozen, whatever changes meanwhile', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-snap-'));
  try {
    const w = town();
    const before = plain(w);
    const frozen = frozenSnapshot({ format: snapshotFormat, world: w, lastCid: 'c' });
    const store = fileSnapshots(dir);
    const writing = store.saveInSteps('town', frozen);
    // The world moves on while the snapshot is written.
    run(w, { kind: 'turn', principal: ann, intent: 'later', object: 'notice-board', method: 'receive', spell: 'make kind=note' }, 20_000);
    await writing;
    const loaded = store.load('town')!;
    assert.equal(plain(loaded.world), before);
    // Read ahead (as a start does, off the event loop), the same snapshot; none for a world without one.
    store.readAhead!('town');
    assert.equal(plain((await store.loadAhead!('town'))!.world), before);
    assert.is(await store.loadAhead!('elsewhere'), undefined);
    assert.is(loaded.world.height, frozen.height);
    // Frozen again from a loaded (lazy) world: the same file, text written back undecoded.
    const again = frozenSnapshot(loaded);
    await store.saveInSteps('town', again);
    assert.equal(plain(store.load('town')!.world), before);
    assert.equal(fs.readdirSync(path.join(dir, 'snapshots')), ['town.snapshot'], 'no temporary file left');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a snapshot of another shape is refused', () => {
  assert.is(decodeSnapshot(Buffer.from('{"format":"x","lastCid":"c","plain":{},"maps":["cards"]}\n{"map":"cards"}\n')), undefined, 'Maps missing');
  assert.is(decodeSnapshot(Buffer.from('{"format":"x","lastCid":"c","plain":{},"maps":[]}\n[[1,2]]\n')), undefined, 'pairs before a map');
  assert.throws(() => decodeSnapshot(Buffer.from('{"format":')));
});

test('LazyMap answers as a Map does', () => {
  // Pairs lie in the source as lines; the last one may end without a newline.
  const source = Buffer.from('"a"\t{"n":1}\n"b"\t{"n":2}');
  const m = new LazyMap<string, { n: number }>(source);
  assert.ok(m.addLine(0, 11));
  assert.ok(m.addLine(12, source.length));
  assert.not.ok(m.addLine(0, 3), 'a line without a tab is no pair');
  assert.is(m.rawOf('b'), '{"n":2}', 'the text runs to the end of the source');
  m.set('c', { n: 3 });
  assert.is(m.size, 3);
  assert.ok(m.has('a') && m.has('c') && !m.has('z'));
  assert.equal(m.get('b'), { n: 2 });
  assert.is(m.get('b'), m.get('b'), 'decoded once');
  assert.is(m.size, 3);
  assert.equal([...m.keys()].sort(), ['a', 'b', 'c']);
  assert.equal([...m.values()].map((v) => v.n).sort(), [1, 2, 3]);
  assert.is(m.delete('a'), true);
  assert.is(m.delete('a'), false);
  assert.is(m.size, 2);
  m.set('b', { n: 20 });
  assert.equal(m.get('b'), { n: 20 });
  assert.equal(
    new Map(m),
    new Map([
      ['b', { n: 20 }],
      ['c', { n: 3 }],
    ]),
  );
  const over = layered({ ...blankWorld(), receipts: m as never } as World);
  assert.ok(over.receipts.has('c'));
  m.clear();
  assert.is(m.size, 0);
});

test('LazyMap keeps answering as a Map does through thousands of keys read, set and deleted', () => {
  // Keys of every spelling (escapes a writer may use, \u ones included; non-ASCII; a number), so
  // the table's hash of a line's bytes and of a looked-up string must agree.
  const keys: unknown[] = [];
  for (let i = 0; i < 3000; i++) keys.push(i % 7 === 0 ? `guest:t\n${i}` : i % 11 === 0 ? `é${i}🦊` : `k${i}`);
  keys.push(42, 'a');
  const lines = keys.map((k, i) => `${k === 'a' ? '"\\u0061"' : JSON.stringify(k)}\t${JSON.stringify({ n: i })}`);
  lines.push(`"k5"\t${JSON.stringify({ n: -5 })}`); // a key written twice reads as its later value
  const source = Buffer.from(lines.join('\n'));
  const m = new LazyMap<unknown, { n: number }>(source);
  const plainMap = new Map<unknown, { n: number }>();
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    const end = source.indexOf(10, at) < 0 ? source.length : source.indexOf(10, at);
    assert.ok(m.addLine(at, end));
    at = end + 1;
    plainMap.set(i < keys.length ? keys[i] : 'k5', { n: i < keys.length ? i : -5 });
  }
  assert.is(m.size, plainMap.size);
  assert.equal(m.get('a'), { n: 3001 }, 'a key spelt with \\u escapes');
  assert.equal(m.get(42), { n: 3000 }, 'a key that is no string');
  assert.equal(m.get('k5'), { n: -5 });
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let step = 0; step < 20_000; step++) {
    const k = random(10) === 0 ? `absent${step}` : keys[random(keys.length)];
    const op = random(4);
    if (op === 0) assert.equal(m.get(k), plainMap.get(k));
    else if (op === 1) assert.is(m.has(k), plainMap.has(k));
    else if (op === 2) {
      m.set(k, { n: step });
      plainMap.set(k, { n: step });
    } else assert.is(m.delete(k), plainMap.delete(k));
  }
  assert.is(m.size, plainMap.size);
  assert.equal(new Map([...m].sort((a, b) => a[1].n - b[1].n)), new Map([...plainMap].sort((a, b) => a[1].n - b[1].n)));
});

test.run();

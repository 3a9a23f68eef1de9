/**
 * Scratch worlds: what opening a fork of the town costs as the town grows, and what an open
 * scratch world weighs. Two towns are built in the same run, one with the genesis town's dozen
 * cards and one with `--cards` (100,000) more cards visible to the forker; each is forked
 * (`from: {world: "town"}`, at the head) a few times and the median time and the fork entry's
 * journal bytes are printed side by side (goal: within 2x of each other). Then `--worlds` (100)
 * empty worlds are opened, each with one card made, and the heap they hold after a full
 * collection is divided among them (goal: under 2 MB each beyond what they wrote).
 *
 *   npm run bench -- scratch [--cards=100000] [--worlds=100]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { defaultOptions } from '../src/cards/kernel/options.js';
import { ScratchWorlds } from '../src/commands/scratch-service.js';
import { settingsFromEnv } from '../src/config.js';
import { worldStream } from '../src/events/world.js';
import { openTown, type Town } from '../src/town.js';
import { flag, median } from './turns-figures.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const maker = (town: Town) => ({ principal: `guest:${town.config.host}:maker`, name: 'maker' });

async function townWith(cards: number): Promise<{ town: Town; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-bench-scratch-'));
  const town = await openTown({ settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: false }, origin: 'http://bench.test' });
  const who = maker(town);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cards; i = next++) {
      await town.world.submit({ kind: 'turn', principal: who.principal, intent: `n${i}`, object: 'notice-board', method: 'receive', spell: 'make kind=note' });
    }
  };
  await Promise.all(Array.from({ length: 256 }, worker));
  return { town, dir };
}

/** The town's scratch worlds, as the server makes them. */
const scratchesOf = (town: Town) =>
  new ScratchWorlds({ events: town.events, programs: town.programs, clock: Date.now, options: () => defaultOptions, town: town.world, host: town.config.host });

async function forks(town: Town, times: number): Promise<{ ms: number; bytes: number; cards: number }> {
  const scratches = scratchesOf(town);
  const ms: number[] = [];
  let bytes = 0;
  let cards = 0;
  const guest = maker(town);
  for (let i = 0; i < times; i++) {
    const name = `f${i}`;
    const started = performance.now();
    await scratches.open({ ...guest, name: `maker${i}` }, name, { world: 'town' });
    ms.push(performance.now() - started);
    const [first] = await town.events.readStream(worldStream(`scratch.maker${i}.${name}.1`), { maxCount: 1 });
    bytes = Buffer.byteLength(JSON.stringify(first?.data ?? null));
    cards = (await scratches.world({ ...guest, name: `maker${i}` }, name)).service.current.cards.size;
  }
  await scratches.close();
  return { ms: median(ms), bytes, cards };
}

/** The heap `worlds` open scratch worlds hold, each a fork of the genesis town with one card made. */
async function weight(town: Town, worlds: number): Promise<number> {
  const scratches = scratchesOf(town);
  const source = 'type C:\n  n: Natural\n\ndef initial() -> C:\n  return C { n: 0 }\n';
  // One world opened and dropped first, so what every world shares (compiled code) is not counted.
  await scratches.open({ principal: 'guest:bench.test:warm', name: 'warm' }, 'w', { world: 'town' });
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < worlds; i++) {
    const guest = { principal: `guest:bench.test:w${i}`, name: `w${i}` };
    await scratches.open(guest, 'w', { world: 'town' });
    const w = await scratches.world(guest, 'w');
    await w.service.submit({ kind: 'create', principal: guest.principal, intent: 'c', object: 'c', source, entry: 'initial' });
  }
  gc();
  gc();
  const per = (process.memoryUsage().heapUsed - before) / worlds / 1048576;
  await scratches.close();
  return per;
}

export async function main(args: string[]): Promise<void> {
  const big = flag(args, 'cards', 100_000);
  const worlds = flag(args, 'worlds', 100);
  const made: { town: Town; dir: string }[] = [];
  try {
    const small = await townWith(0);
    made.push(small);
    const per = await weight(small.town, worlds);
    console.log(`${worlds} scratch worlds open (forks of the genesis town, a card made in each): ${per.toFixed(2)} MB of heap each (goal: under 2 MB)`);

    console.log(`building a town of ${big} more cards (a note each, made by turns)…`);
    const large = await townWith(big);
    made.push(large);
    const a = await forks(small.town, 5);
    const b = await forks(large.town, 5);
    console.log('fork of the town at its head, median of 5:');
    console.log(`  ${String(a.cards).padStart(7)} cards: ${a.ms.toFixed(1)} ms, fork entry ${a.bytes} bytes`);
    console.log(`  ${String(b.cards).padStart(7)} cards: ${b.ms.toFixed(1)} ms, fork entry ${b.bytes} bytes`);
    console.log(`  ratio: time ${(b.ms / a.ms).toFixed(1)}x, bytes ${(b.bytes / a.bytes).toFixed(1)}x (goal: within 2x)`);
  } finally {
    for (const { town, dir } of made) {
      await town.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

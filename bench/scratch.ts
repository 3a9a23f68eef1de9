/**
 * Scratch worlds: what opening a fork of the town costs as the town grows, and what an open
 * scratch world weighs. Two towns are built in the same run, one with the genesis town's dozen
 * cards and one with `--cards` (100,000) more cards visible to the forker; each is forked
 * (`from: {world: "town"}`, at the head) `--forks` (11) times, the two alternating so the
 * machine's moments fall on both alike, and the median time and the fork entry's journal bytes
 * are printed side by side (goal: within 2x of each other). Then `--worlds` (100) worlds are
 * opened, each a fork of the genesis town with one card made, and the heap they hold after a
 * full collection is divided among them (goal: under 2 MB each beyond what they wrote); and the
 * same for `--big-worlds` (20) forks of the large town, each with a card made and the town
 * changing under it (a fork reads through to the town, so it must weigh no more).
 *
 *   npm run bench -- scratch [--cards=100000] [--forks=11] [--worlds=100] [--big-worlds=20]
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

interface Forks {
  ms: number[];
  bytes: number;
  cards: number;
}

/** The `i`-th fork of `town`: its time to open, its entry's journal bytes, the cards it shows. */
async function forkOnce(town: Town, scratches: ScratchWorlds, i: number, into: Forks): Promise<void> {
  const guest = maker(town);
  const name = `f${i}`;
  const started = performance.now();
  await scratches.open({ ...guest, name: `maker${i}` }, name, { world: 'town' });
  into.ms.push(performance.now() - started);
  const [first] = await town.events.readStream(worldStream(`scratch.maker${i}.${name}.1`), { maxCount: 1 });
  into.bytes = Buffer.byteLength(JSON.stringify(first?.data ?? null));
  into.cards = (await scratches.world({ ...guest, name: `maker${i}` }, name)).service.current.cards.size;
}

/** Forks of two towns, alternating, `times` each. */
async function forks(small: Town, large: Town, times: number): Promise<[Forks, Forks]> {
  const out: [Forks, Forks] = [
    { ms: [], bytes: 0, cards: 0 },
    { ms: [], bytes: 0, cards: 0 },
  ];
  const s = [scratchesOf(small), scratchesOf(large)] as const;
  for (let i = 0; i < times; i++) {
    await forkOnce(small, s[0], i, out[0]);
    await forkOnce(large, s[1], i, out[1]);
  }
  await Promise.all(s.map((x) => x.close()));
  return out;
}

/**
 * The heap `worlds` open scratch worlds hold, each a fork of `town` with one card made; with
 * `churn`, the town makes that many cards while they are open (what a fork's history holds).
 */
async function weight(town: Town, worlds: number, churn = 0): Promise<number> {
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
    for (let k = 0; k < churn / worlds; k++) {
      const who = maker(town);
      await town.world.submit({ kind: 'turn', principal: who.principal, intent: `churn${i}.${k}`, object: 'lamp', method: 'fill', fields: { measures: 0 } });
    }
  }
  gc();
  gc();
  const per = (process.memoryUsage().heapUsed - before) / worlds / 1048576;
  await scratches.close();
  return per;
}

export async function main(args: string[]): Promise<void> {
  const big = flag(args, 'cards', 100_000);
  const times = flag(args, 'forks', 11);
  const worlds = flag(args, 'worlds', 100);
  const bigWorlds = flag(args, 'big-worlds', 20);
  const made: { town: Town; dir: string }[] = [];
  try {
    const small = await townWith(0);
    made.push(small);
    const per = await weight(small.town, worlds);
    console.log(`${worlds} scratch worlds open (forks of the genesis town, a card made in each): ${per.toFixed(2)} MB of heap each (goal: under 2 MB)`);

    console.log(`building a town of ${big} more cards (a note each, made by turns)…`);
    const large = await townWith(big);
    made.push(large);
    const [a, b] = await forks(small.town, large.town, times);
    const [am, bm] = [median(a.ms), median(b.ms)];
    const spread = (f: Forks) => `${Math.min(...f.ms).toFixed(1)}–${Math.max(...f.ms).toFixed(1)}`;
    console.log(`fork of the town at its head, median of ${times} (alternating):`);
    console.log(`  ${String(a.cards).padStart(7)} cards: ${am.toFixed(1)} ms (${spread(a)}), fork entry ${a.bytes} bytes`);
    console.log(`  ${String(b.cards).padStart(7)} cards: ${bm.toFixed(1)} ms (${spread(b)}), fork entry ${b.bytes} bytes`);
    console.log(`  ratio: time ${(bm / am).toFixed(1)}x, bytes ${(b.bytes / a.bytes).toFixed(1)}x (goal: within 2x)`);
    if (bigWorlds > 0) {
      const perBig = await weight(large.town, bigWorlds, bigWorlds * 50);
      console.log(
        `${bigWorlds} forks of the ${b.cards}-card town open, a card made in each, 50 turns of the town under each: ${perBig.toFixed(2)} MB of heap each (goal: under 2 MB)`,
      );
    }
  } finally {
    for (const { town, dir } of made) {
      await town.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

/**
 * Carries: what a world service holds after a start from the new epoch, against a start of the
 * uncarried town (goal: under 25 %), and how long the carry takes. The town is `--steps`
 * (20,000) steps of the kernel tests' random play (turns, casts, plans, tries, repeats,
 * deliveries, arrivals: about 0.8 entries a step) in an embedded store; each start is measured
 * in a process of its own after a full collection (heap used and resident set), no snapshot.
 *
 *   npm run bench -- carry [--steps=20000]
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { carry } from '../src/commands/carry.js';
import { TOWN_WORLD } from '../src/events/world.js';
import { openEmbeddedEventStore } from '../src/stores/embedded/event-store.js';
import { openService, playedTown, storeTown } from '../test/world/carry-town.js';
import { flag } from './turns-figures.js';

const self = fileURLToPath(import.meta.url);

interface Started {
  height: number;
  replayed: number;
  ms: number;
  heapMb: number;
  rssMb: number;
  /** Heap the world service holds beyond the process before it opened. */
  worldMb: number;
}

/** Starts a world service on `dir` in a child process and answers what it holds. */
function startIn(dir: string): Promise<Started> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [self, '--child', dir], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Started);
    });
  });
}

async function child(dir: string): Promise<void> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const h = playedTown(1, 1); // options and programs only: the town itself is read from the store
  const events = await openEmbeddedEventStore({ dataDir: dir });
  gc();
  gc();
  const base = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const service = await openService(events, h, Date.now);
  const ms = performance.now() - t0;
  gc();
  gc();
  const m = process.memoryUsage();
  const out: Started = {
    height: service.height,
    replayed: service.stats.replayed,
    ms,
    heapMb: m.heapUsed / 1048576,
    rssMb: m.rss / 1048576,
    worldMb: (m.heapUsed - base) / 1048576,
  };
  // the world is still held here: what was measured is what a running town keeps
  if (service.committed.cards.size < 0) console.log('');
  process.stdout.write(`${JSON.stringify(out)}\n`);
  await events.close();
}

export async function main(args: string[]): Promise<void> {
  const steps = flag(args, 'steps', 20_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'town-bench-carry-'));
  try {
    const t0 = performance.now();
    const h = playedTown(steps, 17);
    const events = await openEmbeddedEventStore({ dataDir: dir, maxAppendSize: 64 << 20 });
    await storeTown(events, h);
    await events.close();
    console.log(
      `town: ${h.world.height} entries, ${h.world.cards.size} cards, ${h.world.intents.size} intents (built in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );

    const before = await startIn(dir);
    // the store's default largest append (1 MiB, as EventStoreDB's): a large carry goes in parts
    const store = await openEmbeddedEventStore({ dataDir: dir });
    const c0 = performance.now();
    const done = await carry({ events: store, world: TOWN_WORLD, archiveDir: path.join(dir, 'archive'), clock: Date.now });
    const carryMs = performance.now() - c0;
    const parts = await store.readStream(`world-town@${done.height}`, { maxCount: done.parts.length });
    const partsKb = parts.reduce((n, e) => n + JSON.stringify(e.data).length, 0) / 1024;
    await store.close();
    const after = await startIn(dir);
    const archiveMb = fs.statSync(path.join(dir, 'archive', done.archive)).size / 1048576;

    console.log(
      `carry: ${carryMs.toFixed(0)} ms for ${done.entries} entries (archive ${archiveMb.toFixed(1)} MB; the carry in ${done.parts.length} part(s), ${partsKb.toFixed(0)} KB in all)`,
    );
    const row = (name: string, s: Started) =>
      console.log(
        `${name.padEnd(22)} height ${String(s.height).padStart(7)}  replayed ${String(s.replayed).padStart(7)}  start ${s.ms.toFixed(0).padStart(6)} ms  world ${s.worldMb.toFixed(1).padStart(7)} MB  heap ${s.heapMb.toFixed(1).padStart(7)} MB  rss ${s.rssMb.toFixed(1).padStart(7)} MB`,
      );
    row('uncarried start', before);
    row('start from new epoch', after);
    const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(1)} %`;
    console.log(
      `after the carry: the world ${pct(after.worldMb, before.worldMb)} of the uncarried one's (goal < 25 %); heap ${pct(after.heapMb, before.heapMb)}, rss ${pct(after.rssMb, before.rssMb)}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  child(process.argv[3]!).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}

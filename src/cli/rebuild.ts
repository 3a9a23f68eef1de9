/**
 * `npm run rebuild [-- <projection> … | snapshot]`: drops the named read models (all when none is
 * named), folds the whole journal into them again in one pass with a progress bar (events/s,
 * ETA), recording the version of each fold it built them with, and prints each read model's digest, which equals the digest of live read models that
 * folded the same journal (`npm run digest`). With no name (or `snapshot`) it also replays the
 * journal into a fresh snapshot of the world (embedded store), the other derived data. Run it on a stopped town, or on a copy of its data directory
 * (TOWN_DATA=/path/to/copy npm run rebuild). `--live` rebuilds a running town's read models
 * without stopping it (see live() below).
 */
import { settingsFromEnv } from '../config.js';
import { libraryPrograms } from '../cards/kernel/library.js';
import { openEventStore } from '../stores/open-event-store.js';
import { openReadStore } from '../stores/open-read-store.js';
import { allProjections } from '../projectors/registry.js';
import { loadRepositoryKeys } from '../repository/keys.js';
import { chooseProjections } from '../projectors/worker.js';
import { progressBar, rebuildProjections } from '../projections/rebuild.js';
import { digestProjection } from '../projections/digest.js';
import fs from 'node:fs';
import path from 'node:path';
import { defaultOptions } from '../cards/kernel/options.js';
import { WorldService } from '../commands/world-service.js';
import { fileSnapshots } from '../commands/snapshot/world-snapshot.js';
import { TOWN_WORLD, worldStream } from '../events/world.js';
import type { EventStore } from '../stores/event-store.js';
import { rebuildLive } from '../projections/live-rebuild.js';
import { callControl } from './control.js';

/**
 * The world's snapshot is derived data too: replayed from the journal alone and written again
 * (embedded store only; a town on EventStoreDB keeps none).
 */
async function rebuildSnapshot(events: EventStore, dataDir: string): Promise<string> {
  if ((await events.streamRevision(worldStream(TOWN_WORLD))) === undefined) return 'no journal: no snapshot';
  fs.rmSync(path.join(dataDir, 'snapshots'), { recursive: true, force: true });
  const started = performance.now();
  const world = new WorldService({
    events,
    programs: libraryPrograms(),
    clock: Date.now,
    options: () => defaultOptions,
    genesis: { host: '', opener: 'town' },
    snapshots: fileSnapshots(dataDir),
  });
  await world.open();
  await world.close();
  return `snapshot of ${TOWN_WORLD} at height ${world.height} written in ${((performance.now() - started) / 1000).toFixed(2)} s`;
}

/**
 * `--live`: every read model into the next generation while the town serves, then the switch
 * (projections/live-rebuild.ts). The running town does it (its control socket): only it can
 * suspend its projectors. With no town running on these stores it is done here, the same way.
 */
async function live(named: string[]): Promise<number> {
  if (named.length) {
    console.error('a live rebuild rebuilds every read model (a generation is whole): name none');
    return 2;
  }
  const settings = settingsFromEnv();
  const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };
  if (!settings.eventStoreUrl) {
    const code = await callControl(settings.dataDir, 'rebuild-live', [], io);
    if (code !== undefined) return code;
  }
  if (settings.mongoUrl) {
    // Projector workers and fronts in other processes read the generation they opened: they
    // would go on with the old one. See docs/decisions/live-rebuild-and-generations.md.
    console.error(
      'no town answers on this TOWN_DATA: with MongoDB, run --live through the town that folds the read models (TOWN_PROJECTORS=inline, embedded journal), or stop the workers and run npm run rebuild',
    );
    return 2;
  }
  const events = await openEventStore({ url: settings.eventStoreUrl, dataDir: settings.dataDir });
  const reads = await openReadStore({ url: settings.mongoUrl, dataDir: settings.dataDir });
  try {
    const all = allProjections(libraryPrograms(), settings.signing !== false ? { keys: () => loadRepositoryKeys(settings.dataDir) } : {});
    const bar = progressBar();
    const result = await rebuildLive({ events, reads, projections: Object.values(all), projectors: [], onProgress: bar.onProgress, onStep: io.err });
    bar.end();
    console.log(
      `rebuilt every read model: ${result.events.toLocaleString('en')} events in ${result.seconds.toFixed(2)} s; generation ${result.generation} (was ${result.from})`,
    );
    for (const p of Object.values(all)) {
      const d = await digestProjection(reads, p);
      console.log(`digest ${d.projection} ${d.documents} ${d.sha256}`);
    }
    return 0;
  } finally {
    await reads.close();
    await events.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const named = argv.filter((a) => !a.startsWith('--'));
  if (argv.includes('--live')) return live(named);
  const unknown = argv.filter((a) => a.startsWith('--'));
  if (unknown.length) {
    console.error(`rebuild does not take ${unknown.join(' ')} (only --live)`);
    return 2;
  }
  const snapshot = named.length === 0 || named.includes('snapshot');
  const names = named.length && named.every((n) => n === 'snapshot') ? [] : chooseProjections(named.filter((n) => n !== 'snapshot'));
  const settings = settingsFromEnv();
  const events = await openEventStore({ url: settings.eventStoreUrl, dataDir: settings.dataDir, maxAppendSize: settings.maxAppendSize });
  const reads = await openReadStore({ url: settings.mongoUrl, dataDir: settings.dataDir });
  try {
    // The repository signs with this box's keys, as the live projection did.
    const all = allProjections(libraryPrograms(), settings.signing !== false ? { keys: () => loadRepositoryKeys(settings.dataDir) } : {});
    const chosen = names.map((n) => all[n]);
    if (!chosen.length) {
      if (snapshot && !settings.eventStoreUrl) console.log(await rebuildSnapshot(events, settings.dataDir));
      return 0;
    }
    const bar = progressBar();
    const result = await rebuildProjections(events, reads, chosen, { onProgress: bar.onProgress });
    bar.end();
    console.log(
      `rebuilt ${names.join(', ')}: ${result.events.toLocaleString('en')} events in ${result.seconds.toFixed(2)} s (${Math.round(result.events / Math.max(result.seconds, 1e-9)).toLocaleString('en')} events/s)`,
    );
    for (const p of chosen) {
      const d = await digestProjection(reads, p);
      console.log(`digest ${d.projection} ${d.documents} ${d.sha256}`);
    }
    if (snapshot && !settings.eventStoreUrl) console.log(await rebuildSnapshot(events, settings.dataDir));
    return 0;
  } finally {
    await reads.close();
    await events.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);

/**
 * `npm run rebuild [-- <projection> … | snapshot]`: drops the named read models (all when none is
 * named), folds the whole journal into them again in one pass with a progress bar (events/s,
 * ETA), recording the version of each fold it built them with, and prints each read model's digest, which equals the digest of live read models that
 * folded the same journal (`npm run digest`). With no name (or `snapshot`) it also replays the
 * journal into a fresh snapshot of the world (embedded store), the other derived data. Run it on a stopped town, or on a copy of its data directory
 * (TOWN_DATA=/path/to/copy npm run rebuild). `--live` rebuilds a running town's read models
 * without stopping it (see live() below). `--workers=<n>` (embedded stores only) folds the read
 * models in n processes at once, split by what each costs to fold (projections/rebuild-groups.ts,
 * cli/rebuild-workers.ts), and prints the same digests.
 */
import { settingsFromEnv } from '../config.js';
import { libraryPrograms } from '../cards/kernel/library.js';
import { openEventStore } from '../stores/open-event-store.js';
import { openReadStore } from '../stores/open-read-store.js';
import { allProjections } from '../projectors/registry.js';
import { loadRepositoryKeys } from '../repository/keys.js';
import { chooseProjections } from '../projectors/worker.js';
import { prepareRebuild, progressBar, rebuildProjections, type RebuildResult } from '../projections/rebuild.js';
import { rebuildGroups } from '../projections/rebuild-groups.js';
import { foldInGroups } from './rebuild-workers.js';
import { digestProjection } from '../projections/digest.js';
import fs from 'node:fs';
import path from 'node:path';
import { defaultOptions } from '../cards/kernel/options.js';
import { WorldService } from '../commands/world-service.js';
import { fileSnapshots } from '../commands/snapshot/world-snapshot.js';
import { TOWN_WORLD, worldStream } from '../events/world.js';
import type { EventStore } from '../stores/event-store.js';
import type { Lease, ReadStore } from '../stores/read-store.js';
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

/** `--workers=<n>`: how many processes fold the read models (1 when not given). */
function workersOf(flags: string[]): number | string {
  const given = flags.filter((a) => a.startsWith('--workers='));
  if (!given.length) return 1;
  const value = given.at(-1)!.slice('--workers='.length);
  if (!/^[1-9]\d*$/.test(value)) return `--workers takes a number of processes, 1 or more (not ${value || 'nothing'})`;
  return Number(value);
}

async function main(argv: string[]): Promise<number> {
  const named = argv.filter((a) => !a.startsWith('--'));
  const flags = argv.filter((a) => a.startsWith('--'));
  const workers = workersOf(flags);
  if (typeof workers === 'string') {
    console.error(workers);
    return 2;
  }
  if (argv.includes('--live')) {
    if (flags.some((a) => a.startsWith('--workers='))) {
      console.error('a live rebuild folds in the town: it takes no --workers');
      return 2;
    }
    return live(named);
  }
  const unknown = flags.filter((a) => !a.startsWith('--workers='));
  if (unknown.length) {
    console.error(`rebuild does not take ${unknown.join(' ')} (only --live and --workers=<n>)`);
    return 2;
  }
  const snapshot = named.length === 0 || named.includes('snapshot');
  const names = named.length && named.every((n) => n === 'snapshot') ? [] : chooseProjections(named.filter((n) => n !== 'snapshot'));
  const settings = settingsFromEnv();
  if (workers > 1 && (settings.eventStoreUrl || settings.mongoUrl)) {
    // The groups follow the embedded journal and share the embedded read store's file.
    console.error('--workers rebuilds the embedded stores only: with EVENTSTORE_URL or MONGO_URL, run npm run rebuild without it');
    return 2;
  }
  const groups = rebuildGroups(names, workers);
  const events = await openEventStore({ url: settings.eventStoreUrl, dataDir: settings.dataDir, maxAppendSize: settings.maxAppendSize });
  let reads = await openReadStore({ url: settings.mongoUrl, dataDir: settings.dataDir });
  try {
    // The repository signs with this box's keys, as the live projection did.
    const all = allProjections(libraryPrograms(), settings.signing !== false ? { keys: () => loadRepositoryKeys(settings.dataDir) } : {});
    const chosen = names.map((n) => all[n]);
    if (!chosen.length) {
      if (snapshot && !settings.eventStoreUrl) console.log(await rebuildSnapshot(events, settings.dataDir));
      return 0;
    }
    // Projector workers that fold these read models (beside a town, or left running after it
    // stopped) would fold into them as they are rebuilt: while a live one holds a lease, the
    // rebuild is refused; taking the leases fences the workers' later units out.
    const held = await holdLeases(
      () => reads,
      chosen.map((p) => p.name),
    );
    if (typeof held === 'string') {
      console.error(held);
      return 2;
    }
    const bar = progressBar();
    let result: RebuildResult;
    if (groups.length > 1) {
      // Emptied here, while this process is the store's only one (a drop may compact the file);
      // then each group's process folds into the store opened shared, and this one reads it after.
      await prepareRebuild(reads, chosen);
      await reads.close();
      const head = (await events.headPosition()) ?? 0n;
      const started = performance.now();
      const results = await foldInGroups(groups, { head, onProgress: bar.onProgress, onStart: (line) => console.error(line) }).finally(() => bar.end());
      result = { events: Math.max(...results.map((r) => r.events)), seconds: (performance.now() - started) / 1000, splits: 0 };
      reads = await openReadStore({ url: settings.mongoUrl, dataDir: settings.dataDir });
    } else {
      result = await rebuildProjections(events, reads, chosen, { onProgress: bar.onProgress });
      bar.end();
    }
    console.log(
      `rebuilt ${names.join(', ')}: ${result.events.toLocaleString('en')} events in ${result.seconds.toFixed(2)} s (${Math.round(result.events / Math.max(result.seconds, 1e-9)).toLocaleString('en')} events/s)${groups.length > 1 ? ` in ${groups.length} processes` : ''}`,
    );
    for (const p of chosen) {
      const d = await digestProjection(reads, p);
      console.log(`digest ${d.projection} ${d.documents} ${d.sha256}`);
    }
    if (snapshot && !settings.eventStoreUrl) console.log(await rebuildSnapshot(events, settings.dataDir));
    return 0;
  } finally {
    await leases?.release();
    await reads.close();
    await events.close();
  }
}

/** The rebuild's hold on its projections' leases, renewed while it runs. */
interface HeldLeases {
  release(): Promise<void>;
}
let leases: HeldLeases | undefined;

const rebuildLeaseMs = 60_000;

/** `store`: the read store as it is now (the rebuild in groups closes and opens it again). */
async function holdLeases(store: () => ReadStore, projections: string[]): Promise<HeldLeases | string> {
  const holder = `rebuild-${process.pid}`;
  const taken: Lease[] = [];
  for (const projection of projections) {
    const lease = await store().acquireLease(projection, holder, rebuildLeaseMs);
    if (!lease) {
      for (const l of taken) await store().releaseLease(l);
      return `a projector worker holds ${projection}: stop the workers (npm run projector) before a rebuild`;
    }
    taken.push(lease);
  }
  const renewer = setInterval(() => {
    for (const [i, l] of taken.entries())
      void store()
        .renewLease(l, rebuildLeaseMs)
        .then(
          (renewed) => renewed && (taken[i] = renewed),
          () => undefined,
        );
  }, rebuildLeaseMs / 3);
  leases = {
    async release() {
      clearInterval(renewer);
      for (const l of taken)
        await store()
          .releaseLease(l)
          .catch(() => undefined);
    },
  };
  return leases;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);

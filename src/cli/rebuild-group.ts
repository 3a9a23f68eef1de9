/**
 * One process of `npm run rebuild -- --workers=n` (cli/rebuild-workers.ts starts one per group):
 *
 *   node dist/src/cli/rebuild-group.js <projection> … --head=<position>
 *
 * folds the whole journal, up to the head the rebuild names, into its group's read models, which
 * the rebuild has already emptied (prepareRebuild). The rebuild owns the journal, so this process
 * follows it read-only (journal-client.ts), and writes into the read store opened shared,
 * beside the other groups' processes (docs/decisions/embedded-workers.md, "Rebuild across
 * cores"). Its progress and its result go to the rebuild over the IPC channel; run alone, it
 * draws its own progress bar and prints its result.
 */
import { settingsFromEnv } from '../config.js';
import { libraryPrograms } from '../cards/kernel/library.js';
import { foldJournal, progressBar, type Progress, type RebuildResult } from '../projections/rebuild.js';
import { allProjections } from '../projectors/registry.js';
import { chooseProjections } from '../projectors/worker.js';
import { loadRepositoryKeys } from '../repository/keys.js';
import { openJournalClient } from '../stores/embedded/journal-client.js';
import { openReadStore } from '../stores/open-read-store.js';

/** What this process tells the rebuild that started it (imported as a type only: importing this file runs it). */
export type GroupMessage = { progress: Progress } | { result: RebuildResult };

async function main(argv: string[]): Promise<number> {
  const headFlag = argv.find((a) => a.startsWith('--head='))?.slice('--head='.length);
  const unknown = argv.filter((a) => a.startsWith('--') && !a.startsWith('--head='));
  if (unknown.length || (headFlag !== undefined && !/^\d+$/.test(headFlag))) {
    console.error(`rebuild-group takes projection names and --head=<position>, not ${[...unknown, headFlag ?? ''].join(' ').trim()}`);
    return 2;
  }
  const names = chooseProjections(argv.filter((a) => !a.startsWith('--')));
  const settings = settingsFromEnv();
  if (settings.eventStoreUrl || settings.mongoUrl) {
    console.error('a rebuild group folds the embedded journal into the embedded read store: EVENTSTORE_URL and MONGO_URL must be empty');
    return 2;
  }
  const events = await openJournalClient({ dataDir: settings.dataDir });
  const reads = await openReadStore({ dataDir: settings.dataDir, shared: true });
  try {
    const durable = (await events.headPosition()) ?? 0n;
    const head = headFlag === undefined ? durable : BigInt(headFlag);
    // The owner publishes its durable end on open: below the head, events would be left out.
    if (durable < head) throw new Error(`the journal's durable mark (${durable}) is below the head to fold (${head})`);
    const all = allProjections(libraryPrograms(), settings.signing !== false ? { keys: () => loadRepositoryKeys(settings.dataDir) } : {});
    const chosen = names.map((n) => all[n]);
    const send = process.send?.bind(process);
    const tell = (message: GroupMessage) => new Promise<void>((resolve) => (send ? send(message, undefined, {}, () => resolve()) : resolve()));
    const bar = send ? undefined : progressBar();
    const result = await foldJournal(events, reads, chosen, {
      head,
      onProgress: (p) => (bar ? bar.onProgress(p) : void tell({ progress: p })),
    });
    bar?.end();
    if (send) await tell({ result });
    else console.log(`folded ${names.join(', ')}: ${result.events.toLocaleString('en')} events in ${result.seconds.toFixed(2)} s`);
    return 0;
  } finally {
    await reads.close();
    await events.close();
  }
}

// A rebuild that is gone (killed) no longer waits for this group: it stops too.
process.on('disconnect', () => process.exit(3));

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);

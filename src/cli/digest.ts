/**
 * `npm run digest [-- <projection> …]`: prints the digest of each live read model (all when none
 * is named) as `digest <projection> <documents> <sha256>`, the same lines `npm run rebuild`
 * ends with, so the two can be compared line for line.
 */
import { settingsFromEnv } from '../config.js';
import { libraryPrograms } from '../cards/kernel/library.js';
import { openReadStore } from '../stores/open-read-store.js';
import { allProjections } from '../projectors/registry.js';
import { chooseProjections } from '../projectors/worker.js';
import { digestProjection } from '../projections/digest.js';

async function main(argv: string[]): Promise<number> {
  const names = chooseProjections(argv.filter((a) => !a.startsWith('--')));
  const settings = settingsFromEnv();
  const reads = await openReadStore({ url: settings.mongoUrl, dataDir: settings.dataDir });
  try {
    const all = allProjections(libraryPrograms());
    for (const n of names) {
      const d = await digestProjection(reads, all[n]);
      const at = await reads.checkpoint(n);
      const built = await reads.version(n);
      console.log(`digest ${d.projection} ${d.documents} ${d.sha256}`);
      process.stderr.write(
        `${n}: checkpoint ${at === undefined ? 'none' : String(at)}, built by version ${built === undefined ? 'none recorded' : built} of its fold (now ${all[n].version})\n`,
      );
    }
    return 0;
  } finally {
    await reads.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);

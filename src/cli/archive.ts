/**
 * The archive's commands (`npm run town -- export | import`, src/archive): export works on a
 * running town (over its control socket, with the embedded stores) or a stopped one; import
 * only into an empty TOWN_DATA, so never through a running town.
 *
 *   export <file> [--no-secrets]   the journal, its digests and (unless --no-secrets) the keys
 *   import <file>                  a town from an archive, into an empty TOWN_DATA
 *   verify <file>                  check an archive (shape, order, count, checksum), print its end
 */
import path from 'node:path';
import { settingsFromEnv, type Settings } from '../config.js';
import { libraryPrograms } from '../cards/kernel/library.js';
import { allProjections } from '../projectors/registry.js';
import { progressBar, type ProgressOut } from '../projections/rebuild.js';
import { loadRepositoryKeys } from '../repository/keys.js';
import type { EventStore } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import { exportTown } from '../archive/export.js';
import { archiveUsage } from './archive-commands.js';

/**
 * `verify`: reads the archive whole without writing anything, as import does first; prints what
 * its end line promises. Exit 1 when it fails its checks.
 */
export async function runVerify(args: string[], io: Pick<ArchiveIo, 'out' | 'err'>, cwd = process.cwd()): Promise<number> {
  if (args.length !== 1 || args[0]!.startsWith('--')) {
    io.err('verify takes one file');
    return 2;
  }
  const file = path.resolve(cwd, args[0]!);
  const { openArchive } = await import('../archive/import.js');
  const { ArchiveCorrupt, readArchive } = await import('../archive/format.js');
  try {
    const { header, trailer } = await readArchive(openArchive(file));
    io.out(
      `${file}: a ${header.format} archive of ${header.host ?? 'a town'}, ${trailer.events.toLocaleString('en')} events to position ${trailer.position ?? 'none'}, height ${trailer.height ?? 'none'}, ${header.secrets ? 'with the keys' : 'without secrets'}; checksum ${trailer.sha256} good`,
    );
    for (const d of trailer.digests) io.out(`digest ${d.projection} ${d.documents} ${d.sha256}`);
    return 0;
  } catch (error) {
    if (error instanceof ArchiveCorrupt || (error as NodeJS.ErrnoException).code === 'ENOENT') {
      io.err(`${file}: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}

export interface ArchiveIo {
  out(line: string): void;
  err(line: string): void;
  /** Where the progress bar is drawn (the terminal, or the operator's socket a line a second). */
  progress: ProgressOut;
}

/** `export` arguments: the file (made absolute against `cwd`) and whether to include the keys. */
export function exportArgs(args: string[], cwd: string): { file: string; secrets: boolean } | string {
  const files = args.filter((a) => !a.startsWith('--'));
  const flags = args.filter((a) => a.startsWith('--'));
  if (files.length !== 1) return 'export takes one file';
  const unknown = flags.filter((f) => f !== '--no-secrets');
  if (unknown.length) return `export does not take ${unknown.join(' ')}`;
  return { file: path.resolve(cwd, files[0]!), secrets: !flags.includes('--no-secrets') };
}

/** Runs `export` on these stores (the town's own, or opened on a stopped town's data). */
export async function runExport(
  args: string[],
  stores: { events: EventStore; reads: ReadStore; settings: Pick<Settings, 'dataDir' | 'signing'> },
  io: ArchiveIo,
  cwd = process.cwd(),
): Promise<number> {
  const parsed = exportArgs(args, cwd);
  if (typeof parsed === 'string') {
    io.err(parsed);
    for (const line of archiveUsage) io.err(`  ${line}`);
    return 2;
  }
  const { dataDir, signing } = stores.settings;
  const all = allProjections(libraryPrograms(), signing !== false ? { keys: () => loadRepositoryKeys(dataDir) } : {});
  const bar = progressBar(io.progress);
  const result = await exportTown({
    events: stores.events,
    reads: stores.reads,
    projections: Object.values(all),
    dataDir,
    ...(process.env.TOWN_SECRET ? { townSecret: process.env.TOWN_SECRET } : {}),
    secrets: parsed.secrets,
    file: parsed.file,
    onProgress: bar.onProgress,
    onStep: (line) => io.err(line),
  });
  bar.end();
  io.out(
    `exported ${result.events.toLocaleString('en')} events to ${result.file} (${result.bytes.toLocaleString('en')} bytes): position ${result.position ?? 'none'}, height ${result.height ?? 'none'}, ${result.secrets ? 'with the keys (keep it as secret as the data folder)' : 'without secrets'}`,
  );
  for (const d of result.digests) io.out(`digest ${d.projection} ${d.documents} ${d.sha256}`);
  return 0;
}

/**
 * `npm run town -- export | import | verify`: export through a running town (its control socket) or on the stopped
 * town's stores; import only into an empty TOWN_DATA, so never through a town.
 */
export async function runArchive(command: string, args: string[], cwd: string): Promise<number> {
  const settings = settingsFromEnv();
  const io = {
    out: (line: string) => process.stdout.write(`${line}\n`),
    err: (line: string) => process.stderr.write(`${line}\n`),
    progress: process.stderr,
  };
  if (command === 'verify') {
    return runVerify(args, io, cwd);
  }
  if (command === 'import') {
    if (args.length !== 1) {
      io.err('import takes one file');
      return 2;
    }
    const { importTown, ImportRefused } = await import('../archive/import.js');
    const bar = progressBar(process.stderr);
    try {
      const result = await importTown({ file: path.resolve(cwd, args[0]!), settings, onProgress: bar.onProgress, onStep: io.err });
      bar.end();
      io.out(
        `imported ${result.trailer.events.toLocaleString('en')} events into ${path.resolve(settings.dataDir)}: position ${result.trailer.position ?? 'none'}, height ${result.trailer.height ?? 'none'}`,
      );
      for (const d of result.digests)
        io.out(
          `digest ${d.projection} ${d.documents} ${d.sha256}${result.unchecked.includes(d.projection) ? ' (not compared: the archive has no keys, this town signs with its own)' : " (equals the archive's)"}`,
        );
      return 0;
    } catch (error) {
      bar.end();
      if (error instanceof ImportRefused) {
        io.err(`import refused: ${error.message}`);
        return 1;
      }
      throw error;
    }
  }
  const parsed = exportArgs(args, cwd);
  if (typeof parsed === 'string') {
    io.err(parsed);
    for (const line of archiveUsage) io.err(`  ${line}`);
    return 2;
  }
  if (!settings.eventStoreUrl) {
    // A running town owns its embedded stores: it writes the archive (to this absolute path).
    const { callControl } = await import('./control.js');
    const code = await callControl(settings.dataDir, 'export', [parsed.file, ...(parsed.secrets ? [] : ['--no-secrets'])], io);
    if (code !== undefined) return code;
  }
  const { openEventStore } = await import('../stores/open-event-store.js');
  const { openReadStore } = await import('../stores/open-read-store.js');
  const events = await openEventStore({ url: settings.eventStoreUrl, dataDir: settings.dataDir });
  try {
    const reads = await openReadStore({ url: settings.mongoUrl, dataDir: settings.dataDir });
    try {
      return await runExport(args, { events, reads, settings }, io, cwd);
    } finally {
      await reads.close();
    }
  } finally {
    await events.close();
  }
}

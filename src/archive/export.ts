/**
 * `npm run town -- export <file>`: the journal up to one position, with what verifies it, into
 * one archive (format.ts), while the town serves. The position is the head when the export
 * starts; the digests are of the read models folded from exactly the events up to it, built in
 * the read store's next generation beside the served one (as a live rebuild builds it) and
 * dropped after, so nothing pauses and what the archive promises is what an import must give.
 * The file is written beside its name and renamed into place: a file by that name is whole.
 *
 * What goes in besides the journal (docs/decisions/export-and-import.md): the repository's
 * public keys always; with secrets (the default, for a backup that restores a working town) the
 * MAC key (`secret.key`, or TOWN_SECRET's value) that keeps sessions and signs cookies, and the
 * repository's `commit.key` and `receipt.key`, without which the restored town would sign with
 * other keys (other commits, another did key). Credential hashes are in the journal itself (the
 * identity streams); nothing else is needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createGzip } from 'node:zlib';
import { once } from 'node:events';
import type { EventStore } from '../stores/event-store.js';
import type { ReadStore } from '../stores/read-store.js';
import type { Projection } from '../projections/projection.js';
import { digestProjection, type Digest } from '../projections/digest.js';
import { rebuildProjections, type Progress } from '../projections/rebuild.js';
import { buildingNext } from '../projections/live-rebuild.js';
import { streamStart, TOWN_WORLD, worldOfStream, worldStream } from '../events/world.js';
import { currentEpoch } from '../events/epochs.js';
import { commitKeyFile, loadRepositoryKeys, receiptKeyFile } from '../repository/keys.js';
import { publicKeys } from '../repository/identity.js';
import { archiveEvent, archiveFormat, LineWriter, type ArchiveHeader, type ArchiveTrailer } from './format.js';

/** The files of the data directory a restored town needs, by name (secret.key may come from TOWN_SECRET). */
export const secretFiles = ['secret.key', commitKeyFile, receiptKeyFile] as const;

export interface ExportOptions {
  events: EventStore;
  reads: ReadStore;
  /** Every read model, as the town folds them (the repository's signing with this box's keys). */
  projections: Projection[];
  /** The town's data directory: where its keys are. */
  dataDir: string;
  /** TOWN_SECRET, when the MAC key is given rather than kept in the data directory. */
  townSecret?: string;
  /** Include the keys a restored town needs (default true). */
  secrets?: boolean;
  file: string;
  onProgress?(p: Progress): void;
  onStep?(line: string): void;
}

export type ExportResult = Omit<ArchiveTrailer, 'sha256'> & { bytes: number; file: string; secrets: boolean };

export async function exportTown(o: ExportOptions): Promise<ExportResult> {
  const step = o.onStep ?? (() => undefined);
  const withSecrets = o.secrets !== false;
  const file = path.resolve(o.file);
  // Checked before the work: a path that cannot be written fails now, not after the fold.
  fs.accessSync(path.dirname(file), fs.constants.W_OK);
  const { position, digests } = await buildingNext(o.reads, 'an export', async () => {
    const scratch = o.reads.at(o.reads.generation + 1);
    await scratch.drop();
    try {
      await rebuildProjections(o.events, scratch, o.projections, o.onProgress ? { onProgress: o.onProgress } : {});
      const at = o.projections.length ? await scratch.checkpoint(o.projections[0]!.name) : await o.events.headPosition();
      const digests: Digest[] = [];
      for (const p of o.projections) digests.push(await digestProjection(scratch, p));
      return { position: at, digests };
    } finally {
      await scratch.drop();
    }
  });
  step(`read models folded and digested at position ${position ?? 'none'}`);

  // the genesis names the host; once a carry began the journal again (the first epoch's stream
  // deleted), the current epoch's carry entry does
  const genesis = (await o.events.readStream(worldStream(TOWN_WORLD), { maxCount: 1 }))[0];
  const carried = genesis ? undefined : (await o.events.readStream((await currentEpoch(o.events, TOWN_WORLD)).stream, { maxCount: 1 }))[0];
  const host = genesis
    ? (genesis.data as { world?: { host?: unknown } }).world?.host
    : (carried?.data as { carried?: { present?: { world?: { host?: unknown } } } } | undefined)?.carried?.present?.world?.host;
  const signing = secretFiles.slice(1).every((f) => fs.existsSync(path.join(o.dataDir, f)));
  const header: ArchiveHeader = {
    format: archiveFormat,
    host: typeof host === 'string' ? host : null,
    created: new Date().toISOString(),
    publicKeys: signing ? publicKeys(await loadRepositoryKeys(o.dataDir)) : null,
    secrets: withSecrets,
  };

  const partial = `${file}.partial-${process.pid}`;
  const gzip = createGzip();
  const out = fs.createWriteStream(partial, { mode: withSecrets ? 0o600 : 0o644 });
  const closed = new Promise<void>((resolve, reject) => {
    out.once('finish', resolve);
    out.once('error', reject);
    gzip.once('error', reject);
  });
  gzip.pipe(out);
  const writer = new LineWriter(async (text) => {
    if (!gzip.write(text)) await once(gzip, 'drain');
  });
  try {
    await writer.line({ archive: header });
    let events = 0;
    let height: number | null = null;
    if (position !== undefined) {
      for await (const e of o.events.readAll()) {
        if (e.position > position) break;
        await writer.line({ event: archiveEvent(e) });
        events++;
        // the town's entries lie in its epochs' streams (a carry begins one at its height)
        if (worldOfStream(e.stream) === TOWN_WORLD) height = Math.max(height ?? 0, streamStart(e.stream) + Number(e.revision));
      }
    }
    if (withSecrets) await writer.line({ secrets: readSecrets(o.dataDir, o.townSecret) });
    const trailer = { events, position: position === undefined ? null : position.toString(), height, digests };
    await writer.end(trailer);
    gzip.end();
    await closed;
    fs.renameSync(partial, file);
    return { ...trailer, bytes: fs.statSync(file).size, file, secrets: withSecrets };
  } catch (error) {
    gzip.destroy();
    out.destroy();
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

function readSecrets(dataDir: string, townSecret: string | undefined): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const name of secretFiles) {
    const file = path.join(dataDir, name);
    if (fs.existsSync(file)) secrets[name] = fs.readFileSync(file, 'utf8').trim();
  }
  if (townSecret) secrets['secret.key'] = townSecret;
  return secrets;
}

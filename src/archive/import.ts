/**
 * `npm run town -- import <file>`: a town from an archive (format.ts), into an empty TOWN_DATA.
 * The whole file is checked first (shape, order, count, checksum), so a damaged or truncated
 * archive is refused before anything is written; then the keys are written, the journal
 * appended event by event in its order (same streams, revisions and event ids; on the embedded
 * journal, the same positions), every read model folded from it, and each digest compared with
 * the archive's. Anything failing after the first write leaves the folder as empty as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { libraryPrograms } from '../cards/kernel/library.js';
import { projectionNames } from '../projections/index.js';
import { allProjections } from '../projectors/registry.js';
import { digestProjection, type Digest } from '../projections/digest.js';
import { rebuildProjections, type Progress } from '../projections/rebuild.js';
import { loadRepositoryKeys } from '../repository/keys.js';
import { EmbeddedEventStore } from '../stores/embedded/event-store.js';
import type { AppendResult, EventData, EventStore } from '../stores/event-store.js';
import { openEventStore } from '../stores/open-event-store.js';
import { openReadStore } from '../stores/open-read-store.js';
import type { ReadStore } from '../stores/read-store.js';
import { secretFiles } from './export.js';
import { type ArchiveEvent, readArchive, type ArchiveTrailer } from './format.js';

/** The import is refused as asked (a folder in use, an archive that fails its checks). */
export class ImportRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportRefused';
  }
}

/** The archive's file, gunzipped when it is gzip (it always is when we wrote it). */
export function openArchive(file: string): Readable {
  const fd = fs.openSync(file, 'r');
  const magic = Buffer.alloc(2);
  const read = fs.readSync(fd, magic, 0, 2, 0);
  const stream = fs.createReadStream('', { fd });
  return read === 2 && magic[0] === 0x1f && magic[1] === 0x8b ? stream.pipe(createGunzip()) : stream;
}

export interface ImportOptions {
  file: string;
  /** What the import reads of the town's settings (src/config.ts). */
  settings: { dataDir: string; eventStoreUrl?: string; mongoUrl?: string; signing?: boolean };
  onProgress?(p: Progress): void;
  onStep?(line: string): void;
}

export interface ImportResult {
  trailer: ArchiveTrailer;
  digests: Digest[];
  /** Read models not compared: the repository when the archive carries no keys to sign with. */
  unchecked: string[];
}

/** A data folder no town has used: absent, or empty. */
function emptyFolder(dir: string): boolean {
  return !fs.existsSync(dir) || (fs.statSync(dir).isDirectory() && fs.readdirSync(dir).length === 0);
}

export async function importTown(o: ImportOptions): Promise<ImportResult> {
  const { settings } = o;
  const step = o.onStep ?? (() => undefined);
  const dir = path.resolve(settings.dataDir);
  if (!emptyFolder(dir)) throw new ImportRefused(`${dir} is not empty: import only into an empty TOWN_DATA (a new folder)`);
  if (!fs.existsSync(o.file)) throw new ImportRefused(`no archive at ${o.file}`);
  // The whole file first: nothing is written from an archive that fails its checks.
  const checked = await readArchive(openArchive(o.file)).catch((error: Error) => {
    throw new ImportRefused(`${o.file}: ${error.message}`);
  });
  step(`archive checked: ${checked.trailer.events.toLocaleString('en')} events to position ${checked.trailer.position ?? 'none'}, checksum good`);

  const made = !fs.existsSync(dir);
  fs.mkdirSync(dir, { recursive: true });
  let events: EventStore | undefined;
  let reads: ReadStore | undefined;
  try {
    events = await openEventStore({ url: settings.eventStoreUrl, dataDir: dir });
    if ((await events.headPosition()) !== undefined) throw new ImportRefused('the event store already holds a journal: import only into an empty one');
    reads = await openReadStore({ url: settings.mongoUrl, dataDir: dir });
    for (const name of projectionNames) {
      if ((await reads.checkpoint(name)) !== undefined) throw new ImportRefused('the read store already holds read models: import only into an empty one');
    }
    for (const [name, hex] of Object.entries(checked.secrets ?? {})) {
      if (!(secretFiles as readonly string[]).includes(name) || !/^[0-9a-f]{64}$/.test(hex))
        throw new ImportRefused(`the archive's secret ${name} is not a key of a town`);
      fs.writeFileSync(path.join(dir, name), hex, { mode: 0o600, flag: 'wx' });
    }

    const appender = new Appender(events);
    const { trailer } = await readArchive(openArchive(o.file), { onEvent: (e) => appender.add(e) });
    await appender.finish();
    step(`journal written: ${trailer.events.toLocaleString('en')} events`);

    const signs = settings.signing !== false;
    const all = allProjections(libraryPrograms(), signs ? { keys: () => loadRepositoryKeys(dir) } : {});
    const projections = Object.values(all);
    await rebuildProjections(events, reads, projections, o.onProgress ? { onProgress: o.onProgress } : {});
    const digests: Digest[] = [];
    for (const p of projections) digests.push(await digestProjection(reads, p));
    // Without the source's keys the repository is signed with new ones: other commits, other digest.
    const unchecked = checked.header.secrets && signs === (checked.header.publicKeys !== null) ? [] : ['repository'];
    const wrong: string[] = [];
    for (const want of trailer.digests) {
      if (unchecked.includes(want.projection)) continue;
      const got = digests.find((d) => d.projection === want.projection);
      if (!got || got.sha256 !== want.sha256 || got.documents !== want.documents) {
        wrong.push(`${want.projection}: archive ${want.documents} ${want.sha256}, imported ${got ? `${got.documents} ${got.sha256}` : 'none'}`);
      }
    }
    if (wrong.length) throw new ImportRefused(`the imported read models differ from the archive's:\n  ${wrong.join('\n  ')}`);
    return { trailer, digests, unchecked };
  } catch (error) {
    await reads?.close().catch(() => undefined);
    reads = undefined;
    await events?.close().catch(() => undefined);
    events = undefined;
    // The folder was empty (or absent): leave it so.
    if (made) fs.rmSync(dir, { recursive: true, force: true });
    else for (const entry of fs.readdirSync(dir)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
    throw error;
  } finally {
    await reads?.close();
    await events?.close();
  }
}

/**
 * Appends the archive's events in order: consecutive events of one stream as one append,
 * expecting the revision the archive says came before. On the embedded journal appends are
 * numbered in the order they are made, so many are kept in flight (one synced write per group)
 * and the positions come out as the archive's; elsewhere each is awaited before the next.
 */
class Appender {
  private run: ArchiveEvent[] = [];
  private inflight: Promise<AppendResult>[] = [];
  private readonly pipelined: boolean;
  /** Whether positions must come out as the archive's: an embedded journal from an embedded one (positions 1, 2, …). */
  private samePositions: boolean | undefined;

  constructor(private readonly events: EventStore) {
    this.pipelined = events instanceof EmbeddedEventStore;
  }

  async add(e: ArchiveEvent): Promise<void> {
    this.samePositions ??= this.pipelined && e.position === '1';
    const first = this.run[0];
    if (first && (first.stream !== e.stream || this.run.length >= 500)) await this.flush();
    this.run.push(e);
  }

  private async flush(): Promise<void> {
    const run = this.run;
    if (!run.length) return;
    this.run = [];
    const first = BigInt(run[0]!.revision);
    const data: EventData[] = run.map((e) => ({ id: e.id, type: e.type, data: e.data, ...(e.metadata !== undefined ? { metadata: e.metadata } : {}) }));
    const appended = this.events.append(run[0]!.stream, data, first === 0n ? 'noStream' : first - 1n);
    const last = run[run.length - 1]!;
    const checked = appended.then((r) => {
      if (r.nextRevision !== BigInt(last.revision))
        throw new ImportRefused(`${last.stream}: revision ${r.nextRevision} where the archive has ${last.revision}`);
      if (this.samePositions && r.position !== BigInt(last.position)) throw new ImportRefused(`position ${r.position} where the archive has ${last.position}`);
      return r;
    });
    if (!this.pipelined) {
      await checked;
      return;
    }
    checked.catch(() => undefined); // observed in finish() or below
    this.inflight.push(checked);
    if (this.inflight.length >= 256) await Promise.all(this.inflight.splice(0));
  }

  async finish(): Promise<void> {
    await this.flush();
    await Promise.all(this.inflight.splice(0));
  }
}

/**
 * A carry of a world's journal into a new epoch, on a store no world service writes to (the
 * operator's, with the town stopped). In order, each step safe to be killed after:
 *
 * 1. read the current epoch whole, folding it into its world and writing it to the archive
 *    (`<dir>/<world>-epoch-<n>.ndjson`, renamed into place once synced), then verify the archive
 *    as a reader would, building the past from it;
 * 2. append the carry entry as the first event of `world-<world>@<height>` (expected: no
 *    stream), and its continuation entries when it is larger than one append (each alone,
 *    expecting the one before). Found there already (a carry killed after or during this step):
 *    the epoch ended at the same height, so it is the same world; what is there is kept when it
 *    names the same archive bytes and its parts are these (made again at its clock), and the
 *    parts missing are appended;
 * 3. move the epoch pointer (expected: the revision it was read at).
 *
 * Until step 3 the old epoch is the journal, whole; after it the new one is. Turns the old epoch
 * took after a killed carry move its height, so the next carry lands on another stream.
 */
import fs from 'node:fs';
import path from 'node:path';
import { carryEntries, CarryTooLarge, presentDigest } from '../cards/kernel/carry.js';
import type { Entry } from '../cards/kernel/entry.js';
import { evolve } from '../cards/kernel/evolve.js';
import { pastEnd } from '../cards/kernel/past.js';
import { blankWorld, type World } from '../cards/kernel/world.js';
import { currentEpoch, epochBegunEvent, epochPointerStream } from '../events/epochs.js';
import { decodeWorldEntry, entryEvent, epochStream } from '../events/world.js';
import { pastOfArchive, writeArchive } from '../events/epoch-archive.js';
import { type EventStore, WrongExpectedVersion } from '../stores/event-store.js';

/** Where a town keeps its epochs' archives: `<TOWN_DATA>/archive`. */
export const archiveDirOf = (dataDir: string) => path.join(dataDir, 'archive');

/** A carry that may not run now, or cannot (the operator is told why; nothing was changed). */
export class CarryRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CarryRefused';
  }
}

export interface CarryOptions {
  events: EventStore;
  world: string;
  /** Where archives are kept (the town's `<TOWN_DATA>/archive`). */
  archiveDir: string;
  clock: () => number;
  /**
   * The world at the head of the current epoch, when the caller holds it (the running world
   * service, which decides nothing meanwhile): not folded again from the journal, which is read
   * for the archive alone.
   */
  committed?: World;
  /** Told as each step is done (the kill test waits on these). */
  onStep?: (step: 'archived' | 'part' | 'journaled' | 'pointed') => void | Promise<void>;
}

export interface Carried {
  epoch: number;
  /** The height of the carry entry: the first of the new epoch. */
  height: number;
  archive: string;
  sha256: string;
  /** SHA-256 of the world's present at `height` (carry.ts `presentDigest`), as the archive's trailer names it. */
  digest: string;
  /** Entries the old epoch held. */
  entries: number;
  /** The carry entry, and with it every part (one, or the carry entry and its continuations). */
  entry: Entry;
  parts: Entry[];
}

export async function carry(o: CarryOptions): Promise<Carried> {
  const { events, world: name } = o;
  const current = await currentEpoch(events, name);
  if ((await events.streamRevision(current.stream)) === undefined) throw new CarryRefused(`${current.stream} is empty: there is nothing to carry`);
  fs.mkdirSync(o.archiveDir, { recursive: true });
  const file = `${name.replaceAll('/', '_')}-epoch-${current.epoch}.ndjson`;
  const full = path.join(o.archiveDir, file);
  // what a carry killed while writing this archive left behind
  for (const f of fs.readdirSync(o.archiveDir)) if (f.startsWith(`${file}.`) && f.endsWith('.tmp')) fs.rmSync(path.join(o.archiveDir, f), { force: true });

  // 1. the epoch into its world and its archive, in one read
  let world: World = o.committed ?? blankWorld();
  async function* epochEntries(): AsyncGenerator<Entry> {
    for (let revision = 0n; ; ) {
      const page = await events.readStream(current.stream, { fromRevision: revision, maxCount: 2048 });
      for (const recorded of page) {
        const entry = decodeWorldEntry(recorded);
        if (!o.committed) world = evolve(world, entry);
        yield entry;
      }
      if (page.length < 2048) return;
      revision += BigInt(page.length);
    }
  }
  const trailer = await writeArchive(full, epochEntries(), { town: name, epoch: current.epoch, from: current.start, digest: () => presentDigest(world) });
  const digest = trailer.digest;
  if (world.height !== trailer.height) throw new Error(`the world given is at height ${world.height}, the journal at ${trailer.height}`);
  // read back and checked as any reader of the archive would, and the past built from it
  const { past } = await pastOfArchive(full, file, world.past);
  if (pastEnd(past) !== world.height) throw new Error(`the archive ends at ${pastEnd(past)} and the journal at ${world.height}`);
  await o.onStep?.('archived');

  // 2. the carry entry, first of the new epoch, and its continuation entries when it is larger
  // than one append may be: each appended alone, expecting the one before
  const archive = { file, sha256: trailer.sha256, height: world.height, digest };
  const stream = epochStream(name, world.height);
  const [first] = await events.readStream(stream, { maxCount: 1 });
  const found = first ? decodeWorldEntry(first) : undefined;
  if (found && (found.carried?.archive.sha256 !== trailer.sha256 || found.carried.epoch !== current.epoch + 1)) {
    throw new CarryRefused(`${stream} already begins with another carry than this one: look before carrying again`);
  }
  // a carry killed part-way: its parts again, at its clock, so those stored are these
  let parts: Entry[];
  try {
    parts = carryEntries(world, past, current.epoch + 1, archive, found?.clock ?? o.clock(), events.maxAppendSize);
  } catch (error) {
    if (error instanceof CarryTooLarge) throw new CarryRefused(error.message);
    throw error;
  }
  const stored = found ? await events.readStream(stream, { maxCount: parts.length + 1 }) : [];
  for (const [i, recorded] of stored.entries()) {
    if (decodeWorldEntry(recorded).cid !== parts[i]?.cid) {
      throw new CarryRefused(`${stream} holds a carry in parts other than this one (part ${i}): look before carrying again`);
    }
  }
  for (let i = stored.length; i < parts.length; i++) {
    try {
      await events.append(stream, [entryEvent(name, parts[i]!)], i === 0 ? 'noStream' : BigInt(i - 1));
    } catch (error) {
      if (error instanceof WrongExpectedVersion) throw new CarryRefused(`another carry of ${name} is writing ${stream}: this one stops`);
      throw error;
    }
    await o.onStep?.(i === parts.length - 1 ? 'journaled' : 'part');
  }
  if (stored.length === parts.length) await o.onStep?.('journaled');
  const entry = parts[0]!;

  // 3. the pointer: from now on the new epoch is the journal
  const begun = { epoch: current.epoch + 1, start: world.height, archive: file, sha256: trailer.sha256 };
  try {
    await events.append(epochPointerStream(name), [epochBegunEvent(name, begun)], current.revision ?? 'noStream');
  } catch (error) {
    if (error instanceof WrongExpectedVersion) throw new CarryRefused(`another carry of ${name} moved its epoch pointer meanwhile: this one is void`);
    throw error;
  }
  await o.onStep?.('pointed');
  return { epoch: begun.epoch, height: world.height, archive: file, sha256: trailer.sha256, digest, entries: trailer.count, entry, parts };
}
